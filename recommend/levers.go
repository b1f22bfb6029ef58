package recommend

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gpucost/gpucost"
)

// Levers of the savings report (issue 4, item 4).
const (
	LeverSpot        = "spot"
	LeverRightSizing = "right-sizing"
	LeverSharing     = "sharing"
	LeverIdle        = "idle"
	LeverAutoscaling = "autoscaling"
	LeverRegion      = "region"
	LeverCommitments = "commitments"
)

// group collects resources under a key in the order they first appear, so output is stable.
type group struct {
	key string
	ids []string
	rs  []*Resource
}

func groupBy(f []Resource, key func(r *Resource) (string, bool)) []*group {
	var out []*group
	idx := map[string]*group{}
	for i := range f {
		r := &f[i]
		if r.GPUs <= 0 || r.Monthly.Nanos <= 0 {
			continue
		}
		k, ok := key(r)
		if !ok {
			continue
		}
		g := idx[k]
		if g == nil {
			g = &group{key: k}
			idx[k] = g
			out = append(out, g)
		}
		g.ids, g.rs = append(g.ids, r.ID), append(g.rs, r)
	}
	return out
}

// byIDs returns the resources with the ids, in their order (nil for an id not in f).
func byIDs(f []Resource, ids []string) []*Resource {
	at := make(map[string]int, len(ids))
	for i, id := range ids {
		at[id] = i
	}
	out := make([]*Resource, len(ids))
	for i := range f {
		if j, ok := at[f[i].ID]; ok {
			out[j] = &f[i]
		}
	}
	return out
}

// scale multiplies a monthly cost by f in [0, 1]; anything else (NaN included) leaves it.
func scale(m gpucost.Money, f float64) gpucost.Money {
	if math.IsNaN(f) || f < 0 || f > 1 {
		return m
	}
	return m.MulFloat(f)
}

func sumMonthly(rs []*Resource) gpucost.Money {
	s := gpucost.USD(0)
	for _, r := range rs {
		s = s.Add(r.Monthly)
	}
	return s
}

// findIdleSchedules stops notebooks and dev machines in the hours of the week all their GPUs
// are idle (Options.IdleShare of the hour or more), grouping machines with the same schedule.
func findIdleSchedules(e *engine) []step {
	offs := map[string]week{}
	groups := groupBy(e.fleet, func(r *Resource) (string, bool) {
		if r.Kind != KindNotebook && r.Kind != KindDev || len(r.Usage) == 0 {
			return "", false
		}
		off := idleHours(r, e.opt.IdleShare)
		if off.count() == 0 {
			return "", false
		}
		k := fmt.Sprint(off)
		offs[k] = off
		return k, true
	})
	var steps []step
	for _, g := range groups {
		off := offs[g.key]
		saving := gpucost.USD(0)
		var offH, runH float64
		for _, r := range g.rs {
			o, run := offShare(r, off)
			saving = saving.Add(r.Monthly.Sub(scale(r.Monthly, 1-o/run)))
			offH, runH = offH+o, runH+run
		}
		when := Schedule(off, e.view.Zone)
		rec := gpucost.Recommendation{Kind: gpucost.RecIdleSchedule, Resources: g.ids,
			Action:        fmt.Sprintf("stop %s %s", Names(g.ids), when),
			MonthlySaving: saving,
			Evidence: append(e.common(g.rs),
				fmt.Sprintf("every GPU idle ≥ %.0f%% of each stopped hour; %.0f of %.0f held hours a week stop (%.0f%%)",
					100*e.opt.IdleShare, offH/float64(len(g.rs)), runH/float64(len(g.rs)), 100*offH/runH)),
			Risk: "someone working off-hours finds the machine stopped; keep home directories on a persistent volume and let users start it on demand",
		}
		e.confidence(&rec, "the same weekly idle hours recur through the period")
		steps = append(steps, step{rec: rec, target: "schedule",
			needs: []string{fmt.Sprintf("the users of %s agree to the schedule and keep their work on persistent volumes", Names(g.ids))},
			apply: func(f []Resource) {
				for _, r := range byIDs(f, g.ids) {
					o, run := offShare(r, off)
					r.Monthly = scale(r.Monthly, 1-o/run)
					for d := range 7 {
						for h := range 24 {
							if off[d][h] {
								r.Running[d][h] = 0
							}
						}
					}
				}
			}})
	}
	return steps
}

// idleHours returns the hours of the week the resource is held and every GPU is idle.
func idleHours(r *Resource, share float64) week {
	var off week
	for d := range 7 {
		for h := range 24 {
			off[d][h] = r.Running[d][h] > 0
			for _, u := range r.Usage {
				if u.Idle[d][h] < share {
					off[d][h] = false
				}
			}
		}
	}
	return off
}

// offShare returns the held hours a week that off stops and all held hours a week.
func offShare(r *Resource, off week) (offH, runH float64) {
	for d := range 7 {
		for h := range 24 {
			runH += r.Running[d][h]
			if off[d][h] {
				offH += r.Running[d][h]
			}
		}
	}
	if runH == 0 {
		return 0, 1
	}
	return offH, runH
}

// findRightSizes finds machines with GPUs they never use (moved to the cheapest instance of the
// same GPU with enough of them) and batch or evaluation machines held longer than their work.
func findRightSizes(e *engine) []step {
	var steps []step
	for _, g := range groupBy(e.fleet, func(r *Resource) (string, bool) {
		if r.Kind == KindServing || r.Pricing == Committed || r.Hourly.Nanos <= 0 {
			return "", false
		}
		o, used, ok := e.smallerInstance(r)
		if !ok {
			return "", false
		}
		return fmt.Sprintf("%s|%s|%s|%d", r.InstanceType, o.InstanceType, r.Namespace, used), true
	}) {
		steps = append(steps, e.fewerGPUs(g))
	}
	for _, g := range groupBy(e.fleet, func(r *Resource) (string, bool) {
		if r.Kind != KindBatch && r.Kind != KindEval || len(r.Usage) == 0 || runningHours(r) >= 0.9*168 {
			return "", false
		}
		busy, run := busyHours(r, e.opt.IdleShare)
		return fmt.Sprintf("%s|%s|%.1f|%.1f", r.InstanceType, r.Namespace, busy, run), busy > 0 && busy < run
	}) {
		steps = append(steps, e.shorterHolds(g))
	}
	return steps
}

// usedGPUs counts GPUs that held memory or did work, and the largest memory peak.
func usedGPUs(r *Resource, minVRAM float64) (used int, peakGB float64) {
	for _, u := range r.Usage {
		if u.VRAMPeakGB >= minVRAM || u.MeanUtil >= 1 {
			used++
			peakGB = max(peakGB, u.VRAMPeakGB)
		}
	}
	return used, peakGB
}

// smallerInstance returns the cheapest on-demand instance of the same GPU, provider and region
// with enough GPUs and memory for what the machine uses, when it is cheaper than the machine.
func (e *engine) smallerInstance(r *Resource) (gpucost.Offer, int, bool) {
	used, peak := usedGPUs(r, e.opt.UsedVRAMGB)
	if used == 0 || used >= r.GPUs {
		return gpucost.Offer{}, 0, false
	}
	o, ok := e.prices.Cheapest(PriceQuery{Model: r.GPUModel, Provider: r.Provider, Region: r.Region,
		MinGPUs: used, MinMemoryGB: peak * 1.1})
	if !ok || !o.OnDemand.Less(r.Hourly) || int(o.GPUCount) >= r.GPUs {
		return o, used, false
	}
	return o, used, true
}

func (e *engine) fewerGPUs(g *group) step {
	r0 := g.rs[0]
	o, used, _ := e.smallerInstance(r0)
	f := float64(o.OnDemand.Nanos) / float64(r0.Hourly.Nanos)
	saving := gpucost.USD(0)
	for _, r := range g.rs {
		saving = saving.Add(r.Monthly.Sub(scale(r.Monthly, f)))
	}
	_, peak := usedGPUs(r0, e.opt.UsedVRAMGB)
	rec := gpucost.Recommendation{Kind: gpucost.RecRightSize, Resources: g.ids,
		Action: fmt.Sprintf("move %s from %s (%d GPUs) to %s (%g GPUs): each uses %d",
			Names(g.ids), r0.InstanceType, r0.GPUs, o.InstanceType, o.GPUCount, used),
		MonthlySaving: saving,
		Evidence: append(e.common(g.rs),
			fmt.Sprintf("%d of %d GPUs per machine never held ≥ %g GB nor worked; VRAM peak of the used ones %.1f GB", r0.GPUs-used, r0.GPUs, e.opt.UsedVRAMGB, peak),
			fmt.Sprintf("on-demand %s/h → %s/h (%s, %s)", r0.Hourly, o.OnDemand, o.InstanceType, o.Source)),
		Risk: "a job that sometimes needs every GPU must ask for a larger machine then",
	}
	e.confidence(&rec, "the unused GPUs stayed unused all period")
	return step{rec: rec, target: o.InstanceType,
		needs: []string{fmt.Sprintf("the owners of %s relaunch them as %s; jobs that need more GPUs ask for a larger machine", Names(g.ids), o.InstanceType)},
		apply: func(f []Resource) {
			for _, r := range byIDs(f, g.ids) {
				r.Monthly = scale(r.Monthly, float64(o.OnDemand.Nanos)/float64(r.Hourly.Nanos))
				r.Usage = keepUsed(r.Usage, int(o.GPUCount), e.opt.UsedVRAMGB)
				r.InstanceType, r.GPUs, r.Hourly = o.InstanceType, int(o.GPUCount), o.OnDemand
			}
		}}
}

// keepUsed keeps the used GPUs' statistics first, n in all.
func keepUsed(us []GPUUsage, n int, minVRAM float64) []GPUUsage {
	out := make([]GPUUsage, 0, n)
	for _, u := range us {
		if len(out) < n && (u.VRAMPeakGB >= minVRAM || u.MeanUtil >= 1) {
			out = append(out, u)
		}
	}
	for _, u := range us {
		if len(out) < n && !(u.VRAMPeakGB >= minVRAM || u.MeanUtil >= 1) {
			out = append(out, u)
		}
	}
	return out
}

// busyHours returns the held hours a week in which some GPU works, and all held hours.
func busyHours(r *Resource, share float64) (busy, run float64) {
	idle := idleHours(r, share)
	for d := range 7 {
		for h := range 24 {
			run += r.Running[d][h]
			if !idle[d][h] {
				busy += r.Running[d][h]
			}
		}
	}
	return busy, run
}

func (e *engine) shorterHolds(g *group) step {
	r0 := g.rs[0]
	busy, run := busyHours(r0, e.opt.IdleShare)
	saving := gpucost.USD(0)
	for _, r := range g.rs {
		saving = saving.Add(r.Monthly.Sub(scale(r.Monthly, busy/run)))
	}
	rec := gpucost.Recommendation{Kind: gpucost.RecRightSize, Resources: g.ids,
		Action: fmt.Sprintf("release %s when its job ends: it is held %.0f h a week and works %.0f h (%s)",
			Names(g.ids), run, busy, strings.TrimPrefix(Schedule(busyWeek(r0, e.opt.IdleShare), e.view.Zone), "from ")),
		MonthlySaving: saving,
		Evidence: append(e.common(g.rs),
			fmt.Sprintf("every GPU idle ≥ %.0f%% of %.0f of the %.0f held hours a week", 100*e.opt.IdleShare, run-busy, run)),
		Risk: "a run that takes longer than usual must still finish: end the machine on the job's exit, not on a clock",
	}
	e.confidence(&rec, "the job's working hours repeat every week of the period")
	return step{rec: rec, target: "release-on-exit",
		needs: []string{fmt.Sprintf("the job's launcher ends %s when the job exits", Names(g.ids))},
		apply: func(f []Resource) {
			for _, r := range byIDs(f, g.ids) {
				b, run := busyHours(r, e.opt.IdleShare)
				idle := idleHours(r, e.opt.IdleShare)
				r.Monthly = scale(r.Monthly, b/run)
				for d := range 7 {
					for h := range 24 {
						if idle[d][h] {
							r.Running[d][h] = 0
						}
					}
				}
				for i := range r.Usage {
					r.Usage[i].Idle = [7][24]float64{}
				}
			}
		}}
}

func busyWeek(r *Resource, share float64) [7][24]bool {
	idle := idleHours(r, share)
	var b [7][24]bool
	for d := range 7 {
		for h := range 24 {
			b[d][h] = r.Running[d][h] > 0 && !idle[d][h]
		}
	}
	return b
}

// common is the evidence every recommendation carries: period, machines, bill and usage.
func (e *engine) common(rs []*Resource) []string {
	ids := make([]string, len(rs))
	var util, p95 float64
	n := 0
	for i, r := range rs {
		ids[i] = r.ID
		for _, u := range r.Usage {
			util, p95, n = util+u.MeanUtil, max(p95, u.P95Util), n+1
		}
	}
	r0 := rs[0]
	ev := []string{
		fmt.Sprintf("period %s – %s (%.0f days)", e.view.From.Format("2006-01-02"), e.view.To.Format("2006-01-02"), e.days()),
		fmt.Sprintf("%d × %s %s %s (%d × %s, %s, %s/%s), bill %s/month", len(rs), r0.Provider, r0.Region, r0.InstanceType,
			r0.GPUs, r0.GPUModel, pricing(r0), r0.Owner, r0.Namespace, sumMonthly(rs).Fixed(2)),
	}
	if n > 0 {
		ev = append(ev, fmt.Sprintf("%s: GPU util mean %.1f%%, p95 up to %.1f%% over %d GPUs", Names(ids), util/float64(n), p95, n))
	}
	return append(ev, costLines(rs)...)
}

// costLines names the bill lines of the first machines, and how many more there are.
func costLines(rs []*Resource) []string {
	const shown = 3
	var out []string
	more := 0
	for _, r := range rs {
		for _, l := range r.CostLines {
			if len(out) < shown {
				out = append(out, "cost lines: "+l)
			} else {
				more++
			}
		}
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("cost lines: … and %d more", more))
	}
	return out
}

func pricing(r *Resource) gpucost.PricingModel {
	if r.Pricing == "" {
		return gpucost.OnDemand
	}
	return r.Pricing
}

func (e *engine) days() float64 {
	d := e.view.To.Sub(e.view.From).Hours() / 24
	if math.IsNaN(d) || d < 0 {
		return 0
	}
	return d
}

// confidence is high with four weeks of data, medium with one, low with less; why says what the
// saving rests on.
func (e *engine) confidence(rec *gpucost.Recommendation, why string) {
	d := e.days()
	switch {
	case d >= 28:
		rec.Confidence = gpucost.ConfidenceHigh
	case d >= 7:
		rec.Confidence = gpucost.ConfidenceMedium
	default:
		rec.Confidence = gpucost.ConfidenceLow
	}
	rec.ConfidenceWhy = fmt.Sprintf("%s; %.0f days of telemetry and bill", why, d)
}

// lower caps a confidence at c.
func lower(rec *gpucost.Recommendation, c gpucost.Confidence, why string) {
	order := []gpucost.Confidence{gpucost.ConfidenceLow, gpucost.ConfidenceMedium, gpucost.ConfidenceHigh}
	if slices.Index(order, rec.Confidence) > slices.Index(order, c) {
		rec.Confidence = c
	}
	rec.ConfidenceWhy += "; " + why
}
