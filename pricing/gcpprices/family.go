package gcpprices

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
)

// Shape is what a machine type of a GPU family has: whole vCPUs, memory in GiB and GPUs of one
// model. The refresh takes shapes from the caller (the bundled catalog) because the SKUs price
// a vCPU, a GiB and a GPU, never a machine type.
type Shape struct {
	VCPUs     int64
	MemoryGiB float64
	GPUs      int64
	GPUModel  string // canonical gpucost.GPUModel.Name
}

// familyOf maps a machine type's prefix to the family whose core and RAM SKUs price it, from
// Compute Engine's "GPU machine types" page: A2 Standard and Ultra bill "A2 Instance Core/Ram",
// A3 High "A3 Instance Core/Ram", A4 "A4 Instance Core/Ram", G2 "G2 Instance Core/Ram". A3
// Mega, Ultra and Edge have GPU SKUs of their own ("H100 80GB Mega", …) and stay with the
// bundled catalog.
var familyOf = map[string]string{
	"a2-highgpu-": "A2", "a2-megagpu-": "A2", "a2-ultragpu-": "A2",
	"a3-highgpu-": "A3", "a4-highgpu-": "A4", "g2-standard-": "G2",
}

// machineFamily returns the family of a machine type, or false if it is not one priced here.
func machineFamily(instance string) (string, bool) {
	for prefix, fam := range familyOf {
		if strings.HasPrefix(instance, prefix) {
			return fam, true
		}
	}
	return "", false
}

// ShapesOf returns the shapes of the GCP GPU machine types among offers (the bundled catalog's),
// keeping the first offer of each machine type whose vCPUs and GPU count are whole numbers.
func ShapesOf(offers []gpucost.Offer) map[string]Shape {
	out := map[string]Shape{}
	for _, o := range offers {
		if o.Provider != "gcp" || o.VCPUs <= 0 || o.MemoryGiB <= 0 || o.GPUCount < 1 || o.GPUModel == "" {
			continue
		}
		if _, ok := machineFamily(o.InstanceType); !ok {
			continue
		}
		if _, seen := out[o.InstanceType]; seen || o.VCPUs != math.Trunc(o.VCPUs) || o.GPUCount != math.Trunc(o.GPUCount) {
			continue
		}
		out[o.InstanceType] = Shape{VCPUs: int64(o.VCPUs), MemoryGiB: o.MemoryGiB, GPUs: int64(o.GPUCount), GPUModel: o.GPUModel}
	}
	return out
}

// part names one priced component of a machine type in one region: a family's vCPU ("core")
// or GiB of memory ("ram"), or one GPU of a model (family empty).
type part struct {
	region, family, kind string
	spot                 bool
}

// familyPart reads "A2 Instance Core running in Americas", "Spot Preemptible G2 Instance Ram
// running in Virginia": the family and "core" or "ram". Other words ("Custom", "for DWS") do
// not match, so no other SKU is taken for a predefined machine type's price.
func familyPart(desc string) (family, kind string, ok bool) {
	d := strings.TrimPrefix(strings.TrimPrefix(desc, "Spot "), "Preemptible ")
	fam, rest, ok := strings.Cut(d, " Instance ")
	if !ok || !slices.Contains([]string{"A2", "A3", "A4", "G2"}, fam) {
		return "", "", false
	}
	switch {
	case strings.HasPrefix(rest, "Core running in "):
		return fam, "core", true
	case strings.HasPrefix(rest, "Ram running in "):
		return fam, "ram", true
	}
	return "", "", false
}

// familyGPU reads the GPU model of a machine family's GPU SKU: "Nvidia Tesla A100 GPU running
// in Americas", "Nvidia L4 GPU attached to Spot Preemptible VMs running in Virginia". All the
// words between "Nvidia" and "GPU" must name the model, so "H100 80GB Mega" is not an H100, and
// the SKU must say "running in", so DWS and commitment SKUs are not taken.
func familyGPU(desc string) (string, bool) {
	d := strings.TrimPrefix(strings.TrimPrefix(desc, "Spot "), "Preemptible ")
	name, rest, ok := strings.Cut(d, " GPU ")
	if !ok || !strings.HasPrefix(strings.ToLower(name), "nvidia ") {
		return "", false
	}
	if !strings.HasPrefix(rest, "running in ") && !strings.HasPrefix(rest, "attached to Spot Preemptible VMs running in ") {
		return "", false
	}
	model, ok := SKUModel(desc)
	if !ok {
		return "", false
	}
	if exact, ok := catalog.Normalize(name[len("nvidia "):]); !ok || exact != model {
		return "", false
	}
	return model, true
}

// machineOffers prices each shape in each region where its family has prices: on demand when
// the core, RAM and GPU SKUs all have one there, spot likewise; a region missing one is skipped
// with the component it lacks.
func (b *book) machineOffers() []gpucost.Offer {
	regions := map[string]bool{}
	families := map[[2]string]bool{} // region, family with at least one price
	for p := range b.parts {
		regions[p.region] = true
		families[[2]string{p.region, p.family}] = true
	}
	names := slices.Sorted(maps.Keys(b.shapes))
	var out []gpucost.Offer
	for _, region := range slices.Sorted(maps.Keys(regions)) {
		for _, name := range names {
			fam, ok := machineFamily(name)
			sh := b.shapes[name]
			if !ok || !families[[2]string{region, fam}] {
				continue
			}
			o, ok := b.machineOffer(region, name, fam, sh)
			if ok {
				out = append(out, o)
			}
		}
	}
	return out
}

// machineOffer prices one machine type in one region, or records why it cannot.
func (b *book) machineOffer(region, name, fam string, sh Shape) (gpucost.Offer, bool) {
	where := API + " machine types"
	field := name + " in " + region
	od, missing, err := b.machinePrice(region, fam, sh, false)
	if err != "" {
		b.skip(where, 0, field, err)
		return gpucost.Offer{}, false
	}
	if missing != "" {
		b.skip(where, 0, field, "machine type not priced: no on-demand "+missing+" price in the region")
		return gpucost.Offer{}, false
	}
	o := gpucost.Offer{
		Provider: "gcp", Region: region, InstanceType: name, GPUModel: sh.GPUModel, GPUCount: float64(sh.GPUs),
		VCPUs: float64(sh.VCPUs), MemoryGiB: sh.MemoryGiB, OnDemand: od, HasOnDemand: true,
		Source: b.res.Source, AsOf: b.res.AsOf,
	}
	if s, ok := catalog.Spec(sh.GPUModel); ok {
		o.GPUMemoryGB = s.MemoryGB
	}
	if spot, missing, err := b.machinePrice(region, fam, sh, true); err == "" && missing == "" {
		o.SpotPrice, o.HasSpot = spot, true
	}
	return o, true
}

// machinePrice returns vCPUs × core + memory × RAM + GPUs × GPU price, exact to the nano (the
// memory term rounds half up; see roundMemory), or the component with no price ("A2 Instance
// Ram"), or why the sum cannot be formed.
func (b *book) machinePrice(region, fam string, sh Shape, spot bool) (gpucost.Money, string, string) {
	core, okc := b.parts[part{region, fam, "core", spot}]
	ram, okr := b.parts[part{region, fam, "ram", spot}]
	gpu, okg := b.parts[part{region, "", sh.GPUModel, spot}]
	switch {
	case !okc:
		return gpucost.Money{}, fam + " Instance Core", ""
	case !okr:
		return gpucost.Money{}, fam + " Instance Ram", ""
	case !okg:
		return gpucost.Money{}, sh.GPUModel + " GPU", ""
	}
	mem, ok := memoryNanos(ram.Nanos, sh.MemoryGiB)
	if !ok {
		return gpucost.Money{}, "", fmt.Sprintf("memory %v GiB is not a whole number of MiB, or the price overflows", sh.MemoryGiB)
	}
	const limit = math.MaxInt64 / 4
	if sh.VCPUs <= 0 || sh.GPUs <= 0 || core.Nanos > limit/sh.VCPUs || gpu.Nanos > limit/sh.GPUs || mem > limit {
		return gpucost.Money{}, "", "machine type price out of range"
	}
	return gpucost.Money{Nanos: core.Nanos*sh.VCPUs + mem + gpu.Nanos*sh.GPUs, Currency: "USD"}, "", ""
}

// memoryNanos returns perGiB × gib in nanos. gib is taken as a whole number of MiB (every GCP
// machine type's memory is), so the product is perGiB × MiB / 1024 in integers, rounded half
// up to the nano; false when gib is not whole MiB or the product overflows.
func memoryNanos(perGiB int64, gib float64) (int64, bool) {
	mib := gib * 1024
	if gib <= 0 || mib != math.Trunc(mib) || mib > 1<<40 {
		return 0, false
	}
	m := int64(mib)
	if perGiB <= 0 || perGiB > math.MaxInt64/4/m {
		return 0, false
	}
	return (perGiB*m + 512) / 1024, true
}
