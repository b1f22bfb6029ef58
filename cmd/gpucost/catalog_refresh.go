package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/gpucost/gpucost/present"
	"github.com/gpucost/gpucost/pricing/refresh"
	"github.com/spf13/cobra"
)

type refreshFlags struct {
	providers  []string
	regions    []string
	baseURL    string
	awsProfile string
}

func newCatalogRefreshCmd(e *env) *cobra.Command {
	var f refreshFlags
	cmd := &cobra.Command{
		Use:   "refresh --provider aws|azure|gcp [--region R ...]",
		Short: "Fetch current prices from the providers' price APIs into the store",
		Long: `refresh reads current GPU prices from the providers' own price APIs and stores them, where they
replace bundled or earlier offers with the same provider, region, zone and instance type:

  aws    AWS Price List Query API (GetProducts: Linux, shared tenancy, on-demand) and EC2
         DescribeSpotPriceHistory (the current spot price per zone, also added to the price
         history report spot's trend reads), and the Spot Instance Advisor's interruption
         buckets (spot-advisor-data.json, kept for report spot). Signed with the AWS credential
         chain, as enforce is: --aws-profile or AWS_PROFILE (static keys, a role, SSO),
         AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, web identity, the default profile, the ECS
         or EC2 instance role (pricing:GetProducts and ec2:DescribeSpotPriceHistory).
  azure  Azure Retail Prices API (pay-as-you-go and spot, Linux). Needs no credentials.
  gcp    Cloud Billing Catalog API (Compute Engine GPU SKUs, on-demand and spot), with the API
         key in GPUCOST_GCP_API_KEY, else Application Default Credentials (gcloud auth
         application-default login, GOOGLE_APPLICATION_CREDENTIALS, the metadata server).
         GPUs attached to N1 machines (T4, V100, P100, P4) are refreshed; A2, A3, A4 and G2
         machine types keep their bundled prices.

Every provider is read before anything is stored, and all offers land in one transaction. When
a price API cannot be reached the command fails with exit code 4 and the bundled catalog, whose
date it names, stays in use. --base-url sends the requests to a mirror or a test server, unsigned
when no credentials are configured.`,
		Example: `  gpucost catalog refresh --provider azure --region eastus --region westeurope
  gpucost catalog refresh --provider aws --region us-east-1
  gpucost catalog refresh --provider aws --aws-profile pricing-reader
  GPUCOST_GCP_API_KEY=... gpucost catalog refresh --provider gcp --region us-central1
  gpucost catalog refresh --provider azure --base-url http://localhost:8080`,
		Args: cobra.NoArgs,
		RunE: e.printing(func(cmd *cobra.Command, args []string) (result, error) { return e.refresh(cmd.Context(), f) }),
	}
	cmd.Flags().StringSliceVar(&f.providers, "provider", nil, "aws, azure or gcp (repeat, or separate with commas)")
	cmd.Flags().StringSliceVar(&f.regions, "region", nil, "only this region (repeatable; default: every region)")
	cmd.Flags().StringVar(&f.baseURL, "base-url", "", "send the requests to this URL instead of the provider's endpoint")
	cmd.Flags().StringVar(&f.awsProfile, "aws-profile", "", "AWS profile of ~/.aws/config to take credentials from (static keys, a role, SSO); beats $AWS_PROFILE and the environment's keys")
	cmd.MarkFlagRequired("provider")
	return cmd
}

// refresh fetches every provider, then stores all offers in one transaction, and says what it
// stored.
func (e *env) refresh(ctx context.Context, f refreshFlags) (result, error) {
	providers, err := refresh.ParseProviders(f.providers)
	if err != nil {
		return result{}, err
	}
	c, err := e.loadCatalog(ctx)
	if err != nil {
		return result{}, err
	}
	cfg := refresh.Config{Regions: f.regions, BaseURL: f.baseURL, GCPKey: e.getenv("GPUCOST_GCP_API_KEY"), Now: e.now,
		AWSCredentials: func() (aws.CredentialsProvider, error) {
			return refresh.AWSCredentials(e.getenv, f.awsProfile, f.baseURL != "")
		},
		GCPTokens: func() (func(context.Context) (string, error), error) {
			return refresh.GCPTokens(e.getenv, f.baseURL != "")
		}}
	results, err := refresh.Fetch(ctx, c, providers, cfg)
	if err != nil {
		return result{}, err
	}
	offers := refresh.Offers(results)
	added, replaced, err := e.putOffers(ctx, offers)
	if err != nil {
		return result{}, err
	}
	kept, err := e.keepSpotPrices(ctx, offers)
	if err != nil {
		return result{}, err
	}
	out := present.CatalogRefresh(c, results, added, replaced, e.now(), e.dbPath)
	if kept != "" {
		out.Notes = append(out.Notes, kept)
	}
	if slices.ContainsFunc(f.providers, func(p string) bool { return strings.EqualFold(strings.TrimSpace(p), "aws") }) {
		out.Notes = append(out.Notes, e.refreshSpotAdvisor(ctx, f.baseURL))
	}
	return out, nil
}

// refreshSpotAdvisor fetches the Spot Instance Advisor's data into the store for catalog refresh
// --provider aws and says what it did; a failure is a note, not an error, since the prices were
// stored: the advisor data kept before stays in use.
func (e *env) refreshSpotAdvisor(ctx context.Context, baseURL string) string {
	adv, err := refresh.FetchSpotAdvisor(ctx, baseURL)
	if err == nil {
		var t result
		if t, err = putSpotAdvisor(ctx, e, adv); err == nil {
			return strings.Join(t.Notes, " ")
		}
	}
	return fmt.Sprintf("Spot Instance Advisor data not refreshed (%v); what was imported before stays in use, or import the file with catalog import --format aws-spot-advisor.", err)
}
