package recommend

import (
	"fmt"
	"math"

	"github.com/gpucost/gpucost"
)

// scalePlan is a serving pool's machines per hour of the week under autoscaling.
type scalePlan struct {
	machines [7][24]int     // machines held each hour
	demand   [7][24]float64 // GPUs' worth of work each hour: Σ Util × share of the hour held
	zero     week           // hours scaled to zero
	held     float64        // machine-hours a week held now
	after    float64        // machine-hours a week autoscaled
}

// findAutoscales scales each serving pool to its demand hour by hour of the week: replicas =
// ⌈demand / serving target⌉ GPUs on ⌈replicas / GPUs per machine⌉ machines, at least one, and
// none in runs of Options.ScaleToZeroHours or more consecutive hours in which every GPU is idle.
// The saving is the machine-hours no longer held at the price the bill charges per held hour
// (for an on-demand bill, the hourly on-demand price). Pools without hourly utilisation
// (GPUUsage.Util all zero) are left alone: their demand is unknown.
func findAutoscales(e *engine) []step {
	var steps []step
	for _, g := range groupBy(e.fleet, servingPool) {
		if p, ok := e.scalePlan(g); ok {
			steps = append(steps, e.autoscale(g, p))
		}
	}
	return steps
}

func (e *engine) scalePlan(g *group) (scalePlan, bool) {
	var p scalePlan
	var held [7][24]float64
	var busy week // some GPU worked in the hour
	measured := false
	for _, r := range g.rs { // machine by machine, hour by hour: the arrays are read in order
		for j := range r.Usage {
			u := &r.Usage[j]
			for d := range 7 {
				for h := range 24 {
					run := r.Running[d][h]
					p.demand[d][h] += u.Util[d][h] / 100 * run
					measured = measured || u.Util[d][h] > 0
					busy[d][h] = busy[d][h] || run > 0 && u.Idle[d][h] < e.opt.IdleShare
				}
			}
		}
		for d := range 7 {
			for h := range 24 {
				held[d][h] += r.Running[d][h]
			}
		}
	}
	var idle week
	per := g.rs[0].GPUs
	covered := e.coveredHours()
	for d := range 7 {
		for h := range 24 {
			idle[d][h] = covered[d][h] && !busy[d][h] // an hour the period does not reach is not idle, only unknown
			p.held += held[d][h]
			if held[d][h] == 0 {
				continue // not held now: stays off
			}
			need := int(math.Ceil(p.demand[d][h]/e.opt.ServingTarget - 1e-9))
			p.machines[d][h] = max(1, (need+per-1)/per)
		}
	}
	if !measured || p.held <= 0 {
		return p, false
	}
	p.zero = longRuns(idle, e.opt.ScaleToZeroHours)
	for d := range 7 {
		for h := range 24 {
			if p.zero[d][h] {
				p.machines[d][h] = 0
			}
			p.after += float64(p.machines[d][h])
		}
	}
	return p, p.after < p.held
}

func (e *engine) autoscale(g *group, p scalePlan) step {
	f := p.after / p.held
	saving := gpucost.USD(0)
	for _, r := range g.rs {
		saving = saving.Add(r.Monthly.Sub(scale(r.Monthly, f)))
	}
	lo, hi, peak, mean := math.MaxInt, 0, 0.0, 0.0
	for d := range 7 {
		for h := range 24 {
			if n := p.machines[d][h]; n > 0 {
				lo, hi = min(lo, n), max(hi, n)
			}
			peak, mean = max(peak, p.demand[d][h]), mean+p.demand[d][h]/168
		}
	}
	lo = min(lo, hi)
	r0 := g.rs[0]
	action := fmt.Sprintf("autoscale %s (%s, %d × %s each) between %d and %d machines by hour of the week at %.0f%% GPU utilisation",
		Names(g.ids), r0.InstanceType, r0.GPUs, r0.GPUModel, lo, hi, 100*e.opt.ServingTarget)
	risk := "a burst faster than machines start queues requests; keep a warm minimum and scale on queue length as well as utilisation"
	if n := p.zero.count(); n > 0 {
		action += fmt.Sprintf(", and to zero %s", Schedule(p.zero, e.view.Zone))
		risk += "; at zero the first request waits for a cold start (machine, image and model load)"
	}
	perHour := gpucost.USD(0)
	if p.held > 0 {
		perHour = sumMonthly(g.rs).MulFloat(168 / (p.held * HoursPerMonth))
	}
	rec := gpucost.Recommendation{Kind: gpucost.RecAutoscale, Resources: g.ids, Action: action, MonthlySaving: saving,
		Evidence: append(e.common(g.rs),
			fmt.Sprintf("demand per hour of the week (mean GPU util × GPUs held): peak %.2f GPUs, mean %.2f GPUs; replicas = ⌈demand / %.2f⌉",
				peak, mean, e.opt.ServingTarget),
			fmt.Sprintf("%.0f machine-hours a week held now, %.0f autoscaled (%d hours at zero, idle ≥ %d h in a row): %.0f h × %s/h × %d/168 a month",
				p.held, p.after, p.zero.count(), e.opt.ScaleToZeroHours, p.held-p.after, perHour.Fixed(4), HoursPerMonth)),
		Risk: risk,
	}
	e.confidence(&rec, "the weekly demand pattern repeats through the period")
	return step{rec: rec, target: "autoscale",
		needs: []string{fmt.Sprintf("an autoscaler on %s between %d and %d machines, scaling on queue length as well as utilisation", Names(g.ids), lo, hi)},
		apply: func(fl []Resource) {
			n := float64(len(g.ids))
			for _, r := range byIDs(fl, g.ids) {
				r.Monthly = scale(r.Monthly, f)
				for d := range 7 {
					for h := range 24 {
						// The pool's machines held this hour, spread over its entries (above 1 where
						// it scales past its present size).
						m := float64(p.machines[d][h])
						r.Running[d][h] = m / n
						for j := range r.Usage {
							r.Usage[j].Util[d][h] = 0
							if m > 0 {
								r.Usage[j].Util[d][h] = min(100, 100*p.demand[d][h]/(m*float64(r.GPUs)))
							}
						}
					}
				}
			}
		}}
}

// longRuns returns the hours of w that lie in runs of at least n consecutive hours, the week
// read as a circle (Saturday night runs on into Sunday morning).
func longRuns(w week, n int) week {
	const hours = 7 * 24
	at := func(i int) bool { i %= hours; return w[i/24][i%24] }
	start := -1
	for i := range hours {
		if !at(i) {
			start = i
			break
		}
	}
	var out week
	if start < 0 { // idle all week
		if n <= hours {
			out = w
		}
		return out
	}
	for i := start + 1; i < start+hours; {
		if !at(i) {
			i++
			continue
		}
		j := i
		for j < start+hours && at(j) {
			j++
		}
		if j-i >= n {
			for k := i; k < j; k++ {
				out[(k%hours)/24][k%24] = true
			}
		}
		i = j
	}
	return out
}
