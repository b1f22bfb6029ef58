package awsprices

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/pricing"
	pricingtypes "github.com/aws/aws-sdk-go-v2/service/pricing/types"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/gpucost/gpucost"
	prices "github.com/gpucost/gpucost/pricing"
)

// API is the name offers and errors give the source.
const API = "AWS Price List Query API"

// spotAPI names the spot prices' source in errors.
const spotAPI = "EC2 DescribeSpotPriceHistory"

// Client reads GPU instance prices from the AWS Price List Query API (GetProducts, on-demand
// Linux shared-tenancy prices) and EC2 spot price history (the current price per zone). Both
// APIs need SigV4-signed requests, which the AWS SDK makes.
type Client struct {
	// BaseURL, when set, replaces both services' endpoints (a mirror or a test server).
	BaseURL       string
	HTTP          *http.Client // http.DefaultClient when nil
	Credentials   aws.CredentialsProvider
	PricingRegion string // the Price List endpoint's region; us-east-1 when empty
	GPUs          prices.GPUs
	Now           func() time.Time
	MaxAttempts   int                  // tries per request, 4 when zero
	Backoff       retry.BackoffDelayer // the SDK's jittered exponential backoff when nil
	MaxPages      int                  // pages read at most per call (default 500)
}

// Fetch reads the on-demand price of every GPU instance type in regions (all when empty) and
// the current spot price of those types in each zone.
func (c *Client) Fetch(ctx context.Context, regions []string) (*prices.Result, error) {
	if c.GPUs == nil {
		return nil, gpucost.Errorf(gpucost.EInternal, "%s client: GPUs is not set", API)
	}
	res := prices.NewResult("aws", API, c.Now)
	b := newBook(res, c.GPUs)
	if len(regions) == 0 {
		regions = []string{""}
	}
	for _, r := range regions {
		if err := c.products(ctx, r, b); err != nil {
			return nil, err
		}
	}
	for _, region := range b.regions() {
		if err := c.spot(ctx, region, b); err != nil {
			return nil, err
		}
	}
	res.Offers = b.offers()
	return res, nil
}

func (c *Client) retryer() aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = 4
		if c.MaxAttempts > 0 {
			o.MaxAttempts = c.MaxAttempts
		}
		if c.Backoff != nil {
			o.Backoff = c.Backoff
		}
		o.RateLimiter = ratelimit.None
	})
}

func (c *Client) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

func (c *Client) baseEndpoint() *string {
	if c.BaseURL == "" {
		return nil
	}
	return aws.String(c.BaseURL)
}

// products pages through GetProducts for GPU instances in region ("" for all regions).
func (c *Client) products(ctx context.Context, region string, b *book) error {
	pr := c.PricingRegion
	if pr == "" {
		pr = "us-east-1"
	}
	client := pricing.New(pricing.Options{Region: pr, BaseEndpoint: c.baseEndpoint(), Credentials: c.Credentials,
		HTTPClient: c.httpClient(), Retryer: c.retryer()})
	in := &pricing.GetProductsInput{ServiceCode: aws.String("AmazonEC2"), FormatVersion: aws.String("aws_v1"),
		Filters: productFilters(region)}
	p := pricing.NewGetProductsPaginator(client, in)
	for n := 1; p.HasMorePages(); n++ {
		if n > c.maxPages() {
			return gpucost.Errorf(gpucost.EUnavailable, "%s: more than %d pages: stopped", API, c.maxPages())
		}
		out, err := p.NextPage(ctx)
		if err != nil {
			return classify(API, err)
		}
		b.res.Pages++
		for i, item := range out.PriceList {
			if err := b.addProduct(item, n, i+1); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *Client) maxPages() int {
	if c.MaxPages > 0 {
		return c.MaxPages
	}
	return 500
}

// productFilters selects Linux, shared-tenancy, no-software, used-capacity GPU instances: the
// on-demand price a user pays for the bare instance.
func productFilters(region string) []pricingtypes.Filter {
	kv := [][2]string{{"instanceFamily", "GPU instance"}, {"operatingSystem", "Linux"}, {"tenancy", "Shared"},
		{"preInstalledSw", "NA"}, {"capacitystatus", "Used"}}
	if region != "" {
		kv = append(kv, [2]string{"regionCode", region})
	}
	out := make([]pricingtypes.Filter, len(kv))
	for i, f := range kv {
		out[i] = pricingtypes.Filter{Type: pricingtypes.FilterTypeTermMatch, Field: aws.String(f[0]), Value: aws.String(f[1])}
	}
	return out
}

// spot reads the current Linux/UNIX spot price of the region's GPU instance types per zone.
func (c *Client) spot(ctx context.Context, region string, b *book) error {
	types := b.instanceTypes(region)
	if len(types) == 0 {
		return nil
	}
	client := ec2.New(ec2.Options{Region: region, BaseEndpoint: c.baseEndpoint(), Credentials: c.Credentials,
		HTTPClient: c.httpClient(), Retryer: c.retryer()})
	in := &ec2.DescribeSpotPriceHistoryInput{ProductDescriptions: []string{"Linux/UNIX"},
		StartTime: aws.Time(b.res.AsOf), InstanceTypes: make([]ec2types.InstanceType, len(types))}
	for i, t := range types {
		in.InstanceTypes[i] = ec2types.InstanceType(t)
	}
	p := ec2.NewDescribeSpotPriceHistoryPaginator(client, in)
	for n := 1; p.HasMorePages(); n++ {
		if n > c.maxPages() {
			return gpucost.Errorf(gpucost.EUnavailable, "%s %s: more than %d pages: stopped", spotAPI, region, c.maxPages())
		}
		out, err := p.NextPage(ctx)
		if err != nil {
			return classify(spotAPI+" "+region, err)
		}
		b.res.Pages++
		for i, sp := range out.SpotPriceHistory {
			b.addSpot(region, sp, n, i+1)
		}
	}
	return nil
}

// classify gives an SDK error its code: throttling and server errors that outlived the
// retries, and unreachable endpoints, are EUnavailable; other refusals (bad credentials, an
// unknown region) are EInvalid.
func classify(api string, err error) error {
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		if code := re.HTTPStatusCode(); code != http.StatusTooManyRequests && code < 500 {
			return gpucost.Errorf(gpucost.EInvalid, "%s: %w", api, err)
		}
	}
	return gpucost.Errorf(gpucost.EUnavailable, "%s cannot be reached: %w", api, err)
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// trimZeros writes a decimal without trailing zeros, for messages.
func trimZeros(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

func slicesSortByZone(s []spotPrice) {
	slices.SortFunc(s, func(a, b spotPrice) int { return strings.Compare(a.zone, b.zone) })
}
