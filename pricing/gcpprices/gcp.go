package gcpprices

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/pricing"
)

// API is the name offers and errors give the source.
const API = "Cloud Billing Catalog API"

// DefaultBaseURL is the API's public endpoint.
const DefaultBaseURL = "https://cloudbilling.googleapis.com"

// ComputeEngine is the service id of Compute Engine in the catalog.
const ComputeEngine = "6F81-5844-456A"

// Client reads Compute Engine GPU prices from the Cloud Billing Catalog API.
type Client struct {
	BaseURL  string       // DefaultBaseURL when empty
	APIKey   string       // a Google Cloud API key; the API refuses requests without one
	HTTP     *http.Client // http.DefaultClient when nil
	Retry    pricing.Retry
	Now      func() time.Time // when the prices are read; time.Now when nil
	MaxPages int              // pages read at most (default 200, 5,000 SKUs each)
	// Shapes are the GPU machine types (a2-highgpu-1g, g2-standard-4, …) to price from their
	// family's core, RAM and GPU SKUs; ShapesOf reads them from the bundled catalog. Without
	// them only N1-attachable GPUs are priced.
	Shapes map[string]Shape
}

// Page is one response of services.skus.list.
type Page struct {
	Skus          []SKU  `json:"skus"`
	NextPageToken string `json:"nextPageToken"`
}

// SKU is one priced item of a service.
type SKU struct {
	SkuID          string        `json:"skuId"`
	Description    string        `json:"description"`
	Category       Category      `json:"category"`
	ServiceRegions []string      `json:"serviceRegions"`
	PricingInfo    []PricingInfo `json:"pricingInfo"`
}

// Category classifies a SKU.
type Category struct {
	ResourceFamily string `json:"resourceFamily"` // "Compute"
	ResourceGroup  string `json:"resourceGroup"`  // "GPU"
	UsageType      string `json:"usageType"`      // "OnDemand", "Preemptible", "Commit1Yr", …
}

// PricingInfo is a SKU's price from EffectiveTime on.
type PricingInfo struct {
	EffectiveTime     string     `json:"effectiveTime"`
	PricingExpression Expression `json:"pricingExpression"`
}

// Expression is how usage is priced: tiered rates per usage unit.
type Expression struct {
	UsageUnit   string `json:"usageUnit"` // "h"
	TieredRates []Rate `json:"tieredRates"`
}

// Rate is the price of one usage unit from StartUsageAmount on.
type Rate struct {
	StartUsageAmount json.Number `json:"startUsageAmount"`
	UnitPrice        PriceMoney  `json:"unitPrice"`
}

// PriceMoney is google.type.Money: whole units (an int64, written as a JSON string) plus nanos.
type PriceMoney struct {
	CurrencyCode string `json:"currencyCode"`
	Units        Units  `json:"units"`
	Nanos        int32  `json:"nanos"`
}

// Units is google.type.Money's whole units: an int64, which proto3 JSON writes as a string
// ("12"); a bare number is accepted too.
type Units int64

// UnmarshalJSON reads "12" or 12.
func (u *Units) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("unitPrice.units: %s is not an integer", b)
	}
	*u = Units(n)
	return nil
}

// Money returns the amount exactly, or false if it does not fit gpucost.Money.
func (m PriceMoney) Money() (gpucost.Money, bool) {
	if m.Units > maxUnits || m.Units < -maxUnits || m.Nanos <= -1e9 || m.Nanos >= 1e9 {
		return gpucost.Money{}, false
	}
	return gpucost.Money{Nanos: int64(m.Units)*1e9 + int64(m.Nanos), Currency: m.CurrencyCode}, true
}

// maxUnits keeps units·10⁹ + nanos inside int64.
const maxUnits = math.MaxInt64/1_000_000_000 - 1

// Decode reads one response body; a body that is not the API's JSON is an EInvalid error
// naming the field.
func Decode(body []byte) (*Page, error) {
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	var p Page
	if err := d.Decode(&p); err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "decode %s response: %w", API, err)
	}
	return &p, nil
}

// Fetch reads the on-demand and spot (Preemptible) prices of Compute Engine GPUs and of the
// cores and memory of the GPU machine families in c.Shapes, following nextPageToken, and returns
// offers in regions (every region when empty).
func (c *Client) Fetch(ctx context.Context, regions []string) (*pricing.Result, error) {
	res := pricing.NewResult("gcp", API, c.Now)
	b := newBook(res, regions, c.Shapes)
	maxPages := c.MaxPages
	if maxPages <= 0 {
		maxPages = 200
	}
	token := ""
	for n := 1; ; n++ {
		if n > maxPages {
			return nil, gpucost.Errorf(gpucost.EUnavailable, "%s: more than %d pages: stopped", API, maxPages)
		}
		u, err := c.pageURL(token)
		if err != nil {
			return nil, err
		}
		body, err := pricing.Get(ctx, c.HTTP, API, u, c.Retry)
		if err != nil {
			return nil, err
		}
		p, err := Decode(body)
		if err != nil {
			return nil, fmt.Errorf("page %d: %w", n, err)
		}
		res.Pages++
		where := fmt.Sprintf("%s page %d", API, n)
		for i, s := range p.Skus {
			b.add(s, where, i+1)
		}
		if p.NextPageToken == "" {
			break
		}
		token = p.NextPageToken
	}
	res.Offers = b.offers()
	return res, nil
}

// pageURL returns /v1/services/6F81-5844-456A/skus with the key, USD and the page token.
func (c *Client) pageURL(token string) (string, error) {
	s := c.BaseURL
	if s == "" {
		s = DefaultBaseURL
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", gpucost.Errorf(gpucost.EInvalid, "%s base URL %q: want scheme://host", API, s)
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/services/" + ComputeEngine + "/skus"
	q := url.Values{"currencyCode": {"USD"}}
	if c.APIKey != "" {
		q.Set("key", c.APIKey)
	}
	if token != "" {
		q.Set("pageToken", token)
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// parseRate returns the price of the first tier (startUsageAmount 0) of the latest pricing,
// which must be per unit ("h", or "GiBy.h" for memory).
func parseRate(s SKU, unit string) (gpucost.Money, string, string) {
	if len(s.PricingInfo) == 0 {
		return gpucost.Money{}, "pricingInfo", "no pricing"
	}
	e := s.PricingInfo[len(s.PricingInfo)-1].PricingExpression
	if e.UsageUnit != unit {
		return gpucost.Money{}, "pricingExpression.usageUnit", "not priced per " + unit + " (" + e.UsageUnit + ")"
	}
	for _, r := range e.TieredRates {
		if f, err := strconv.ParseFloat(r.StartUsageAmount.String(), 64); err == nil && f != 0 {
			continue
		}
		if r.UnitPrice.CurrencyCode != "USD" {
			return gpucost.Money{}, "unitPrice.currencyCode", "price in " + r.UnitPrice.CurrencyCode + ", not USD"
		}
		m, ok := r.UnitPrice.Money()
		if !ok || m.Nanos <= 0 {
			return gpucost.Money{}, "unitPrice", fmt.Sprintf("price %d units %d nanos is not a positive amount", r.UnitPrice.Units, r.UnitPrice.Nanos)
		}
		return m, "", ""
	}
	return gpucost.Money{}, "tieredRates", "no tier starting at 0"
}
