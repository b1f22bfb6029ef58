package recommend

import (
	"fmt"
	"math"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/plan"
)

// ServingTraffic is what a serving pool serves, from its request counts (a metric such as
// vllm:request_success_total or a load balancer's request count, per hour of the week) and its
// latency: the input of the request-based serving recommendations.
type ServingTraffic struct {
	// Namespace names the pool: every serving Resource with this Namespace.
	Namespace string
	// Requests is the mean number of requests in each hour of the week ([time.Weekday][hour])
	// over the period.
	Requests    [7][24]float64
	ServiceTime time.Duration // mean time one replica takes to serve one request
	Spread      plan.Spread   // how the service time varies; the zero value is exponential (M/M/c)
	Quantile    float64       // the SLO's quantile (default 0.99)
	SLO         time.Duration // the response time the quantile must stay within
	Concurrency int           // requests one replica serves at once (default 1)
	// GPUsPerReplica is the GPUs one replica holds (default 1).
	GPUsPerReplica int
	// Profile is the model's batch latency profile, when measured; with it the pool is also
	// sized with dynamic batching.
	Profile *plan.LatencyProfile
}

// ServingRecommendations sizes each serving pool that has request counts by Erlang C
// (plan.ReplicasFor) rather than by GPU utilisation: the replicas its peak hour needs for the SLO
// with Options.Headroom (a right-size when that is fewer machines than it holds), the replicas
// each hour of the week needs (an autoscaling schedule), and, with a latency profile, the GPUs
// batches save at the peak. Savings are monthly at the price the bill charges per machine-hour
// held. They are computed on the fleet as it is, each on its own: they overlap with each other
// and with Recommend's utilisation-based serving levers, so they are not to be summed.
//
// It reads, per Resource: Kind (serving only), Namespace, GPUs, Monthly, Running (the
// machine-hours held per hour of the week) and ID; and the ServingTraffic given for its
// Namespace. Pools without traffic are left to Recommend.
func ServingRecommendations(v FleetView, p Prices, traffic []ServingTraffic, o Options) ([]gpucost.Recommendation, error) {
	e, err := newEngine(v, p, o)
	if err != nil {
		return nil, err
	}
	byNS := map[string]ServingTraffic{}
	for _, t := range traffic {
		if _, dup := byNS[t.Namespace]; dup {
			return nil, gpucost.Errorf(gpucost.EInvalid, "recommend: request counts for namespace %q given twice", t.Namespace)
		}
		byNS[t.Namespace] = t
	}
	var recs []gpucost.Recommendation
	for _, g := range groupBy(e.fleet, servingPool) {
		t, ok := byNS[g.rs[0].Namespace]
		if !ok {
			continue
		}
		sp, err := e.servingSizes(g, t)
		if err != nil {
			return nil, fmt.Errorf("recommend serving pool %s: %w", Names(g.ids), err)
		}
		for _, rec := range []*gpucost.Recommendation{e.servingCapacity(g, sp), e.servingSchedule(g, sp), e.servingBatching(g, sp)} {
			if rec != nil && !rec.MonthlySaving.Less(e.opt.MinSaving) && rec.MonthlySaving.Nanos > 0 {
				recs = append(recs, *rec)
			}
		}
	}
	rank(recs)
	return recs, nil
}

// servingSizes is a pool's request-based sizing.
type servingSizes struct {
	t         ServingTraffic
	perMach   int                 // GPUs per machine
	held      float64             // machine-hours held a week
	heldHour  [7][24]float64      // machine-hours held in each hour of the week
	machines  [7][24]int          // machines each hour needs by Erlang C, 0 where no machine is held
	peakRate  float64             // requests per second in the busiest hour
	peak      plan.CapacityResult // at the peak with headroom
	peakMachs int
	perHour   gpucost.Money // what the bill charges per machine-hour held
}

func (e *engine) servingSizes(g *group, t ServingTraffic) (servingSizes, error) {
	if t.Quantile == 0 {
		t.Quantile = 0.99
	}
	t.Concurrency, t.GPUsPerReplica = max(1, t.Concurrency), max(1, t.GPUsPerReplica)
	sp := servingSizes{t: t, perMach: g.rs[0].GPUs}
	for _, r := range g.rs {
		for d := range 7 {
			for h := range 24 {
				sp.held += r.Running[d][h]
				sp.heldHour[d][h] += r.Running[d][h]
			}
		}
	}
	if sp.held <= 0 {
		return sp, gpucost.Errorf(gpucost.EInvalid, "no hours held in the period")
	}
	sp.perHour = sumMonthly(g.rs).MulFloat(168 / (sp.held * HoursPerMonth))
	for d := range 7 {
		for h := range 24 {
			rate := t.Requests[d][h] / 3600
			sp.peakRate = max(sp.peakRate, rate)
			servers, err := plan.ReplicasFor(rate, t.ServiceTime, t.Spread, t.Quantile, t.SLO)
			if err != nil {
				return sp, err
			}
			if sp.heldHour[d][h] > 0 {
				sp.machines[d][h] = sp.toMachines(servers)
			}
		}
	}
	var err error
	sp.peak, err = plan.Capacity(plan.CapacityOptions{Rate: sp.peakRate, ServiceTime: t.ServiceTime, Spread: t.Spread, Quantile: t.Quantile, SLO: t.SLO,
		Headroom: e.opt.Headroom, GPUsPerReplica: t.GPUsPerReplica})
	if err != nil {
		return sp, err
	}
	sp.peakMachs = max(1, sp.toMachines(sp.peak.Replicas))
	return sp, nil
}

// toMachines turns servers (concurrent requests) into machines of the pool's type.
func (sp servingSizes) toMachines(servers int) int {
	replicas := (servers + sp.t.Concurrency - 1) / sp.t.Concurrency
	return (replicas*sp.t.GPUsPerReplica + sp.perMach - 1) / sp.perMach
}

// servingEvidence is what every request-based recommendation shows.
func (e *engine) servingEvidence(g *group, sp servingSizes) []string {
	t := sp.t
	return append(e.common(g.rs),
		fmt.Sprintf("request counts for namespace %s: busiest hour %.0f requests (%.3g/s); service time %v, p%g ≤ %v, %d per replica, %d GPU(s) per replica",
			t.Namespace, sp.peakRate*3600, sp.peakRate, t.ServiceTime, t.Quantile*100, t.SLO, t.Concurrency, t.GPUsPerReplica),
		fmt.Sprintf("Erlang C at the busiest hour + %.0f%% headroom: %d replicas at %.0f%% utilisation, predicted p99 %v",
			100*e.opt.Headroom, sp.peak.Replicas, 100*sp.peak.Utilisation, sp.peak.Latency[3].Response.Round(time.Millisecond)),
		fmt.Sprintf("%.0f machine-hours a week held; the bill charges %s per machine-hour", sp.held, sp.perHour.Dollars()))
}

// servingCapacity right-sizes a pool held at a fixed size to its peak hour's Erlang C need.
func (e *engine) servingCapacity(g *group, sp servingSizes) *gpucost.Recommendation {
	if sp.peakMachs >= len(g.rs) {
		return nil
	}
	f := float64(sp.peakMachs) / float64(len(g.rs))
	rec := gpucost.Recommendation{Kind: gpucost.RecRightSize, Resources: g.ids,
		Action: fmt.Sprintf("size %s by its requests: %d × %s instead of %d (%d replicas keep p%g ≤ %v at the busiest hour + %.0f%%)",
			Names(g.ids), sp.peakMachs, g.rs[0].InstanceType, len(g.rs), sp.peak.Replicas, sp.t.Quantile*100, sp.t.SLO, 100*e.opt.Headroom),
		MonthlySaving: sumMonthly(g.rs).Sub(scale(sumMonthly(g.rs), f)),
		Evidence:      e.servingEvidence(g, sp),
		Risk:          "traffic above the period's busiest hour by more than the headroom breaches the SLO; keep autoscaling able to add replicas",
	}
	e.confidence(&rec, "the request counts and service time hold through the period")
	return &rec
}

// servingSchedule scales a pool by hour of the week to each hour's Erlang C need.
func (e *engine) servingSchedule(g *group, sp servingSizes) *gpucost.Recommendation {
	var after float64
	lo, hi := math.MaxInt, 0
	for d := range 7 {
		for h := range 24 {
			if sp.heldHour[d][h] == 0 {
				continue // not held in the period (a period shorter than a week): nothing to scale
			}
			n := max(1, sp.machines[d][h]) // a warm minimum
			after += float64(n)
			lo, hi = min(lo, n), max(hi, n)
		}
	}
	if after >= sp.held {
		return nil
	}
	rec := gpucost.Recommendation{Kind: gpucost.RecAutoscale, Resources: g.ids,
		Action: fmt.Sprintf("scale %s by its requests between %d and %d × %s by hour of the week (Erlang C per hour, p%g ≤ %v)",
			Names(g.ids), lo, hi, g.rs[0].InstanceType, sp.t.Quantile*100, sp.t.SLO),
		MonthlySaving: sumMonthly(g.rs).Sub(scale(sumMonthly(g.rs), after/sp.held)),
		Evidence: append(e.servingEvidence(g, sp), fmt.Sprintf("%.0f machine-hours a week by the schedule against %.0f held: %.0f h × %s × %d/168 a month",
			after, sp.held, sp.held-after, sp.perHour.Dollars(), HoursPerMonth)),
		Risk: "a burst within an hour faster than machines start queues requests; simulate the pool's real trace with gpucost plan autoscale before relying on it",
	}
	e.confidence(&rec, "the weekly request pattern repeats through the period")
	return &rec
}

// servingBatching sizes the peak hour with dynamic batching from the latency profile.
func (e *engine) servingBatching(g *group, sp servingSizes) *gpucost.Recommendation {
	if sp.t.Profile == nil || sp.peakRate <= 0 {
		return nil
	}
	res, err := plan.Batching(plan.BatchingOptions{Rate: sp.peakRate * (1 + e.opt.Headroom), Quantile: sp.t.Quantile, SLO: sp.t.SLO,
		Profile: *sp.t.Profile, GPUsPerReplica: sp.t.GPUsPerReplica})
	if err != nil {
		return nil // no batch size keeps the SLO: nothing to recommend
	}
	machs := max(1, (res.Best.GPUs+sp.perMach-1)/sp.perMach)
	now := min(sp.peakMachs, len(g.rs))
	if machs >= now {
		return nil
	}
	f := float64(machs) / float64(len(g.rs))
	rec := gpucost.Recommendation{Kind: gpucost.RecRightSize, Resources: g.ids,
		Action: fmt.Sprintf("batch %s's requests (Triton max_batch_size %d, max_queue_delay_microseconds %d) and run %d × %s instead of %d",
			Names(g.ids), res.Best.MaxBatchSize, res.Best.MaxQueueDelay.Microseconds(), machs, g.rs[0].InstanceType, now),
		MonthlySaving: sumMonthly(g.rs).MulFloat(float64(now) / float64(len(g.rs))).Sub(scale(sumMonthly(g.rs), f)),
		Evidence: append(e.servingEvidence(g, sp), fmt.Sprintf("latency profile %s: batches of %d need %d GPUs at the busiest hour + %.0f%%, predicted p%g %v",
			sp.t.Profile, res.Best.MaxBatchSize, res.Best.GPUs, 100*e.opt.Headroom, sp.t.Quantile*100, res.Best.Response.Round(time.Millisecond))),
		Risk: "batching adds up to the queue delay to every request at low traffic; measure the profile on the serving GPU and model",
	}
	e.confidence(&rec, "the latency profile was measured on this model and GPU")
	return &rec
}
