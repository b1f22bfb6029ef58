package main

import (
	"context"
	"fmt"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/present"
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
	if e.noStoreYet() {
		return catalog.Bundled()
	}
	return fromStore(ctx, e, func(db storeDB) (*catalog.Catalog, error) { return catalog.Load(ctx, db) })
}

// putOffers stores offers in the store in one transaction, where they replace those with the
// same provider, region, zone and instance type; no offer opens no store.
func (e *env) putOffers(ctx context.Context, offers []gpucost.Offer) (added, replaced int, err error) {
	if len(offers) == 0 {
		return 0, 0, nil
	}
	err = e.withStore(ctx, func(db storeDB) error {
		added, replaced, err = db.PutOffers(ctx, offers)
		return err
	})
	return added, replaced, err
}

// putCommitted keeps the committed-use prices of the newest GCP pricing YAML among imports in
// the store (catalog.SettingGCPCommitted), for plan commit --gcp-cud, and says so.
func (e *env) putCommitted(ctx context.Context, imports []*catalog.Import) (string, error) {
	doc, n, name, err := catalog.Committed(imports)
	if err != nil || n == 0 {
		return "", err
	}
	err = e.withStore(ctx, func(db storeDB) error { return db.SetSetting(ctx, catalog.SettingGCPCommitted, doc) })
	return fmt.Sprintf("Committed-use prices of %d GCP machine types and regions from %s kept for plan commit --gcp-cud.", n, name), err
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
		RunE: e.printing(func(cmd *cobra.Command, args []string) (result, error) {
			c, err := e.loadCatalog(cmd.Context())
			if err != nil {
				return result{}, err
			}
			if err := knownProvider(c, q.Provider); err != nil {
				return result{}, err
			}
			rows, err := c.Cheapest(q)
			if err != nil {
				return result{}, err
			}
			if len(rows) == 0 {
				return result{}, gpucost.Errorf(gpucost.ENotFound, "no priced offer matches %s", present.CatalogQuery(q))
			}
			return present.CatalogGPUs(c, rows, e.output, e.now(), e.dbPath), nil
		}),
	}
	cmd.Flags().StringVar(&q.GPU, "gpu", "", "GPU model or family, any spelling (H100, a100-80gb, \"Tesla T4\")")
	cmd.Flags().StringVar(&q.Provider, "provider", "", "only this provider (aws, gcp, lambda, nebius, …)")
	cmd.Flags().StringVar(&q.Region, "region", "", "only this region (us-east-1, us-central1, …)")
	cmd.Flags().BoolVar(&q.SpotOnly, "spot", false, "only offers with a spot price")
	return cmd
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
		RunE: e.printing(func(cmd *cobra.Command, args []string) (result, error) {
			return shown(present.CatalogSpecs)(catalog.FindSpecs(gpu))
		}),
	}
	cmd.Flags().StringVar(&gpu, "gpu", "", "GPU model or family, any spelling")
	return cmd
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
		RunE: e.printing(func(cmd *cobra.Command, args []string) (result, error) {
			c, err := catalog.Bundled()
			if err != nil {
				return result{}, err
			}
			return shown(present.CatalogIssues)(c.IssuesOf(provider))
		}),
	}
	cmd.Flags().StringVar(&provider, "provider", "", "only this provider's file")
	return cmd
}

func newCatalogImportCmd(e *env) *cobra.Command {
	var format, provider string
	cmd := &cobra.Command{
		Use:   "import --format skypilot FILE.csv...",
		Short: "Add or replace offers from SkyPilot vms.csv files or a GCP pricing YAML",
		Long: `import reads SkyPilot v8 vms.csv files (any cloud; the columns are found from the header) and
stores their NVIDIA GPU offers in the store, where they replace bundled or earlier imported
offers with the same provider, region, zone and instance type. The provider is taken from
--provider, else from the file's path (catalogs/v8/aws/vms.csv, aws_vms.csv).

Problems in a file (a price of 0.0, an unparseable number, GPU memory that contradicts the
datasheet) are reported with line and column, and the rest of the file is imported. All files
land in one transaction: either every offer is stored or none is.

--format gcp-pricing-yml reads a GCP pricing YAML of GPU machine types (the format of
google-cloud-pricing-cost-calculator's pricing.yml): its on-demand and spot prices become
offers, and the store keeps its committed-use prices (1- and 3-year), those of the newest file
imported, which plan commit --gcp-cud then uses in place of the bundled file's.

--format aws-spot-advisor reads the Spot Instance Advisor's spot-advisor-data.json (from
https://spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json): each region's Linux instance
types, their interruption frequency bucket and spot saving, kept in the store for report spot and
--interruption-rate auto (docs/architecture.md "Spot risk").`,
		Example: `  gpucost catalog import --format skypilot ~/skypilot-catalog/catalogs/v8/aws/vms.csv
  gpucost catalog import --format skypilot --provider lambda vms.csv
  gpucost catalog import --format skypilot --output json gcp_vms.csv
  gpucost catalog import --format gcp-pricing-yml pricing.yml
  gpucost catalog import --format aws-spot-advisor spot-advisor-data.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: e.printing(func(cmd *cobra.Command, args []string) (result, error) {
			if format == catalog.FormatAWSSpotAdvisor {
				return importSpotAdvisor(cmd.Context(), e, args)
			}
			imports, err := catalog.ReadImportsAs(format, args, provider, e.now().UTC())
			if err != nil {
				return result{}, err
			}
			offers, err := catalog.ImportedOffers(imports, args)
			if err != nil {
				return result{}, err
			}
			added, replaced, err := e.putOffers(cmd.Context(), offers)
			if err != nil {
				return result{}, err
			}
			out := present.CatalogImport(imports, added, replaced)
			if note, err := e.putCommitted(cmd.Context(), imports); err != nil || note != "" {
				out.Notes = append(out.Notes, note)
				return out, err
			}
			return out, nil
		}),
	}
	cmd.Flags().StringVar(&format, "format", "", "file format: skypilot, gcp-pricing-yml or aws-spot-advisor (required)")
	cmd.Flags().StringVar(&provider, "provider", "", "provider of every file (default: from each file's path)")
	return cmd
}
