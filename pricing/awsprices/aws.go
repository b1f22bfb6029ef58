package awsprices

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/awsrpc"
	prices "github.com/gpucost/gpucost/pricing"
)

// API is the name offers and errors give the source.
const API = "AWS Price List Query API"

// spotAPI names the spot prices' source in errors.
const spotAPI = "EC2 DescribeSpotPriceHistory"

// Client reads GPU instance prices from the AWS Price List Query API (GetProducts, on-demand
// Linux shared-tenancy prices) and EC2 spot price history (the current price per zone). Both
// APIs need SigV4-signed requests, which internal/awsrpc makes with the AWS SDK's signer.
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

func (c *Client) rpc(service, host, region string) *awsrpc.Client {
	attempts := 4
	if c.MaxAttempts > 0 {
		attempts = c.MaxAttempts
	}
	return &awsrpc.Client{Service: service, Host: host, Region: region, BaseURL: c.BaseURL, Credentials: c.Credentials,
		HTTP: c.HTTP, MaxAttempts: attempts, Backoff: c.Backoff}
}

// products pages through GetProducts for GPU instances in region ("" for all regions).
func (c *Client) products(ctx context.Context, region string, b *book) error {
	pr := c.PricingRegion
	if pr == "" {
		pr = "us-east-1"
	}
	api := c.rpc("pricing", "api.pricing", pr)
	in := getProducts{ServiceCode: "AmazonEC2", FormatVersion: "aws_v1", Filters: productFilters(region)}
	for n := 1; ; n++ {
		if n > c.maxPages() {
			return gpucost.Errorf(gpucost.EUnavailable, "%s: more than %d pages: stopped", API, c.maxPages())
		}
		var out struct {
			NextToken string
			PriceList []string
		}
		if err := api.JSON(ctx, "GetProducts", "AWSPriceListService.GetProducts", in, &out); err != nil {
			return classify(API, err)
		}
		b.res.Pages++
		for i, item := range out.PriceList {
			if err := b.addProduct(item, n, i+1); err != nil {
				return err
			}
		}
		if out.NextToken == "" || out.NextToken == in.NextToken {
			return nil
		}
		in.NextToken = out.NextToken
	}
}

// getProducts is a GetProducts request.
type getProducts struct {
	ServiceCode   string
	FormatVersion string
	Filters       []productFilter
	NextToken     string `json:",omitempty"`
}

type productFilter struct {
	Type, Field, Value string
}

func (c *Client) maxPages() int {
	if c.MaxPages > 0 {
		return c.MaxPages
	}
	return 500
}

// productFilters selects Linux, shared-tenancy, no-software, used-capacity GPU instances: the
// on-demand price a user pays for the bare instance.
func productFilters(region string) []productFilter {
	kv := [][2]string{{"instanceFamily", "GPU instance"}, {"operatingSystem", "Linux"}, {"tenancy", "Shared"},
		{"preInstalledSw", "NA"}, {"capacitystatus", "Used"}}
	if region != "" {
		kv = append(kv, [2]string{"regionCode", region})
	}
	out := make([]productFilter, len(kv))
	for i, f := range kv {
		out[i] = productFilter{Type: "TERM_MATCH", Field: f[0], Value: f[1]}
	}
	return out
}

// spot reads the current Linux/UNIX spot price of the region's GPU instance types per zone.
func (c *Client) spot(ctx context.Context, region string, b *book) error {
	types := b.instanceTypes(region)
	if len(types) == 0 {
		return nil
	}
	api := c.rpc("ec2", "ec2", region)
	params := url.Values{"ProductDescription.1": {"Linux/UNIX"}, "StartTime": {b.res.AsOf.UTC().Format(time.RFC3339)}}
	for i, t := range types {
		params.Set("InstanceType."+strconv.Itoa(i+1), t)
	}
	for n := 1; ; n++ {
		if n > c.maxPages() {
			return gpucost.Errorf(gpucost.EUnavailable, "%s %s: more than %d pages: stopped", spotAPI, region, c.maxPages())
		}
		var out struct {
			Prices    []SpotPrice `xml:"spotPriceHistorySet>item"`
			NextToken string      `xml:"nextToken"`
		}
		if err := api.Query(ctx, "DescribeSpotPriceHistory", "DescribeSpotPriceHistory", "2016-11-15", params, &out); err != nil {
			return classify(spotAPI+" "+region, err)
		}
		b.res.Pages++
		for i, sp := range out.Prices {
			b.addSpot(region, sp, n, i+1)
		}
		if out.NextToken == "" || out.NextToken == params.Get("NextToken") {
			return nil
		}
		params.Set("NextToken", out.NextToken)
	}
}

// classify gives an AWS error its code: throttling and server errors that outlived the
// retries, and unreachable endpoints, are EUnavailable; other refusals (bad credentials, an
// unknown region) are EInvalid.
func classify(api string, err error) error {
	var re *awsrpc.Error
	if errors.As(err, &re) && re.Status != 0 {
		if code := re.Status; code != http.StatusTooManyRequests && code < 500 {
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
