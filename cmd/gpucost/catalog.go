package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/spf13/cobra"
)

func newCatalogCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "catalog",
		Short: "GPU specs and prices: cheapest $/GPU-hour per provider, imports, sources",
		Long: `catalog shows the GPU catalog gpucost prices with: datasheet specs of NVIDIA data-center GPUs
and the offers of AWS, GCP, Lambda and Nebius bundled from SkyPilot's catalog, plus any offers
imported into the store with "gpucost catalog import".`,
		Example: `  gpucost catalog gpus --gpu H100 --spot
  gpucost catalog import --format skypilot aws_vms.csv
  gpucost catalog specs --gpu a100
  gpucost catalog issues`,
	}
	cmd.AddCommand(newCatalogGPUsCmd(e), newCatalogImportCmd(e), newCatalogSpecsCmd(e), newCatalogIssuesCmd(e))
	cmd.AddCommand(newCatalogRefreshCmd(e))
	return cmd
}

// loadCatalog returns the bundled catalog overlaid with the store's imported offers. A store
// file that does not exist yet is not created: the bundled catalog needs none.
func (e *env) loadCatalog(ctx context.Context) (*catalog.Catalog, error) {
	if _, err := os.Stat(e.dbPath); err != nil {
		return catalog.Bundled()
	}
	db, err := e.openDB(ctx)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return catalog.Load(ctx, db)
}

func newCatalogGPUsCmd(e *env) *cobra.Command {
	var q catalog.Query
	cmd := &cobra.Command{
		Use:   "gpus",
		Short: "Cheapest $/GPU-hour per GPU and provider, on-demand and spot",
		Long: `gpus lists, per GPU model and provider, the cheapest price of one GPU-hour on-demand and on
spot, with the instance type and region that give it, the spot discount, and how many offers
were compared. $/GPU-hour is the instance's hourly price divided by its GPUs; instances with a
fraction of a GPU are left out. --gpu takes any name (h100, "NVIDIA A100-SXM4-80GB", A100-80GB);
a family name such as H100 or A100 selects all its variants.`,
		Example: `  gpucost catalog gpus
  gpucost catalog gpus --gpu H100 --spot
  gpucost catalog gpus --provider aws --region us-east-1 --output csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := e.validOutput(); err != nil {
				return err
			}
			c, err := e.loadCatalog(cmd.Context())
			if err != nil {
				return err
			}
			rows, err := c.Cheapest(q)
			if err != nil {
				return err
			}
			if len(rows) == 0 {
				return gpucost.Errorf(gpucost.ENotFound, "no priced offer matches %s", describeQuery(q))
			}
			return e.print(e.gpusResult(c, rows))
		},
	}
	cmd.Flags().StringVar(&q.GPU, "gpu", "", "GPU model or family, any spelling (H100, a100-80gb, \"Tesla T4\")")
	cmd.Flags().StringVar(&q.Provider, "provider", "", "only this provider (aws, gcp, lambda, nebius, …)")
	cmd.Flags().StringVar(&q.Region, "region", "", "only this region (us-east-1, us-central1, …)")
	cmd.Flags().BoolVar(&q.SpotOnly, "spot", false, "only offers with a spot price")
	return cmd
}

func describeQuery(q catalog.Query) string {
	var parts []string
	for _, f := range [][2]string{{"--gpu", q.GPU}, {"--provider", q.Provider}, {"--region", q.Region}} {
		if f[1] != "" {
			parts = append(parts, f[0]+" "+f[1])
		}
	}
	if q.SpotOnly {
		parts = append(parts, "--spot")
	}
	if len(parts) == 0 {
		return "(no filter)"
	}
	return strings.Join(parts, " ")
}

// gpuRowJSON is one line of "catalog gpus --output json".
type gpuRowJSON struct {
	GPU             string     `json:"gpu"`
	MemoryGB        float64    `json:"vram_gb"`
	Provider        string     `json:"provider"`
	OnDemand        *priceJSON `json:"on_demand"`
	Spot            *priceJSON `json:"spot"`
	SpotDiscountPct *float64   `json:"spot_discount_pct"`
	Offers          int        `json:"offers"`
}

type priceJSON struct {
	PerGPUHour    gpucost.Money `json:"per_gpu_hour"`
	InstancePrice gpucost.Money `json:"instance_per_hour"`
	InstanceType  string        `json:"instance_type"`
	GPUs          float64       `json:"gpus"`
	Region        string        `json:"region"`
	Zone          string        `json:"zone,omitempty"`
	Source        string        `json:"source"`
	AsOf          string        `json:"as_of,omitempty"`
}

type sourceJSON struct {
	Provider string `json:"provider"`
	Origin   string `json:"origin"`
	AsOf     string `json:"as_of"`
	Note     string `json:"as_of_note"`
	Offers   int    `json:"offers"`
	Issues   int    `json:"issues"`
}

func toPriceJSON(p *catalog.Price, spot bool) *priceJSON {
	if p == nil {
		return nil
	}
	o := p.Offer
	out := &priceJSON{PerGPUHour: p.PerGPUHour, InstancePrice: o.OnDemand, InstanceType: o.InstanceType,
		GPUs: o.GPUCount, Region: o.Region, Zone: o.Zone, Source: o.Source}
	if spot {
		out.InstancePrice = o.SpotPrice
	}
	if !o.AsOf.IsZero() {
		out.AsOf = o.AsOf.UTC().Format("2006-01-02")
	}
	return out
}

func (e *env) gpusResult(c *catalog.Catalog, rows []catalog.Row) result {
	r := result{
		Columns: []string{"GPU", "VRAM", "Provider", "On-demand $/GPU-h", "On-demand instance", "Region",
			"Spot $/GPU-h", "Spot instance", "Spot region", "Spot discount", "Offers"},
		Title: "Cheapest price of one GPU-hour per GPU and provider (USD)",
		Right: []int{1, 3, 6, 9, 10},
	}
	var js []gpuRowJSON
	gcpN1 := false
	for _, row := range rows {
		cells := []string{row.GPU, e.gb(row.MemoryGB), row.Provider, "-", "-", "-", "-", "-", "-", "-", strconv.Itoa(row.Offers)}
		if p := row.OnDemand; p != nil {
			cells[3], cells[4], cells[5] = e.money(p.PerGPUHour), p.Offer.InstanceType, p.Offer.Region
			gcpN1 = gcpN1 || strings.HasPrefix(p.Offer.InstanceType, "n1+")
		}
		if p := row.Spot; p != nil {
			cells[6], cells[7], cells[8] = e.money(p.PerGPUHour), p.Offer.InstanceType, catalog.Place(p.Offer)
			gcpN1 = gcpN1 || strings.HasPrefix(p.Offer.InstanceType, "n1+")
		}
		j := gpuRowJSON{GPU: row.GPU, MemoryGB: row.MemoryGB, Provider: row.Provider, Offers: row.Offers,
			OnDemand: toPriceJSON(row.OnDemand, false), Spot: toPriceJSON(row.Spot, true)}
		if d, ok := row.SpotDiscount(); ok {
			d = math.Round(d*10) / 10
			cells[9] = strconv.FormatFloat(d, 'f', 1, 64)
			if e.output == "table" {
				cells[9] = fmt.Sprintf("%.0f%%", d)
			}
			j.SpotDiscountPct = &d
		}
		r.Rows = append(r.Rows, cells)
		js = append(js, j)
	}
	r.Notes = append(r.Notes, "$/GPU-h is the instance's $/h divided by its GPUs; instances with a fraction of a GPU are left out.")
	if gcpN1 {
		r.Notes = append(r.Notes, "GCP n1+GPU offers price the GPUs alone: the N1 host's vCPUs and memory are billed on top.")
	}
	r.Notes = append(r.Notes, e.sourceNotes(c)...)
	r.JSON = map[string]any{"gpus": js, "sources": sourcesJSON(c)}
	return r
}

// money formats a price: "$1.234" in tables, every digit in CSV and JSON.
func (e *env) money(m gpucost.Money) string {
	switch {
	case e.output != "table":
		return m.Decimal()
	case m.Currency == "" || m.Currency == "USD":
		return "$" + m.Fixed(3)
	}
	return m.Currency + " " + m.Fixed(3)
}

// gb formats a memory size: "80 GB" in tables, "80" in CSV.
func (e *env) gb(gb float64) string {
	switch {
	case gb <= 0:
		return ""
	case e.output == "table":
		return strconv.FormatFloat(gb, 'f', -1, 64) + " GB"
	}
	return strconv.FormatFloat(gb, 'f', -1, 64)
}

// sourceNotes says where the prices came from and how old they are.
func (e *env) sourceNotes(c *catalog.Catalog) []string {
	notes := []string{"Sources, with the date of their prices:"}
	now := e.now()
	var asOfNotes []string
	for _, s := range c.Sources() {
		notes = append(notes, fmt.Sprintf("  %-7s %s (%d days old)  %s", s.Provider, s.AsOf.Format("2006-01-02"), s.AgeDays(now), s.Origin))
		if !slices.Contains(asOfNotes, s.AsOfNote) {
			asOfNotes = append(asOfNotes, s.AsOfNote)
		}
	}
	for _, n := range asOfNotes {
		notes = append(notes, "  "+n)
	}
	if n := c.Imported(); n > 0 {
		notes = append(notes, fmt.Sprintf("  %d offers imported into %s replace or add to the bundled ones.", n, e.dbPath))
	}
	if n := len(c.Issues()); n > 0 {
		notes = append(notes, fmt.Sprintf("%d problems in the bundled sources were reported, not copied: gpucost catalog issues", n))
	}
	return notes
}

func sourcesJSON(c *catalog.Catalog) []sourceJSON {
	var out []sourceJSON
	for _, s := range c.Sources() {
		out = append(out, sourceJSON{Provider: s.Provider, Origin: s.Origin, AsOf: s.AsOf.Format("2006-01-02"),
			Note: s.AsOfNote, Offers: s.Offers, Issues: s.Issues})
	}
	return out
}

func newCatalogSpecsCmd(e *env) *cobra.Command {
	var gpu string
	cmd := &cobra.Command{
		Use:   "specs",
		Short: "GPU datasheets: memory, dense tensor TFLOPS, bandwidth, TDP, MIG profiles, source",
		Long: `specs prints the datasheet figures gpucost uses for each GPU model. Tensor TFLOPS are dense
(datasheets print sparsity figures twice as high); 0 means the GPU has no tensor cores for that
type. Every row names the vendor datasheet it comes from.`,
		Example: `  gpucost catalog specs
  gpucost catalog specs --gpu h100
  gpucost catalog specs --gpu "NVIDIA A100-SXM4-80GB" --output json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := e.validOutput(); err != nil {
				return err
			}
			models, err := catalog.FindSpecs(gpu)
			if err != nil {
				return err
			}
			return e.print(specsResult(models))
		},
	}
	cmd.Flags().StringVar(&gpu, "gpu", "", "GPU model or family, any spelling")
	return cmd
}

type specJSON struct {
	Name        string   `json:"name"`
	Aliases     []string `json:"aliases"`
	MemoryGB    float64  `json:"vram_gb"`
	BF16TFLOPS  float64  `json:"bf16_tflops_dense"`
	FP16TFLOPS  float64  `json:"fp16_tflops_dense"`
	FP32TFLOPS  float64  `json:"fp32_tflops"`
	MemoryBWGBs float64  `json:"memory_bandwidth_gbs"`
	TDPW        float64  `json:"tdp_w"`
	MIG         []string `json:"mig_profiles"`
	Source      string   `json:"source"`
}

func specsResult(models []gpucost.GPUModel) result {
	r := result{
		Columns: []string{"GPU", "VRAM GB", "BF16 TFLOPS", "FP16 TFLOPS", "FP32 TFLOPS", "Mem GB/s", "TDP W", "MIG profiles", "Source"},
		Right:   []int{1, 2, 3, 4, 5, 6},
	}
	var js []specJSON
	var sources []string
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	for _, m := range models {
		var refs []string
		for part := range strings.SplitSeq(m.Source, "; ") {
			i := slices.Index(sources, part)
			if i < 0 {
				sources = append(sources, part)
				i = len(sources) - 1
			}
			refs = append(refs, strconv.Itoa(i+1))
		}
		mig := "-"
		if len(m.MIG) > 0 {
			mig = m.MIG[0] + " … " + m.MIG[len(m.MIG)-1]
		}
		r.Rows = append(r.Rows, []string{m.Name, f(m.MemoryGB), f(m.BF16TFLOPS), f(m.FP16TFLOPS), f(m.FP32TFLOPS),
			f(m.MemoryBWGBs), f(m.TDPW), mig, "[" + strings.Join(refs, ",") + "]"})
		js = append(js, specJSON{Name: m.Name, Aliases: m.Aliases, MemoryGB: m.MemoryGB, BF16TFLOPS: m.BF16TFLOPS,
			FP16TFLOPS: m.FP16TFLOPS, FP32TFLOPS: m.FP32TFLOPS, MemoryBWGBs: m.MemoryBWGBs, TDPW: m.TDPW,
			MIG: m.MIG, Source: m.Source})
	}
	r.Notes = append(r.Notes, "Tensor TFLOPS are dense (without sparsity). Sources:")
	for i, s := range sources {
		r.Notes = append(r.Notes, fmt.Sprintf("  [%d] %s", i+1, s))
	}
	r.JSON = js
	return r
}

func newCatalogIssuesCmd(e *env) *cobra.Command {
	var provider string
	cmd := &cobra.Command{
		Use:   "issues",
		Short: "Problems found in the bundled price sources",
		Long: `issues lists the wrong or missing facts found in the bundled SkyPilot price files, with file,
line and column: prices of 0.0 or empty (taken as no price), empty spot prices, GPU memory
that contradicts the datasheet (the datasheet figure is used), GCP machine types whose GPU
price row is missing, spot prices not below on-demand, and GCP prices more than 5% from the
bundled pricing.yml (whose price the catalog takes). None of them is copied into the catalog.`,
		Example: `  gpucost catalog issues
  gpucost catalog issues --provider gcp --output csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := e.validOutput(); err != nil {
				return err
			}
			c, err := catalog.Bundled()
			if err != nil {
				return err
			}
			issues, err := c.IssuesOf(provider)
			if err != nil {
				return err
			}
			r := result{Columns: []string{"Source", "Line", "Field", "Value", "Reason"}, Right: []int{1}}
			for _, is := range issues {
				r.Rows = append(r.Rows, []string{is.Source, strconv.Itoa(is.Line), is.Field, is.Value, is.Reason})
			}
			r.Notes = []string{fmt.Sprintf("%d issues.", len(r.Rows))}
			return e.print(r)
		},
	}
	cmd.Flags().StringVar(&provider, "provider", "", "only this provider's file")
	return cmd
}

func newCatalogImportCmd(e *env) *cobra.Command {
	var format, provider string
	cmd := &cobra.Command{
		Use:   "import --format skypilot FILE.csv...",
		Short: "Add or replace offers from SkyPilot vms.csv files",
		Long: `import reads SkyPilot v8 vms.csv files (any cloud; the columns are found from the header) and
stores their NVIDIA GPU offers in the store, where they replace bundled or earlier imported
offers with the same provider, region, zone and instance type. The provider is taken from
--provider, else from the file's path (catalogs/v8/aws/vms.csv, aws_vms.csv).

Problems in a file (a price of 0.0, an unparseable number, GPU memory that contradicts the
datasheet) are reported with line and column, and the rest of the file is imported. All files
land in one transaction: either every offer is stored or none is.`,
		Example: `  gpucost catalog import --format skypilot ~/skypilot-catalog/catalogs/v8/aws/vms.csv
  gpucost catalog import --format skypilot --provider lambda vms.csv
  gpucost catalog import --format skypilot --output json gcp_vms.csv`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := e.validOutput(); err != nil {
				return err
			}
			imports, err := catalog.ReadImportsAs(format, args, provider, e.now().UTC())
			if err != nil {
				return err
			}
			var offers []gpucost.Offer
			for _, im := range imports {
				offers = append(offers, im.Offers...)
			}
			if len(offers) == 0 {
				return gpucost.Errorf(gpucost.EInvalid, "no NVIDIA GPU offers in %s: nothing imported", strings.Join(args, ", "))
			}
			db, err := e.openDB(cmd.Context())
			if err != nil {
				return err
			}
			defer db.Close()
			added, replaced, err := db.PutOffers(cmd.Context(), offers)
			if err != nil {
				return err
			}
			return e.print(catalogImportResult(imports, added, replaced))
		},
	}
	cmd.Flags().StringVar(&format, "format", "", "file format: skypilot or gcp-pricing-yml (required)")
	cmd.Flags().StringVar(&provider, "provider", "", "provider of every file (default: from each file's path)")
	return cmd
}

// maxIssueNotes is how many issues an import lists under its table; JSON lists them all.
const maxIssueNotes = 20

func catalogImportResult(imports []*catalog.Import, added, replaced int) result {
	r := result{
		Title:   fmt.Sprintf("Imported %d offers: %d added, %d replaced.", added+replaced, added, replaced),
		Columns: []string{"File", "Provider", "Rows", "Offers", "Issues", "Left out by design"},
		Right:   []int{2, 3, 4, 5},
	}
	type fileJSON struct {
		File     string         `json:"file"`
		Provider string         `json:"provider"`
		Rows     int            `json:"rows"`
		Offers   int            `json:"offers"`
		Issues   []string       `json:"issues"`
		Skipped  map[string]int `json:"left_out_by_design"`
	}
	var files []fileJSON
	var issues []string
	for _, im := range imports {
		fj := fileJSON{File: im.Name, Provider: im.Provider, Rows: im.Rows, Offers: len(im.Offers), Issues: []string{}, Skipped: im.Skipped}
		for _, is := range im.Issues {
			fj.Issues = append(fj.Issues, catalog.FormatIssue(is))
		}
		issues = append(issues, fj.Issues...)
		files = append(files, fj)
		r.Rows = append(r.Rows, []string{im.Name, im.Provider, strconv.Itoa(im.Rows), strconv.Itoa(len(im.Offers)),
			strconv.Itoa(len(im.Issues)), strconv.Itoa(im.SkippedRows())})
	}
	for i, is := range issues {
		if i == maxIssueNotes {
			r.Notes = append(r.Notes, fmt.Sprintf("… and %d more issues (--output json lists them all).", len(issues)-i))
			break
		}
		r.Notes = append(r.Notes, is)
	}
	r.JSON = map[string]any{"added": added, "replaced": replaced, "files": files}
	return r
}
