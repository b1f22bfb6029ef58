package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// azureFile holds bundled Azure N-series prices as a response of the Azure Retail Prices API
// (Items[] with armSkuName, armRegionName, retailPrice, skuName, productName, type,
// unitOfMeasure), so that pricing/azureprices reads it as it reads the API; each item adds
// gpucostSource, where its price was found, which readers of the API ignore.
const azureFile = "data/azure_retail_gpu.json"

// azureAsOf is the day the bundled Azure prices were collected.
var azureAsOf = time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)

const azureOrigin = "Azure Retail Prices API format, eastus Linux pay-as-you-go list prices collected 2026-11-27 from public quotes (each item's gpucostSource says which)"

const azureAsOfNote = "The bundled Azure prices' date is the day they were collected (2026-11-27); run gpucost catalog refresh --provider azure for the API's own."

// azureItem is the part of a Retail Prices API item the catalog reads.
type azureItem struct {
	CurrencyCode  string      `json:"currencyCode"`
	RetailPrice   json.Number `json:"retailPrice"`
	ArmRegionName string      `json:"armRegionName"`
	ArmSkuName    string      `json:"armSkuName"`
	SkuName       string      `json:"skuName"`
	MeterName     string      `json:"meterName"`
	ProductName   string      `json:"productName"`
	ServiceName   string      `json:"serviceName"`
	UnitOfMeasure string      `json:"unitOfMeasure"`
	Type          string      `json:"type"`
}

// ParseAzureRetail reads a Retail Prices API response of GPU VM sizes into offers, one per
// region and size: Linux pay-as-you-go meters give the on-demand price, Spot meters the spot
// price. Items that are not Linux hourly Consumption prices of a known N-series size (azureSizes)
// are left out by design; a bad price is an issue naming the item.
func ParseAzureRetail(body []byte, name string) (*Import, error) {
	var page struct {
		Items *[]azureItem `json:"Items"`
	}
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if err := d.Decode(&page); err != nil || page.Items == nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "read Azure Retail Prices response %s: want a JSON object with Items[] (%v)", name, err)
	}
	im := &Import{Name: name, Provider: "azure", Skipped: map[string]int{}}
	index := map[[2]string]int{}
	for i, it := range *page.Items {
		im.Rows++
		g, why := azureItemGPU(it)
		if why != "" {
			im.Skipped[why]++
			continue
		}
		price, err := gpucost.ParseMoney(it.RetailPrice.String(), "USD")
		if err != nil || price.Nanos <= 0 || it.CurrencyCode != "USD" {
			im.Issues = append(im.Issues, gpucost.CatalogIssue{Source: name, Line: i + 1, Field: "retailPrice",
				Value: it.RetailPrice.String() + " " + it.CurrencyCode, Reason: "not a positive USD amount: item left out"})
			continue
		}
		k := [2]string{it.ArmRegionName, it.ArmSkuName}
		j, ok := index[k]
		if !ok {
			j = len(im.Offers)
			index[k] = j
			im.Offers = append(im.Offers, gpucost.Offer{Provider: "azure", Region: it.ArmRegionName, InstanceType: it.ArmSkuName,
				GPUModel: g.Model, GPUCount: g.GPUs, GPUMemoryGB: specMemory(g.Model), Source: name})
			im.Lines = append(im.Lines, i+1)
		}
		o := &im.Offers[j]
		if strings.Contains(it.SkuName, "Spot") || strings.Contains(it.MeterName, "Spot") {
			o.SpotPrice, o.HasSpot = price, true
		} else {
			o.OnDemand, o.HasOnDemand = price, true
		}
	}
	for i, o := range im.Offers {
		if o.HasSpot && o.HasOnDemand && !o.SpotPrice.Less(o.OnDemand) {
			im.Issues = append(im.Issues, gpucost.CatalogIssue{Source: name, Line: im.Lines[i], Field: "retailPrice",
				Value: o.SpotPrice.Decimal(), Reason: fmt.Sprintf("%s in %s: spot is not below the on-demand price %s", o.InstanceType, o.Region, o.OnDemand.Decimal())})
		}
	}
	return im, nil
}

// azureItemGPU returns the GPUs of an item's VM size, or why the item is left out.
func azureItemGPU(it azureItem) (LineGPU, string) {
	switch {
	case it.ServiceName != "Virtual Machines" || it.Type != "Consumption" || it.UnitOfMeasure != "1 Hour":
		return LineGPU{}, "not an hourly pay-as-you-go VM price"
	case strings.HasSuffix(it.ProductName, " Windows"):
		return LineGPU{}, "Windows price (Linux prices only)"
	case strings.Contains(it.SkuName, "Low Priority"):
		return LineGPU{}, "low-priority price (spot prices are used)"
	}
	g, ok := azureSizes[strings.ToLower(strings.TrimPrefix(it.ArmSkuName, "Standard_"))]
	if !ok || it.ArmRegionName == "" {
		return LineGPU{}, "not a known N-series GPU VM size"
	}
	return g, ""
}

// specMemory returns the datasheet memory of model, 0 without a datasheet.
func specMemory(model string) float64 {
	if s, ok := lookupSpec(model); ok {
		return s.MemoryGB
	}
	return 0
}

// addBundledAzure adds the bundled Azure N-series offers.
func (c *Catalog) addBundledAzure() error {
	body, err := readBundled(azureFile)
	if err != nil {
		return gpucost.Errorf(gpucost.EInternal, "read bundled catalog %s: %w", azureFile, err)
	}
	im, err := ParseAzureRetail(body, azureFile)
	if err != nil {
		return gpucost.Errorf(gpucost.EInternal, "read bundled catalog: %w", err)
	}
	for i := range im.Offers {
		im.Offers[i].Source, im.Offers[i].AsOf = azureOrigin, azureAsOf
	}
	c.offers = append(c.offers, im.Offers...)
	c.issues = append(c.issues, im.Issues...)
	c.sources = append(c.sources, Source{Provider: "azure", File: azureFile, Origin: azureOrigin, AsOf: azureAsOf,
		AsOfNote: azureAsOfNote, Offers: len(im.Offers), Issues: len(im.Issues), Skipped: im.SkippedRows()})
	return nil
}
