package azureprices

import (
	"slices"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/pricing"
)

// book gathers the on-demand and spot meters of one VM size in one region into one offer.
type book struct {
	res   *pricing.Result
	byKey map[[2]string]*entry
	order [][2]string
}

type entry struct {
	offer          gpucost.Offer
	odDate, spDate string // effectiveStartDate of the price kept: a later one replaces it
}

func newBook(res *pricing.Result) *book {
	return &book{res: res, byKey: map[[2]string]*entry{}}
}

func (b *book) skip(where string, item int, field, reason string) {
	b.res.Skipped = append(b.res.Skipped, gpucost.Skip{File: where, Line: item, Field: field, Reason: reason})
}

// add files one item under its region and VM size, or records why it was left out.
func (b *book) add(it Item, where string, n int, gpus pricing.GPUs) {
	switch {
	case it.ServiceName != "Virtual Machines":
		b.skip(where, n, "serviceName", "not a virtual machine meter")
		return
	case it.Type != "Consumption":
		b.skip(where, n, "type", "not a pay-as-you-go price ("+it.Type+")")
		return
	case it.UnitOfMeasure != "1 Hour":
		b.skip(where, n, "unitOfMeasure", "not priced per hour ("+it.UnitOfMeasure+")")
		return
	case strings.HasSuffix(it.ProductName, " Windows"):
		b.skip(where, n, "productName", "Windows price (Linux prices only)")
		return
	case strings.Contains(it.SkuName, "Low Priority"):
		b.skip(where, n, "skuName", "low-priority price (spot prices are used)")
		return
	case it.ArmRegionName == "" || it.ArmSkuName == "":
		b.skip(where, n, "armSkuName", "no region or VM size")
		return
	}
	model, count, ok := gpus(it.ArmSkuName)
	if !ok {
		b.skip(where, n, "armSkuName", "not a GPU VM size")
		return
	}
	if it.CurrencyCode != "USD" {
		b.skip(where, n, "currencyCode", "price in "+it.CurrencyCode+", not USD")
		return
	}
	price, err := gpucost.ParseMoney(it.RetailPrice.String(), "USD")
	if err != nil || price.Nanos <= 0 {
		b.skip(where, n, "retailPrice", "price "+it.RetailPrice.String()+" is not a positive decimal")
		return
	}
	e := b.entry(it, model, count)
	if strings.Contains(it.SkuName, "Spot") || strings.Contains(it.MeterName, "Spot") {
		if !e.offer.HasSpot || it.EffectiveStartDate > e.spDate {
			e.offer.SpotPrice, e.offer.HasSpot, e.spDate = price, true, it.EffectiveStartDate
		}
		return
	}
	if !e.offer.HasOnDemand || it.EffectiveStartDate > e.odDate {
		e.offer.OnDemand, e.offer.HasOnDemand, e.odDate = price, true, it.EffectiveStartDate
	}
}

func (b *book) entry(it Item, model string, count float64) *entry {
	k := [2]string{it.ArmRegionName, it.ArmSkuName}
	if e, ok := b.byKey[k]; ok {
		return e
	}
	e := &entry{offer: gpucost.Offer{
		Provider: "azure", Region: it.ArmRegionName, InstanceType: it.ArmSkuName,
		GPUModel: model, GPUCount: count, GPUMemoryGB: gpuMemory(model),
		Source: b.res.Source, AsOf: b.res.AsOf,
	}}
	b.byKey[k] = e
	b.order = append(b.order, k)
	return e
}

// offers returns the offers in region, VM size order.
func (b *book) offers() []gpucost.Offer {
	keys := slices.Clone(b.order)
	slices.SortFunc(keys, func(x, y [2]string) int {
		if c := strings.Compare(x[0], y[0]); c != 0 {
			return c
		}
		return strings.Compare(x[1], y[1])
	})
	out := make([]gpucost.Offer, 0, len(keys))
	for _, k := range keys {
		out = append(out, b.byKey[k].offer)
	}
	return out
}
