package awsprices

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	prices "github.com/gpucost/gpucost/pricing"
)

// Product is one PriceList entry of GetProducts (format aws_v1), the fields gpucost reads.
type Product struct {
	Product struct {
		ProductFamily string     `json:"productFamily"`
		Attributes    Attributes `json:"attributes"`
	} `json:"product"`
	Terms struct {
		OnDemand map[string]Term `json:"OnDemand"`
	} `json:"terms"`
}

// Attributes are the product attributes that describe an EC2 instance type.
type Attributes struct {
	InstanceType    string `json:"instanceType"`
	RegionCode      string `json:"regionCode"`
	GPU             string `json:"gpu"`       // GPUs per instance, "8"
	GPUMemory       string `json:"gpuMemory"` // "640 GB", "NA"
	OperatingSystem string `json:"operatingSystem"`
	Tenancy         string `json:"tenancy"`
	PreInstalledSw  string `json:"preInstalledSw"`
	CapacityStatus  string `json:"capacitystatus"`
}

// Term is one offer term: its price dimensions by rate code.
type Term struct {
	PriceDimensions map[string]Dimension `json:"priceDimensions"`
}

// Dimension is one rate of a term: "Hrs" at PricePerUnit["USD"], a decimal string such as
// "98.3200000000" that ParseMoney reads exactly.
type Dimension struct {
	Unit         string            `json:"unit"`
	PricePerUnit map[string]string `json:"pricePerUnit"`
}

// DecodeProduct reads one PriceList entry, a JSON document in a string. A malformed entry is an
// EInvalid error naming the field.
func DecodeProduct(s string) (*Product, error) {
	var p Product
	if err := json.Unmarshal([]byte(s), &p); err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "decode %s PriceList entry: %w", API, err)
	}
	if p.Product.Attributes.InstanceType == "" {
		return nil, gpucost.Errorf(gpucost.EInvalid, "decode %s PriceList entry: field product.attributes.instanceType is missing", API)
	}
	return &p, nil
}

// hourly returns the product's on-demand price per hour in USD, or the field to blame.
func (p *Product) hourly() (gpucost.Money, string, string) {
	for _, t := range sortedKeys(p.Terms.OnDemand) {
		dims := p.Terms.OnDemand[t].PriceDimensions
		for _, k := range sortedKeys(dims) {
			d := dims[k]
			if d.Unit != "Hrs" {
				continue
			}
			usd, ok := d.PricePerUnit["USD"]
			if !ok {
				return gpucost.Money{}, "pricePerUnit.USD", "no USD price"
			}
			m, err := gpucost.ParseMoney(usd, "USD")
			if err != nil || m.Nanos <= 0 {
				return gpucost.Money{}, "pricePerUnit.USD", "price " + trimZeros(usd) + " is not a positive decimal"
			}
			return m, "", ""
		}
	}
	return gpucost.Money{}, "terms.OnDemand", "no hourly on-demand price"
}

// book keeps the on-demand offers by region and instance type, and the spot prices by zone.
type book struct {
	res  *prices.Result
	gpus prices.GPUs
	od   map[string]map[string]gpucost.Offer // region → instance type → offer
	spot map[string]map[string]spotPrice     // region → "zone instance" → price
}

type spotPrice struct {
	zone, instance string
	price          gpucost.Money
	at             time.Time
}

func newBook(res *prices.Result, gpus prices.GPUs) *book {
	return &book{res: res, gpus: gpus, od: map[string]map[string]gpucost.Offer{}, spot: map[string]map[string]spotPrice{}}
}

func (b *book) skip(where string, n int, field, reason string) {
	b.res.Skipped = append(b.res.Skipped, gpucost.Skip{File: where, Line: n, Field: field, Reason: reason})
}

// addProduct files one PriceList entry, or records why it was left out. Only an entry that is
// not JSON stops the refresh: the service promised JSON.
func (b *book) addProduct(entry string, page, n int) error {
	where := fmt.Sprintf("%s page %d", API, page)
	p, err := DecodeProduct(entry)
	if err != nil {
		return fmt.Errorf("%s item %d: %w", where, n, err)
	}
	a := p.Product.Attributes
	gpus, err := strconv.ParseFloat(a.GPU, 64)
	switch {
	case a.OperatingSystem != "Linux" || a.Tenancy != "Shared" || a.PreInstalledSw != "NA" || a.CapacityStatus != "Used":
		b.skip(where, n, "product.attributes", "not a Linux shared-tenancy used-capacity price")
		return nil
	case err != nil || gpus <= 0:
		b.skip(where, n, "product.attributes.gpu", "no GPU ("+a.InstanceType+")")
		return nil
	case a.RegionCode == "":
		b.skip(where, n, "product.attributes.regionCode", "no region")
		return nil
	}
	model, _, ok := b.gpus(a.InstanceType)
	if !ok {
		b.skip(where, n, "product.attributes.instanceType", "GPU model of "+a.InstanceType+" not known to the catalog")
		return nil
	}
	price, field, reason := p.hourly()
	if reason != "" {
		b.skip(where, n, field, reason)
		return nil
	}
	if b.od[a.RegionCode] == nil {
		b.od[a.RegionCode] = map[string]gpucost.Offer{}
	}
	o := gpucost.Offer{Provider: "aws", Region: a.RegionCode, InstanceType: a.InstanceType, GPUModel: model,
		GPUCount: gpus, OnDemand: price, HasOnDemand: true, Source: b.res.Source, AsOf: b.res.AsOf}
	if s, ok := catalog.Spec(model); ok {
		o.GPUMemoryGB = s.MemoryGB
	}
	b.od[a.RegionCode][a.InstanceType] = o
	return nil
}

// SpotPrice is one spotPriceHistorySet item of DescribeSpotPriceHistory.
type SpotPrice struct {
	AvailabilityZone string    `xml:"availabilityZone"`
	InstanceType     string    `xml:"instanceType"`
	SpotPrice        string    `xml:"spotPrice"`
	Timestamp        time.Time `xml:"timestamp"`
}

// addSpot keeps the latest spot price of an instance type in a zone.
func (b *book) addSpot(region string, sp SpotPrice, page, n int) {
	where := fmt.Sprintf("%s %s page %d", spotAPI, region, page)
	if sp.AvailabilityZone == "" || sp.SpotPrice == "" || sp.Timestamp.IsZero() {
		b.skip(where, n, "spotPriceHistorySet", "no zone, price or timestamp")
		return
	}
	price, err := gpucost.ParseMoney(sp.SpotPrice, "USD")
	if err != nil || price.Nanos <= 0 {
		b.skip(where, n, "spotPrice", "price "+sp.SpotPrice+" is not a positive decimal")
		return
	}
	if b.spot[region] == nil {
		b.spot[region] = map[string]spotPrice{}
	}
	k := sp.AvailabilityZone + " " + sp.InstanceType
	if old, ok := b.spot[region][k]; ok && !sp.Timestamp.After(old.at) {
		return
	}
	b.spot[region][k] = spotPrice{zone: sp.AvailabilityZone, instance: sp.InstanceType, price: price, at: sp.Timestamp}
}

// regions returns the regions with on-demand GPU offers.
func (b *book) regions() []string { return sortedKeys(b.od) }

// instanceTypes returns the GPU instance types priced in region.
func (b *book) instanceTypes(region string) []string { return sortedKeys(b.od[region]) }

// offers returns per region and instance type one offer per zone with a spot price, or one
// regional offer with the on-demand price alone.
func (b *book) offers() []gpucost.Offer {
	var out []gpucost.Offer
	for _, region := range b.regions() {
		zones := map[string][]spotPrice{}
		for _, sp := range b.spot[region] {
			zones[sp.instance] = append(zones[sp.instance], sp)
		}
		for _, it := range b.instanceTypes(region) {
			o := b.od[region][it]
			if len(zones[it]) == 0 {
				out = append(out, o)
				continue
			}
			sps := zones[it]
			slicesSortByZone(sps)
			for _, sp := range sps {
				z := o
				z.Zone, z.SpotPrice, z.HasSpot = sp.zone, sp.price, true
				out = append(out, z)
			}
		}
	}
	return out
}
