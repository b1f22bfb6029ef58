package present

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/pricing"
	"github.com/gpucost/gpucost/pricing/refresh"
)

// CatalogQuery names the filters of a catalog query as the flags that set them, "(no filter)"
// when none is set: what an error about an empty answer repeats.
func CatalogQuery(q catalog.Query) string {
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

// catalogGPUJSON is one line of "catalog gpus --output json".
type catalogGPUJSON struct {
	GPU             string            `json:"gpu"`
	MemoryGB        float64           `json:"vram_gb"`
	Provider        string            `json:"provider"`
	OnDemand        *catalogPriceJSON `json:"on_demand"`
	Spot            *catalogPriceJSON `json:"spot"`
	SpotDiscountPct *float64          `json:"spot_discount_pct"`
	Offers          int               `json:"offers"`
}

type catalogPriceJSON struct {
	PerGPUHour    gpucost.Money `json:"per_gpu_hour"`
	InstancePrice gpucost.Money `json:"instance_per_hour"`
	InstanceType  string        `json:"instance_type"`
	GPUs          float64       `json:"gpus"`
	Region        string        `json:"region"`
	Zone          string        `json:"zone,omitempty"`
	Source        string        `json:"source"`
	AsOf          string        `json:"as_of,omitempty"`
}

type catalogSourceJSON struct {
	Provider string `json:"provider"`
	Origin   string `json:"origin"`
	AsOf     string `json:"as_of"`
	Note     string `json:"as_of_note"`
	Offers   int    `json:"offers"`
	Issues   int    `json:"issues"`
}

func catalogPriceOf(p *catalog.Price, spot bool) *catalogPriceJSON {
	if p == nil {
		return nil
	}
	o := p.Offer
	out := &catalogPriceJSON{PerGPUHour: p.PerGPUHour, InstancePrice: o.OnDemand, InstanceType: o.InstanceType,
		GPUs: o.GPUCount, Region: o.Region, Zone: o.Zone, Source: o.Source}
	if spot {
		out.InstancePrice = o.SpotPrice
	}
	if !o.AsOf.IsZero() {
		out.AsOf = o.AsOf.UTC().Format("2006-01-02")
	}
	return out
}

// CatalogGPUs is "catalog gpus": the cheapest $/GPU-hour per GPU and provider, with where the
// prices came from and how old they were at now; store names the file imported offers are in.
func CatalogGPUs(c *catalog.Catalog, rows []catalog.Row, format string, now time.Time, store string) Table {
	t := Table{
		Columns: []string{"GPU", "VRAM", "Provider", "On-demand $/GPU-h", "On-demand instance", "Region",
			"Spot $/GPU-h", "Spot instance", "Spot region", "Spot discount", "Offers"},
		Title: "Cheapest price of one GPU-hour per GPU and provider (USD)",
		Right: []int{1, 3, 6, 9, 10},
		Units: []string{1: "gb", 9: "pct"},
	}
	var js []catalogGPUJSON
	gcpN1 := false
	for _, row := range rows {
		cells := []string{row.GPU, CatalogVRAM(row.MemoryGB, format), row.Provider, "-", "-", "-", "-", "-", "-", "-", strconv.Itoa(row.Offers)}
		if p := row.OnDemand; p != nil {
			cells[3], cells[4], cells[5] = CatalogPrice(p.PerGPUHour, format), p.Offer.InstanceType, p.Offer.Region
			gcpN1 = gcpN1 || strings.HasPrefix(p.Offer.InstanceType, "n1+")
		}
		if p := row.Spot; p != nil {
			cells[6], cells[7], cells[8] = CatalogPrice(p.PerGPUHour, format), p.Offer.InstanceType, catalog.Place(p.Offer)
			gcpN1 = gcpN1 || strings.HasPrefix(p.Offer.InstanceType, "n1+")
		}
		j := catalogGPUJSON{GPU: row.GPU, MemoryGB: row.MemoryGB, Provider: row.Provider, Offers: row.Offers,
			OnDemand: catalogPriceOf(row.OnDemand, false), Spot: catalogPriceOf(row.Spot, true)}
		if d, ok := row.SpotDiscount(); ok {
			d = math.Round(d*10) / 10
			cells[9] = strconv.FormatFloat(d, 'f', 1, 64)
			if format == "table" {
				cells[9] = fmt.Sprintf("%.0f%%", d)
			}
			j.SpotDiscountPct = &d
		}
		t.Rows = append(t.Rows, cells)
		js = append(js, j)
	}
	t.Notes = append(t.Notes, "$/GPU-h is the instance's $/h divided by its GPUs; instances with a fraction of a GPU are left out.")
	if gcpN1 {
		t.Notes = append(t.Notes, "GCP n1+GPU offers price the GPUs alone: the N1 host's vCPUs and memory are billed on top.")
	}
	t.Notes = append(t.Notes, CatalogSources(c, now, store)...)
	var sources []catalogSourceJSON
	for _, s := range c.Sources() {
		sources = append(sources, catalogSourceJSON{Provider: s.Provider, Origin: s.Origin, AsOf: s.AsOf.Format("2006-01-02"),
			Note: s.AsOfNote, Offers: s.Offers, Issues: s.Issues})
	}
	t.JSON = map[string]any{"gpus": js, "sources": sources}
	return t
}

// CatalogPrice formats a price: "$1.234" in tables, every digit in CSV and JSON.
func CatalogPrice(m gpucost.Money, format string) string {
	switch {
	case format != "table":
		return m.Decimal()
	case m.Currency == "" || m.Currency == "USD":
		return "$" + m.Fixed(3)
	}
	return m.Currency + " " + m.Fixed(3)
}

// CatalogVRAM formats a memory size: "80 GB" in tables, "80" in CSV, nothing when unknown.
func CatalogVRAM(gb float64, format string) string {
	switch {
	case gb <= 0:
		return ""
	case format == "table":
		return strconv.FormatFloat(gb, 'f', -1, 64) + " GB"
	}
	return strconv.FormatFloat(gb, 'f', -1, 64)
}

// CatalogSources says where the catalog's prices came from and how old they are at now.
func CatalogSources(c *catalog.Catalog, now time.Time, store string) []string {
	notes := []string{"Sources, with the date of their prices:"}
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
		notes = append(notes, fmt.Sprintf("  %d offers imported into %s replace or add to the bundled ones.", n, store))
	}
	for _, u := range c.UserPrices() { // catalog/user_price.go
		notes = append(notes, fmt.Sprintf("  %-7s %s at %s/GPU-h, in place of the catalog's price (set %s: %s)",
			u.Provider, u.GPUModel, u.OnDemand.Dollars(), u.AsOf.Format("2006-01-02"), u.Source))
	}
	if n := len(c.Issues()); n > 0 {
		notes = append(notes, fmt.Sprintf("%d problems in the bundled sources were reported, not copied: gpucost catalog issues", n))
	}
	return notes
}

type catalogSpecJSON struct {
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

// CatalogSpecs is "catalog specs": the datasheet figures of each model, its sources numbered
// in notes under the table.
func CatalogSpecs(models []gpucost.GPUModel) Table {
	t := Table{
		Columns: []string{"GPU", "VRAM GB", "BF16 TFLOPS", "FP16 TFLOPS", "FP32 TFLOPS", "Mem GB/s", "TDP W", "MIG profiles", "Source"},
		Right:   []int{1, 2, 3, 4, 5, 6},
	}
	var js []catalogSpecJSON
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
		t.Rows = append(t.Rows, []string{m.Name, f(m.MemoryGB), f(m.BF16TFLOPS), f(m.FP16TFLOPS), f(m.FP32TFLOPS),
			f(m.MemoryBWGBs), f(m.TDPW), mig, "[" + strings.Join(refs, ",") + "]"})
		js = append(js, catalogSpecJSON{Name: m.Name, Aliases: m.Aliases, MemoryGB: m.MemoryGB, BF16TFLOPS: m.BF16TFLOPS,
			FP16TFLOPS: m.FP16TFLOPS, FP32TFLOPS: m.FP32TFLOPS, MemoryBWGBs: m.MemoryBWGBs, TDPW: m.TDPW,
			MIG: m.MIG, Source: m.Source})
	}
	t.Notes = append(t.Notes, "Tensor TFLOPS are dense (without sparsity). Sources:")
	for i, s := range sources {
		t.Notes = append(t.Notes, fmt.Sprintf("  [%d] %s", i+1, s))
	}
	t.JSON = js
	return t
}

// CatalogIssues is "catalog issues": the problems found in the bundled price files.
func CatalogIssues(issues []gpucost.CatalogIssue) Table {
	t := Table{Columns: []string{"Source", "Line", "Field", "Value", "Reason"}, Right: []int{1}}
	for _, is := range issues {
		t.Rows = append(t.Rows, []string{is.Source, strconv.Itoa(is.Line), is.Field, is.Value, is.Reason})
	}
	t.Notes = []string{fmt.Sprintf("%d issues.", len(t.Rows))}
	return t
}

// catalogImportMaxIssues is how many issues an import lists under its table; JSON lists them all.
const catalogImportMaxIssues = 20

// CatalogImport is "catalog import": per file, the rows read, the offers kept and the issues.
func CatalogImport(imports []*catalog.Import, added, replaced int) Table {
	t := Table{
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
		t.Rows = append(t.Rows, []string{im.Name, im.Provider, strconv.Itoa(im.Rows), strconv.Itoa(len(im.Offers)),
			strconv.Itoa(len(im.Issues)), strconv.Itoa(im.SkippedRows())})
	}
	for i, is := range issues {
		if i == catalogImportMaxIssues {
			t.Notes = append(t.Notes, fmt.Sprintf("… and %d more issues (--output json lists them all).", len(issues)-i))
			break
		}
		t.Notes = append(t.Notes, is)
	}
	t.JSON = map[string]any{"added": added, "replaced": replaced, "files": files}
	return t
}

// catalogRefreshJSON is one provider of "catalog refresh --output json".
type catalogRefreshJSON struct {
	Provider string         `json:"provider"`
	Offers   int            `json:"offers"`
	Skipped  map[string]int `json:"skipped"`
	Pages    int            `json:"pages"`
	Source   string         `json:"source"`
	AsOf     time.Time      `json:"as_of"`
	Previous string         `json:"bundled_as_of,omitempty"`
}

// CatalogRefresh is "catalog refresh": per provider, the offers fetched and skipped and the
// date of the bundled prices they replace, stored at now in store.
func CatalogRefresh(c *catalog.Catalog, results []*pricing.Result, added, replaced int, now time.Time, store string) Table {
	t := Table{Columns: []string{"Provider", "Offers", "Skipped", "Pages", "Source", "Bundled prices"}, Right: []int{1, 2, 3}}
	var js []catalogRefreshJSON
	for _, res := range results {
		prev := refresh.Bundled(c, res.Provider, now)
		t.Rows = append(t.Rows, []string{res.Provider, strconv.Itoa(len(res.Offers)), strconv.Itoa(len(res.Skipped)),
			strconv.Itoa(res.Pages), res.Source, prev})
		js = append(js, catalogRefreshJSON{Provider: res.Provider, Offers: len(res.Offers), Skipped: res.SkipCounts(),
			Pages: res.Pages, Source: res.Source, AsOf: res.AsOf, Previous: prev})
		counts := res.SkipCounts()
		for _, reason := range refresh.SkipReasons(res) {
			t.Notes = append(t.Notes, fmt.Sprintf("  %s: %d skipped: %s", res.Provider, counts[reason], reason))
		}
	}
	t.JSON = js
	t.Notes = append([]string{fmt.Sprintf("Stored in %s: %d offers added, %d replaced. Prices are fresh as of %s (0 days old).",
		store, added, replaced, now.UTC().Format("2006-01-02 15:04 MST"))}, t.Notes...)
	return t
}
