package azureprices

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/pricing"
)

// API is the name offers and errors give the source.
const API = "Azure Retail Prices API"

// DefaultBaseURL is the API's public endpoint; it needs no credentials.
const DefaultBaseURL = "https://prices.azure.com"

// Client reads GPU VM prices from the Azure Retail Prices API.
type Client struct {
	BaseURL  string       // DefaultBaseURL when empty; NextPageLink is followed on this host
	HTTP     *http.Client // http.DefaultClient when nil
	GPUs     pricing.GPUs // which GPUs a VM size has; required
	Retry    pricing.Retry
	Now      func() time.Time // when the prices are read; time.Now when nil
	MaxPages int              // pages read at most per region (default 2,000, 100 items each)
}

// Page is one response of the API.
type Page struct {
	Items        []Item  `json:"Items"`
	NextPageLink *string `json:"NextPageLink"`
	Count        int     `json:"Count"`
}

// Item is one meter's price as the API gives it.
type Item struct {
	CurrencyCode       string      `json:"currencyCode"`
	RetailPrice        json.Number `json:"retailPrice"`
	UnitPrice          json.Number `json:"unitPrice"`
	ArmRegionName      string      `json:"armRegionName"`
	EffectiveStartDate string      `json:"effectiveStartDate"`
	MeterName          string      `json:"meterName"`
	ProductName        string      `json:"productName"`
	SkuName            string      `json:"skuName"`
	ServiceName        string      `json:"serviceName"`
	UnitOfMeasure      string      `json:"unitOfMeasure"`
	Type               string      `json:"type"`
	ArmSkuName         string      `json:"armSkuName"`
}

// Decode reads one response body. A body that is not the API's JSON, lacks Items or has a
// price that is not a number is an EInvalid error naming the field.
func Decode(body []byte) (*Page, error) {
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	var raw struct {
		Items        *[]rawItem `json:"Items"`
		NextPageLink *string    `json:"NextPageLink"`
		Count        int        `json:"Count"`
	}
	if err := d.Decode(&raw); err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "decode %s response: %w", API, err)
	}
	if raw.Items == nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "decode %s response: field Items is missing", API)
	}
	p := &Page{NextPageLink: raw.NextPageLink, Count: raw.Count, Items: make([]Item, len(*raw.Items))}
	for i, r := range *raw.Items {
		it := r.Item
		for _, f := range []struct {
			name string
			v    any
			dst  *json.Number
		}{{"retailPrice", r.RetailPrice, &it.RetailPrice}, {"unitPrice", r.UnitPrice, &it.UnitPrice}} {
			n, ok := f.v.(json.Number)
			if !ok && f.v != nil {
				return nil, gpucost.Errorf(gpucost.EInvalid, "decode %s response: Items[%d].%s: %v is not a number", API, i, f.name, f.v)
			}
			*f.dst = n
		}
		p.Items[i] = it
	}
	return p, nil
}

// rawItem is an Item whose prices are checked after decoding, so an error names the field.
type rawItem struct {
	Item
	RetailPrice any `json:"retailPrice"`
	UnitPrice   any `json:"unitPrice"`
}

// Fetch reads the Linux pay-as-you-go and spot prices of GPU VM sizes in regions (every region
// when empty), following NextPageLink, and returns one offer per region and VM size.
func (c *Client) Fetch(ctx context.Context, regions []string) (*pricing.Result, error) {
	if c.GPUs == nil {
		return nil, gpucost.Errorf(gpucost.EInternal, "%s client: GPUs is not set", API)
	}
	res := pricing.NewResult("azure", API, c.Now)
	b := newBook(res)
	if len(regions) == 0 {
		regions = []string{""}
	}
	for _, region := range regions {
		if err := c.fetchRegion(ctx, region, b); err != nil {
			return nil, err
		}
	}
	res.Offers = b.offers()
	return res, nil
}

func (c *Client) fetchRegion(ctx context.Context, region string, b *book) error {
	next, err := c.firstURL(region)
	if err != nil {
		return err
	}
	maxPages := c.MaxPages
	if maxPages <= 0 {
		maxPages = 2000
	}
	for n := 1; next != ""; n++ {
		if n > maxPages {
			return gpucost.Errorf(gpucost.EUnavailable, "%s: more than %d pages for region %q: stopped", API, maxPages, region)
		}
		body, err := pricing.Get(ctx, c.HTTP, API, next, c.Retry)
		if err != nil {
			return err
		}
		p, err := Decode(body)
		if err != nil {
			return fmt.Errorf("page %d (%s): %w", n, next, err)
		}
		b.res.Pages++
		where := fmt.Sprintf("%s region %s page %d", API, orAll(region), n)
		for i, it := range p.Items {
			b.add(it, where, i+1, c.GPUs)
		}
		next = ""
		if p.NextPageLink != nil && *p.NextPageLink != "" {
			if next, err = c.onBase(*p.NextPageLink); err != nil {
				return err
			}
		}
	}
	return nil
}

func orAll(region string) string {
	if region == "" {
		return "(all)"
	}
	return region
}

func (c *Client) base() (*url.URL, error) {
	s := c.BaseURL
	if s == "" {
		s = DefaultBaseURL
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, gpucost.Errorf(gpucost.EInvalid, "%s base URL %q: want scheme://host", API, s)
	}
	return u, nil
}

// firstURL returns the query for region: Linux and Windows VM meters at pay-as-you-go prices
// (the filter names are the documented ones; values are case-sensitive).
func (c *Client) firstURL(region string) (string, error) {
	u, err := c.base()
	if err != nil {
		return "", err
	}
	filter := "serviceName eq 'Virtual Machines' and priceType eq 'Consumption'"
	if region != "" {
		filter += " and armRegionName eq '" + strings.ReplaceAll(region, "'", "''") + "'"
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/api/retail/prices"
	u.RawQuery = "currencyCode=%27USD%27&%24filter=" + url.QueryEscape(filter)
	return u.String(), nil
}

// onBase moves a NextPageLink onto the client's base URL, so a mirror or test server keeps
// answering every page.
func (c *Client) onBase(link string) (string, error) {
	base, err := c.base()
	if err != nil {
		return "", err
	}
	u, err := url.Parse(link)
	if err != nil {
		return "", gpucost.Errorf(gpucost.EInvalid, "%s: field NextPageLink %q is not a URL", API, link)
	}
	u.Scheme, u.Host = base.Scheme, base.Host
	return u.String(), nil
}

// gpuMemory returns the datasheet memory of model, 0 if the catalog has no datasheet.
func gpuMemory(model string) float64 {
	if s, ok := catalog.Spec(model); ok {
		return s.MemoryGB
	}
	return 0
}
