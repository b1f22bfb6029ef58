package recommend

import (
	"fmt"
	"strings"

	"github.com/gpucost/gpucost"
)

// retype is a cheaper GPU type a machine's work fits, and the figures behind the fit.
type retype struct {
	to             gpucost.Offer
	used           int     // GPUs the work uses
	peakGB, needGB float64 // VRAM peak per GPU, and with headroom
	demand, have   float64 // dense bf16/fp16 TFLOPS the work needs (with headroom) and the offer has
	fromTF, toTF   float64 // per GPU, now and after
}

// findCheaperTypes moves each on-demand machine to the cheapest instance of another GPU model,
// on the same provider and in the same region (any region of the provider when nothing fits there
// and the work is movable), whose GPUs hold the VRAM peak with headroom and whose compute covers
// the p95 demand with headroom. It runs after the other right-sizing levers, on the machines as
// they left them; committed machines and serving pools already reduced stay.
func findCheaperTypes(e *engine) []step {
	fits := map[string]retype{}
	memo := map[string]retypeResult{}
	var steps []step
	for _, g := range groupBy(e.fleet, func(r *Resource) (string, bool) {
		t, ok := e.cheaperType(r, memo)
		if !ok {
			return "", false
		}
		k := strings.Join([]string{r.Provider, r.Region, r.InstanceType, r.Kind, r.Namespace,
			t.to.Region, t.to.InstanceType, fmt.Sprint(t.used)}, "|")
		if prev, seen := fits[k]; seen {
			// Machines of one group may differ in load: the evidence shows the largest.
			t.peakGB, t.needGB = max(t.peakGB, prev.peakGB), max(t.needGB, prev.needGB)
			t.demand = max(t.demand, prev.demand)
		}
		fits[k] = t
		return k, true
	}) {
		steps = append(steps, e.retypeStep(g, fits[g.key]))
	}
	return steps
}

type retypeResult struct {
	t  retype
	ok bool
}

// cheaperType returns the cheapest instance of another GPU type r's work fits that costs less per
// hour than r; memo keeps answers for machines with the same figures.
func (e *engine) cheaperType(r *Resource, memo map[string]retypeResult) (retype, bool) {
	if pricing(r) != gpucost.OnDemand || r.Hourly.Nanos <= 0 || len(r.Usage) == 0 ||
		r.Kind == KindServing && e.resized[r.ID] {
		return retype{}, false
	}
	used, peak := usedGPUs(r, e.opt.UsedVRAMGB)
	var p95 float64
	for _, u := range r.Usage {
		if u.VRAMPeakGB >= e.opt.UsedVRAMGB || u.MeanUtil >= 1 {
			p95 = max(p95, u.P95Util)
		}
	}
	k := fmt.Sprint(r.Provider, "|", r.Region, "|", r.InstanceType, "|", r.GPUModel, "|", r.Hourly.Nanos, "|",
		used, "|", peak, "|", p95, "|", r.Movable, "|", r.Kind == KindServing)
	if m, ok := memo[k]; ok {
		return m.t, m.ok
	}
	t, ok := e.fitType(r, used, peak, p95)
	memo[k] = retypeResult{t, ok}
	return t, ok
}

func (e *engine) fitType(r *Resource, used int, peak, p95 float64) (retype, bool) {
	spec, ok := e.prices.Spec(r.GPUModel)
	if !ok || used == 0 || tflops(spec) <= 0 {
		return retype{}, false // without the datasheet the compute demand is unknown
	}
	margin := 1 + e.opt.Headroom
	if r.Kind == KindServing {
		margin = max(margin, 1/e.opt.ServingTarget)
	}
	t := retype{used: used, peakGB: peak, needGB: peak * (1 + e.opt.Headroom), fromTF: tflops(spec)}
	t.demand = p95 / 100 * t.fromTF * float64(used) * margin
	host, _ := e.prices.Cheapest(PriceQuery{Model: r.GPUModel, Provider: r.Provider, Region: r.Region, InstanceType: r.InstanceType})
	found := false
	for _, region := range []string{r.Region, ""} {
		if found || region == "" && !r.Movable {
			break
		}
		for _, o := range e.prices.Offers(r.Provider, region) {
			s, ok := e.prices.Spec(o.GPUModel)
			if !ok || modelKey(s.Name) == modelKey(spec.Name) || !o.HasOnDemand || o.OnDemand.Nanos <= 0 || !o.OnDemand.Less(r.Hourly) ||
				int(o.GPUCount) < used || float64(int(o.GPUCount)) != o.GPUCount || !hostFits(o, host) {
				continue
			}
			mem := o.GPUMemoryGB
			if mem == 0 {
				mem = s.MemoryGB
			}
			if mem < t.needGB || tflops(s)*o.GPUCount < t.demand {
				continue
			}
			if !found || betterOffer(o, t.to, o.OnDemand, false) {
				t.to, t.toTF, t.have, found = o, tflops(s), tflops(s)*o.GPUCount, true
			}
		}
	}
	return t, found
}

// tflops is a GPU's dense bf16 tensor TFLOPS, or fp16 where it has no bf16 (V100, T4).
func tflops(s gpucost.GPUModel) float64 {
	if s.BF16TFLOPS > 0 {
		return s.BF16TFLOPS
	}
	return s.FP16TFLOPS
}

// hostFits is true when the offer has at least the vCPUs and host memory of the machine's
// instance, where both are known: a cheaper GPU must not starve the CPU side of the work.
func hostFits(o, host gpucost.Offer) bool {
	return (host.VCPUs == 0 || o.VCPUs == 0 || o.VCPUs >= host.VCPUs) &&
		(host.MemoryGiB == 0 || o.MemoryGiB == 0 || o.MemoryGiB >= host.MemoryGiB)
}

func (e *engine) retypeStep(g *group, t retype) step {
	r0, o := g.rs[0], t.to
	f := float64(o.OnDemand.Nanos) / float64(r0.Hourly.Nanos)
	saving := gpucost.USD(0)
	for _, r := range g.rs {
		saving = saving.Add(r.Monthly.Sub(scale(r.Monthly, f)))
	}
	where := ""
	if !strings.EqualFold(o.Region, r0.Region) {
		where = " in " + o.Region
	}
	rec := gpucost.Recommendation{Kind: gpucost.RecRightSize, Resources: g.ids,
		Action: fmt.Sprintf("move %s from %s (%d × %s) to %s%s (%g × %s): the work fits a cheaper GPU",
			Names(g.ids), r0.InstanceType, r0.GPUs, r0.GPUModel, o.InstanceType, where, o.GPUCount, o.GPUModel),
		MonthlySaving: saving,
		Evidence: append(e.common(g.rs),
			fmt.Sprintf("VRAM peak %.1f GB per GPU + %.0f%% headroom = %.1f GB ≤ %s's %g GB", t.peakGB, 100*e.opt.Headroom, t.needGB, o.GPUModel, offerMemory(o, e)),
			fmt.Sprintf("p95 demand %.0f dense TFLOPS (p95 util × %g TFLOPS × %d GPUs, with headroom) ≤ %g × %g TFLOPS",
				t.demand, t.fromTF, t.used, o.GPUCount, t.toTF),
			fmt.Sprintf("on-demand %s/h → %s/h (%s, %s)", r0.Hourly, o.OnDemand, o.InstanceType, o.Source)),
		Risk: "utilisation counts busy time, not FLOPs: memory-bound or interconnect-bound work may run slower on the new GPU; " +
			"check the framework and driver support it, and benchmark one machine first",
	}
	e.confidence(&rec, "the VRAM peak and p95 load held through the period")
	lower(&rec, gpucost.ConfidenceMedium, "compute fit from datasheet TFLOPS, not a benchmark of this work")
	return step{rec: rec, target: strings.TrimSpace(o.InstanceType + " " + strings.TrimSpace(where)),
		needs: []string{fmt.Sprintf("a benchmark of the work on one %s (%s) before the rest of %s moves", o.InstanceType, o.GPUModel, Names(g.ids))},
		apply: func(fl []Resource) {
			for _, r := range byIDs(fl, g.ids) {
				r.Monthly = scale(r.Monthly, float64(o.OnDemand.Nanos)/float64(r.Hourly.Nanos))
				r.Usage = retypedUsage(r.Usage, int(o.GPUCount), e.opt.UsedVRAMGB, t.fromTF/t.toTF)
				r.Region, r.InstanceType, r.GPUModel, r.GPUs, r.Hourly = o.Region, o.InstanceType, o.GPUModel, int(o.GPUCount), o.OnDemand
			}
		}}
}

func offerMemory(o gpucost.Offer, e *engine) float64 {
	if o.GPUMemoryGB > 0 {
		return o.GPUMemoryGB
	}
	s, _ := e.prices.Spec(o.GPUModel)
	return s.MemoryGB
}

// retypedUsage is the GPUs' statistics on n GPUs of another type: the used ones first, their
// utilisation scaled by how much slower (ratio > 1) or faster the new GPU is, idle GPUs added
// where the new instance has more.
func retypedUsage(us []GPUUsage, n int, minVRAM, ratio float64) []GPUUsage {
	out := keepUsed(us, min(n, len(us)), minVRAM)
	for i := range out {
		u := &out[i]
		u.MeanUtil, u.P95Util = min(100, u.MeanUtil*ratio), min(100, u.P95Util*ratio)
		for d := range 7 {
			for h := range 24 {
				u.Util[d][h] = min(100, u.Util[d][h]*ratio)
			}
		}
	}
	for len(out) < n {
		idle := GPUUsage{IdleShare: 1}
		for d := range 7 {
			for h := range 24 {
				idle.Idle[d][h] = 1
			}
		}
		out = append(out, idle)
	}
	return out
}
