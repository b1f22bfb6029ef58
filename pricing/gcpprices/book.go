package gcpprices

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/pricing"
)

// n1Counts lists the GPUs that attach to N1 machine types and how many an N1 VM can take, from
// Compute Engine's "GPU platforms" page. Their SKUs price the GPUs alone; the offers are named
// as the bundled catalog names them, "n1+T4:4", with the N1 host billed on top. GPUs of the
// A2, A3, A4 and G2 machine families are priced with their host (family.go).
var n1Counts = map[string][]int64{
	"T4": {1, 2, 4}, "V100-16GB": {1, 2, 4, 8}, "P100": {1, 2, 4}, "P4": {1, 2, 4},
}

// book gathers the on-demand and Preemptible prices of one GPU in one region.
type book struct {
	res     *pricing.Result
	regions map[string]bool // nil: every region
	byKey   map[[2]string]*gpucost.Offer
	parts   map[part]gpucost.Money // core, RAM and GPU prices of the GPU machine families
	shapes  map[string]Shape       // machine types to price from parts
}

func newBook(res *pricing.Result, regions []string, shapes map[string]Shape) *book {
	b := &book{res: res, byKey: map[[2]string]*gpucost.Offer{}, parts: map[part]gpucost.Money{}, shapes: shapes}
	if len(regions) > 0 {
		b.regions = map[string]bool{}
		for _, r := range regions {
			b.regions[r] = true
		}
	}
	return b
}

func (b *book) skip(where string, n int, field, reason string) {
	b.res.Skipped = append(b.res.Skipped, gpucost.Skip{File: where, Line: n, Field: field, Reason: reason})
}

// add files one SKU's price under each of its regions, or records why it was left out: an
// N1-attachable GPU's price, or a core, RAM or GPU price of a GPU machine family.
func (b *book) add(s SKU, where string, n int) {
	group := s.Category.ResourceGroup
	if s.Category.ResourceFamily != "Compute" || group != "GPU" && group != "CPU" && group != "RAM" {
		b.skip(where, n, "category.resourceGroup", "not a GPU SKU")
		return
	}
	spot := false
	switch s.Category.UsageType {
	case "OnDemand":
	case "Preemptible":
		spot = true
	default:
		b.skip(where, n, "category.usageType", "not an on-demand or spot price ("+s.Category.UsageType+")")
		return
	}
	if group != "GPU" {
		b.addFamilyPart(s, where, n, spot)
		return
	}
	model, ok := SKUModel(s.Description)
	if !ok {
		b.skip(where, n, "description", "GPU model not known to the catalog")
		return
	}
	if _, ok := n1Counts[model]; !ok {
		b.addFamilyGPU(s, where, n, spot)
		return
	}
	price, ok := b.rate(s, "h", where, n)
	if !ok {
		return
	}
	for _, region := range s.ServiceRegions {
		if b.regions != nil && !b.regions[region] {
			continue
		}
		o := b.offer(region, model)
		if spot {
			o.SpotPrice, o.HasSpot = price, true
		} else {
			o.OnDemand, o.HasOnDemand = price, true
		}
	}
}

// rate returns the SKU's price per unit, or records why it has none.
func (b *book) rate(s SKU, unit, where string, n int) (gpucost.Money, bool) {
	price, field, reason := parseRate(s, unit)
	if reason == "" && price.Nanos > math.MaxInt64/8 {
		field, reason = "unitPrice", "price out of range"
	}
	if reason != "" {
		b.skip(where, n, field, reason)
		return gpucost.Money{}, false
	}
	return price, true
}

// addFamilyPart files the vCPU (per hour) or memory (per GiB-hour) price of a GPU machine family.
func (b *book) addFamilyPart(s SKU, where string, n int, spot bool) {
	fam, kind, ok := familyPart(s.Description)
	if !ok || (kind == "core") != (s.Category.ResourceGroup == "CPU") {
		b.skip(where, n, "description", "not the core or RAM of a GPU machine family")
		return
	}
	unit := "h"
	if kind == "ram" {
		unit = "GiBy.h"
	}
	if price, ok := b.rate(s, unit, where, n); ok {
		b.addPart(s, part{family: fam, kind: kind, spot: spot}, price, where, n)
	}
}

// addFamilyGPU files the price of one GPU of a machine family (A100, H100, B200, L4).
func (b *book) addFamilyGPU(s SKU, where string, n int, spot bool) {
	model, ok := familyGPU(s.Description)
	if !ok {
		b.skip(where, n, "description", "GPU SKU of a machine family not priced as its machine types' GPU")
		return
	}
	if price, ok := b.rate(s, "h", where, n); ok {
		b.addPart(s, part{kind: model, spot: spot}, price, where, n)
	}
}

// addPart files p's price in each of the SKU's regions; a second price for the same part and
// region is skipped, the first kept.
func (b *book) addPart(s SKU, p part, price gpucost.Money, where string, n int) {
	for _, region := range s.ServiceRegions {
		if b.regions != nil && !b.regions[region] {
			continue
		}
		p.region = region
		if _, dup := b.parts[p]; dup {
			b.skip(where, n, "serviceRegions", "a second price for the same part in "+region+": the first kept")
			continue
		}
		b.parts[p] = price
	}
}

func (b *book) offer(region, model string) *gpucost.Offer {
	k := [2]string{region, model}
	if o, ok := b.byKey[k]; ok {
		return o
	}
	o := &gpucost.Offer{Provider: "gcp", Region: region, GPUModel: model, Source: b.res.Source, AsOf: b.res.AsOf}
	if s, ok := catalog.Spec(model); ok {
		o.GPUMemoryGB = s.MemoryGB
	}
	b.byKey[k] = o
	return o
}

// offers returns one offer per region, GPU and N1 GPU count, priced count × the GPU's price,
// then the machine types of the GPU families priced from their parts.
func (b *book) offers() []gpucost.Offer {
	keys := make([][2]string, 0, len(b.byKey))
	for k := range b.byKey {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y [2]string) int {
		if c := strings.Compare(x[0], y[0]); c != 0 {
			return c
		}
		return strings.Compare(x[1], y[1])
	})
	var out []gpucost.Offer
	for _, k := range keys {
		one := *b.byKey[k]
		for _, n := range n1Counts[one.GPUModel] {
			o := one
			o.InstanceType = fmt.Sprintf("n1+%s:%d", shortName(o.GPUModel), n)
			o.GPUCount = float64(n)
			o.OnDemand = gpucost.Money{Nanos: one.OnDemand.Nanos * n, Currency: one.OnDemand.Currency}
			o.SpotPrice = gpucost.Money{Nanos: one.SpotPrice.Nanos * n, Currency: one.SpotPrice.Currency}
			out = append(out, o)
		}
	}
	return append(out, b.machineOffers()...)
}

// shortName is the accelerator name SkyPilot's GCP catalog uses: "V100" for the 16 GB V100.
func shortName(model string) string { return strings.TrimSuffix(model, "-16GB") }

// SKUModel reads the GPU model from a SKU description as Compute Engine writes them: "Nvidia
// Tesla T4 GPU running in Americas", "Spot Preemptible Nvidia Tesla V100 GPU running in EMEA",
// "Nvidia L4 GPU running in Americas". The words between "Nvidia" and "GPU" name the model.
func SKUModel(desc string) (string, bool) {
	lower := strings.ToLower(desc)
	i := strings.Index(lower, "nvidia ")
	if i < 0 {
		return "", false
	}
	j := strings.Index(lower[i:], " gpu")
	if j < 0 {
		return "", false
	}
	words := strings.Fields(desc[i+len("nvidia ") : i+j])
	for n := len(words); n > 0; n-- {
		if model, ok := catalog.Normalize(strings.Join(words[:n], " ")); ok {
			return model, true
		}
	}
	return "", false
}
