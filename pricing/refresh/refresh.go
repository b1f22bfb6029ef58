// Package refresh reads current GPU prices from the providers' own price APIs, through the
// adapters of pricing/*, for gpucost catalog refresh: which providers, in which order, with
// which credentials, and what to say when an API cannot be reached. Storing the offers is the
// caller's: every provider is read before anything is stored.
package refresh

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/pricing"
	"github.com/gpucost/gpucost/pricing/awsprices"
	"github.com/gpucost/gpucost/pricing/azureprices"
	"github.com/gpucost/gpucost/pricing/gcpprices"
)

// Providers are the providers whose price APIs can be read, in the order they are read.
var Providers = []string{"aws", "azure", "gcp"}

// ParseProviders returns the providers named by --provider values (any case, repeats dropped),
// in the order given. An unknown provider, or none, is an EInvalid error.
func ParseProviders(names []string) ([]string, error) {
	var out []string
	for _, p := range names {
		p = strings.ToLower(strings.TrimSpace(p))
		if !slices.Contains(Providers, p) {
			return nil, gpucost.Errorf(gpucost.EInvalid, "--provider %q: use aws, azure or gcp", p)
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil, gpucost.Errorf(gpucost.EInvalid, "--provider: say aws, azure or gcp")
	}
	return out, nil
}

// Config says how to reach the price APIs.
type Config struct {
	Regions []string // only these regions; every region when empty
	BaseURL string   // a mirror or test server instead of every provider's endpoint
	GCPKey  string   // the Cloud Billing Catalog API key; GCPTokens are asked without one
	// AWSCredentials returns the credentials of the AWS APIs; it is called only when AWS is read.
	AWSCredentials func() (aws.CredentialsProvider, error)
	// GCPTokens returns the source of the OAuth 2 tokens the Cloud Billing Catalog API is asked
	// with when there is no GCPKey, or nil to ask unsigned (a mirror); it is called only then.
	GCPTokens func() (func(context.Context) (string, error), error)
	Now       func() time.Time // when the prices are read
}

// Fetch reads each provider's price API in turn; c names the GPUs of instance types and gives
// the shapes of GCP's GPU machine types. It stops at the first provider that fails; the error of
// an API that cannot be reached (EUnavailable) says that c's bundled prices stay in use and how
// old they are.
func Fetch(ctx context.Context, c *catalog.Catalog, providers []string, cfg Config) ([]*pricing.Result, error) {
	var out []*pricing.Result
	for _, p := range providers {
		res, err := fetch(ctx, c, p, cfg)
		if err != nil {
			return nil, offline(c, p, err, cfg.Now())
		}
		out = append(out, res)
	}
	return out, nil
}

func fetch(ctx context.Context, c *catalog.Catalog, provider string, cfg Config) (*pricing.Result, error) {
	gpus := pricing.CatalogGPUs(c)
	switch provider {
	case "azure":
		return (&azureprices.Client{BaseURL: cfg.BaseURL, GPUs: gpus, Now: cfg.Now}).Fetch(ctx, cfg.Regions)
	case "gcp":
		client := &gcpprices.Client{BaseURL: cfg.BaseURL, APIKey: cfg.GCPKey, Now: cfg.Now, Shapes: gcpprices.ShapesOf(c.Offers())}
		if cfg.GCPKey == "" {
			tokens, err := gcpTokens(cfg)
			if err != nil {
				return nil, err
			}
			if tokens != nil {
				client.HTTP = &http.Client{Timeout: 5 * time.Minute, Transport: bearer{tokens: tokens, base: http.DefaultTransport}}
			}
		}
		return client.Fetch(ctx, cfg.Regions)
	default:
		creds, err := cfg.AWSCredentials()
		if err != nil {
			return nil, err
		}
		return (&awsprices.Client{BaseURL: cfg.BaseURL, Credentials: creds, GPUs: gpus, Now: cfg.Now}).Fetch(ctx, cfg.Regions)
	}
}

// gcpTokens returns cfg's token source for the Cloud Billing Catalog API; without one, only a
// mirror is asked, unsigned.
func gcpTokens(cfg Config) (func(context.Context) (string, error), error) {
	if cfg.GCPTokens != nil {
		return cfg.GCPTokens()
	}
	if cfg.BaseURL != "" {
		return nil, nil
	}
	return nil, gpucost.Errorf(gpucost.EInvalid, "the Cloud Billing Catalog API needs an API key or Google Cloud credentials: set GPUCOST_GCP_API_KEY")
}

// bearer sends each request with a token of tokens as its Authorization.
type bearer struct {
	tokens func(context.Context) (string, error)
	base   http.RoundTripper
}

func (b bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	tok, err := b.tokens(req.Context())
	if err != nil {
		return nil, err
	}
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+tok)
	return b.base.RoundTrip(req)
}

// offline adds to an unreachable API's error that the bundled prices stay in use, and how old
// they are; other errors it returns as they are.
func offline(c *catalog.Catalog, provider string, err error, now time.Time) error {
	if gpucost.ErrorCode(err) != gpucost.EUnavailable {
		return err
	}
	if s, ok := c.Source(provider); ok {
		return gpucost.Errorf(gpucost.EUnavailable, "refresh %s: %w; nothing was stored: the bundled %s catalog of %s (%s old) stays in use",
			provider, err, provider, s.AsOf.Format("2006-01-02"), age(now, s.AsOf))
	}
	return gpucost.Errorf(gpucost.EUnavailable, "refresh %s: %w; nothing was stored: gpucost bundles no %s prices, so none are in use", provider, err, provider)
}

// Bundled describes the prices of provider that c bundles: "2026-11-22 (10 days old)", or
// "none".
func Bundled(c *catalog.Catalog, provider string, now time.Time) string {
	s, ok := c.Source(provider)
	if !ok {
		return "none"
	}
	return fmt.Sprintf("%s (%s old)", s.AsOf.Format("2006-01-02"), age(now, s.AsOf))
}

func age(now, t time.Time) string {
	d := max(int(now.Sub(t).Hours()/24), 0)
	if d == 1 {
		return "1 day"
	}
	return strconv.Itoa(d) + " days"
}

// SkipReasons returns the reasons r's rows were skipped for, the most frequent first, ties in
// alphabetical order.
func SkipReasons(r *pricing.Result) []string {
	counts := r.SkipCounts()
	out := make([]string, 0, len(counts))
	for k := range counts {
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b string) int {
		if counts[a] != counts[b] {
			return counts[b] - counts[a]
		}
		return strings.Compare(a, b)
	})
	return out
}
