package recommend

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/plan"
)

func servingPool(r *Resource) (string, bool) {
	if r.Kind != KindServing || len(r.Usage) == 0 || r.Pricing == Committed {
		return "", false
	}
	return fmt.Sprintf("%s|%s|%s|%s|%d", r.Provider, r.Region, r.InstanceType, r.Namespace, r.GPUs), true
}

// findServingRightSizes fits each serving pool's replicas to its p95 load at the serving target
// utilisation (60–80%, docs/architecture.md reference facts): need = ⌈Σ p95 / target⌉ GPUs.
func findServingRightSizes(e *engine) []step {
	var steps []step
	for _, g := range groupBy(e.fleet, servingPool) {
		var demand float64
		gpus := 0
		for _, r := range g.rs {
			for _, u := range r.Usage {
				demand += u.P95Util / 100
			}
			gpus += r.GPUs
		}
		need := max(1, int(math.Ceil(demand/e.opt.ServingTarget-1e-9)))
		keep := (need + g.rs[0].GPUs - 1) / g.rs[0].GPUs
		if keep >= len(g.rs) {
			continue
		}
		why := fmt.Sprintf("p95 load %.1f GPUs over %d GPUs; %d GPUs carry it at %.0f%% (serving target 60–80%%)",
			demand, gpus, need, 100*e.opt.ServingTarget)
		s := e.shrinkPool(g, keep, gpucost.RecRightSize,
			fmt.Sprintf("run %s's %d replicas as %d on %d × %s", Names(g.ids), gpus, need, keep, g.rs[0].InstanceType), why)
		s.target = fmt.Sprintf("%d replicas", need)
		s.needs = []string{fmt.Sprintf("the serving owners run %d replicas instead of %d, with autoscaling able to add machines back", need, gpus)}
		steps = append(steps, s)
	}
	return steps
}

// findMIGShares packs each serving pool's replicas onto MIG slices of its GPU (plan.PlanMIG):
// each needs its VRAM peak + 10% and its p95 compute at the serving target.
func findMIGShares(e *engine) []step {
	var steps []step
	for _, g := range groupBy(e.fleet, servingPool) {
		spec, ok := e.prices.Spec(g.rs[0].GPUModel)
		if !ok || len(spec.MIG) == 0 {
			continue
		}
		in := plan.MIGInput{GPU: spec.Name, Profiles: spec.MIG}
		for _, r := range g.rs {
			for i, u := range r.Usage {
				in.Workloads = append(in.Workloads, plan.MIGWorkload{Name: fmt.Sprintf("%s/%d", r.ID, i),
					MemoryGB: u.VRAMPeakGB * 1.1, ComputeShare: min(1, u.P95Util/100/e.opt.ServingTarget)})
			}
		}
		res, err := plan.PlanMIG(in)
		if err != nil || res.GPUsSaved <= 0 {
			continue // a replica that fits no slice, or nothing to gain
		}
		keep := (res.GPUsNeeded + g.rs[0].GPUs - 1) / g.rs[0].GPUs
		if keep >= len(g.rs) {
			continue
		}
		why := fmt.Sprintf("MIG plan (%s, %s): %d replicas on %d GPUs instead of %d, %d stranded compute slices",
			spec.Name, res.Method, res.Workloads, res.GPUsNeeded, res.WholeGPUs, res.StrandedComputeSlices)
		s := e.shrinkPool(g, keep, gpucost.RecShareMIG,
			fmt.Sprintf("share %s's GPUs with MIG: %d replicas on %d GPUs, %d × %s", Names(g.ids), res.Workloads, res.GPUsNeeded, keep, g.rs[0].InstanceType), why)
		s.target = "mig"
		s.needs = []string{fmt.Sprintf("a MIG layout change on the GPUs of %s (plan.PlanMIG's slices), and the replicas' pods request MIG slices", Names(g.ids[:keep]))}
		steps = append(steps, s)
	}
	return steps
}

// shrinkPool keeps the first keep machines of a pool and releases the rest; the kept GPUs
// carry the released ones' load.
func (e *engine) shrinkPool(g *group, keep int, kind gpucost.RecommendationKind, action, why string) step {
	gone := g.ids[keep:]
	rec := gpucost.Recommendation{Kind: kind, Resources: g.ids,
		Action:        fmt.Sprintf("%s; release %s", action, Names(gone)),
		MonthlySaving: sumMonthly(g.rs[keep:]),
		Evidence:      append(e.common(g.rs), why),
		Risk:          "a traffic peak above the period's p95 queues requests; keep autoscaling able to add machines back",
	}
	e.confidence(&rec, "the pool's p95 load held through the period")
	gpus := 0
	for _, r := range g.rs {
		gpus += r.GPUs
	}
	return step{rec: rec, apply: func(f []Resource) {
		grow := float64(gpus) / float64(keep*g.rs[0].GPUs)
		for i, r := range byIDs(f, g.ids) {
			if i >= keep {
				*r = Resource{ID: r.ID, Provider: r.Provider, Region: r.Region, InstanceType: r.InstanceType,
					GPUModel: r.GPUModel, Hourly: r.Hourly, Monthly: gpucost.USD(0), Kind: r.Kind, Namespace: r.Namespace, Owner: r.Owner}
				continue
			}
			for j := range r.Usage {
				u := &r.Usage[j]
				u.MeanUtil, u.P95Util = min(100, u.MeanUtil*grow), min(100, u.P95Util*grow)
				for d := range 7 {
					for h := range 24 {
						u.Util[d][h] = min(100, u.Util[d][h]*grow)
					}
				}
			}
		}
	}}
}

// spotRisk is the interruption rate the spot lever assumes for one spot offer, and what follows
// from it under Daly's model.
type spotRisk struct {
	rate   float64
	source string // where the pool's rate came from; empty for the assumed Options.InterruptionRate
	tau    time.Duration
	ratio  float64 // expected wall time over failure-free time (plan.WallTimeRatio)
}

// riskOf returns the rate of o's pool from Options.PoolRisk, else the assumed rate, with its
// optimal checkpoint interval and wall-time ratio; false when the ratio is not usable.
func (e *engine) riskOf(o gpucost.Offer) (spotRisk, bool) {
	rk := spotRisk{rate: e.opt.InterruptionRate}
	if pr, ok := plan.LookupPoolRisk(e.opt.PoolRisk, o.Region, o.Zone, o.InstanceType); ok && pr.PerHour > 0 {
		rk.rate, rk.source = pr.PerHour, pr.Source
	}
	mtbi := time.Duration(float64(time.Hour) / rk.rate)
	rk.tau = plan.OptimalInterval(e.opt.CheckpointTime, mtbi)
	rk.ratio = plan.WallTimeRatio(rk.tau, e.opt.CheckpointTime, e.opt.RestartTime, mtbi)
	return rk, !math.IsNaN(rk.ratio) && !math.IsInf(rk.ratio, 0) && rk.ratio >= 1
}

// findSpot moves interruptible on-demand work to the spot price of the same instance type, net
// of the expected wall-time overhead of checkpoints, lost work and restarts at the pool's
// interruption rate where data gives one, else the assumed rate (Daly's model,
// plan.WallTimeRatio at plan.OptimalInterval).
func findSpot(e *engine) []step {
	if _, ok := e.riskOf(gpucost.Offer{}); !ok && len(e.opt.PoolRisk) == 0 {
		return nil
	}
	offers := map[string]gpucost.Offer{}
	var steps []step
	for _, g := range groupBy(e.fleet, func(r *Resource) (string, bool) {
		if !r.Interruptible || pricing(r) != gpucost.OnDemand || r.Hourly.Nanos <= 0 {
			return "", false
		}
		o, ok := e.prices.Cheapest(PriceQuery{Model: r.GPUModel, Provider: r.Provider, Region: r.Region,
			InstanceType: r.InstanceType, Spot: true})
		if !ok {
			return "", false
		}
		if rk, usable := e.riskOf(o); !usable || float64(o.SpotPrice.Nanos)*rk.ratio >= float64(r.Hourly.Nanos) {
			return "", false
		}
		k := r.InstanceType + "|" + r.Namespace
		offers[k] = o
		return k, true
	}) {
		o, r0 := offers[g.key], g.rs[0]
		rk, _ := e.riskOf(o)
		tau, ratio := rk.tau, rk.ratio
		f := float64(o.SpotPrice.Nanos) * ratio / float64(r0.Hourly.Nanos)
		saving := gpucost.USD(0)
		for _, r := range g.rs {
			saving = saving.Add(r.Monthly.Sub(scale(r.Monthly, f)))
		}
		rec := gpucost.Recommendation{Kind: gpucost.RecSpot, Resources: g.ids,
			Action: fmt.Sprintf("run %s on spot %s in %s, checkpointing every %s",
				Names(g.ids), o.InstanceType, strings.TrimSpace(o.Region+" "+o.Zone), tau.Round(time.Minute)),
			MonthlySaving: saving,
			Evidence: append(e.common(g.rs),
				fmt.Sprintf("spot %s/h against on-demand %s/h (%s)", o.SpotPrice, r0.Hourly, o.Source),
				fmt.Sprintf("at %.3g%%/h interruptions, δ = %s, R = %s: wall time ×%.3f (Daly)", 100*rk.rate,
					e.opt.CheckpointTime, e.opt.RestartTime, ratio)),
			Risk: "interruptions above the assumed rate cost more re-run time; the work must checkpoint and resume",
		}
		e.confidence(&rec, "the workload is marked interruptible")
		if rk.source == "" {
			lower(&rec, gpucost.ConfidenceMedium, "the interruption rate is assumed, not measured")
		} else {
			rec.Evidence = append(rec.Evidence, "interruption rate: "+rk.source)
		}
		steps = append(steps, step{rec: rec, target: "spot " + o.InstanceType,
			needs: []string{fmt.Sprintf("the jobs on %s checkpoint every %s and resume from the last checkpoint (gpucost run --checkpoint-dir)", Names(g.ids), tau.Round(time.Minute))},
			apply: func(fl []Resource) {
				for _, r := range byIDs(fl, g.ids) {
					r.Monthly = scale(r.Monthly, f)
					r.Pricing = gpucost.Spot
				}
			}})
	}
	return steps
}

// findCommitments buys, per provider, region and instance type, the hindsight-optimal 1-year
// commitment for the on-demand machines that remain (plan.Commit: the d-quantile of the hourly
// count of machines held, over the hours of the week the period covers: a period shorter than a
// week says nothing of the hours it does not reach).
func findCommitments(e *engine) []step {
	var steps []step
	for _, g := range groupBy(e.fleet, func(r *Resource) (string, bool) {
		return r.Provider + "|" + r.Region + "|" + r.InstanceType, pricing(r) == gpucost.OnDemand && runningHours(r) > 0
	}) {
		usage := make([]float64, 0, 168)
		var unitHours float64
		covered := e.coveredHours()
		for d := range 7 {
			for h := range 24 {
				if !covered[d][h] {
					continue // an hour of the week the period does not reach: its use is unknown, not nil
				}
				var u float64
				for _, r := range g.rs {
					u += r.Running[d][h]
				}
				usage, unitHours = append(usage, u), unitHours+u
			}
		}
		monthly := sumMonthly(g.rs)
		res, err := plan.Commit(plan.CommitInput{Usage: usage, Discount: e.opt.CommitDiscount, Step: 1,
			OnDemand: monthly.MulFloat(float64(len(usage)) / (unitHours * HoursPerMonth)), HoursPerMonth: HoursPerMonth})
		if err != nil || res.Commitment <= 0 || res.MonthlySaving.Nanos <= 0 || !res.MonthlySaving.Less(monthly) {
			continue
		}
		f := 1 - float64(res.MonthlySaving.Nanos)/float64(monthly.Nanos)
		r0 := g.rs[0]
		rec := gpucost.Recommendation{Kind: gpucost.RecCommit, Resources: g.ids,
			Action: fmt.Sprintf("commit to %.0f × %s in %s %s for 1 year, no upfront, %.0f%% off on-demand (covers %s)",
				res.Commitment, r0.InstanceType, r0.Provider, r0.Region, 100*e.opt.CommitDiscount, Names(g.ids)),
			MonthlySaving: res.MonthlySaving,
			Evidence: append(e.common(g.rs),
				fmt.Sprintf("commitment = the %.2f-quantile of machines held per hour of the week: %.0f, %.0f%% utilised, covers %.0f%% of use",
					e.opt.CommitDiscount, res.Commitment, 100*res.Utilisation, 100*res.Coverage)),
			Risk: "a 1-year term: if the baseline shrinks, committed hours are paid unused",
		}
		e.confidence(&rec, "the baseline held every hour of the period")
		steps = append(steps, step{rec: rec, target: "commit " + r0.InstanceType,
			needs: []string{fmt.Sprintf("approval of a 1-year commitment of %s (%.0f × %s, %s a month)", res.TermCost.Dollars(), res.Commitment, r0.InstanceType, res.MonthlyFee.Dollars())},
			apply: func(fl []Resource) {
				for _, r := range byIDs(fl, g.ids) {
					r.Monthly = scale(r.Monthly, f)
					r.Pricing = Committed
				}
			}})
	}
	return steps
}

// coveredHours returns the hours of the week ([time.Weekday][hour], UTC) that the view's period
// reaches: all of them for a week or more, or for a period not given.
func (e *engine) coveredHours() week {
	var w week
	from, to := e.view.From.UTC().Truncate(time.Hour), e.view.To.UTC()
	if !to.After(from) || to.Sub(from) >= 7*24*time.Hour {
		for d := range 7 {
			for h := range 24 {
				w[d][h] = true
			}
		}
		return w
	}
	for t := from; t.Before(to); t = t.Add(time.Hour) {
		w[t.Weekday()][t.Hour()] = true
	}
	return w
}
