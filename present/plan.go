package present

import (
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/plan"
)

// Capacity is plan capacity's table: the Erlang C size beside reference case R4's rule of
// thumb, with their predicted latencies and costs.
func Capacity(r plan.CapacityResult) Table {
	per1000 := ""
	if r.Per1000Requests != nil {
		per1000 = "$" + r.Per1000Requests.Decimal()
		if len(per1000) > 9 {
			per1000 = per1000[:9]
		}
	}
	q := fmt.Sprintf("p%g", r.Quantile*100)
	out := Table{
		Title: fmt.Sprintf("%.4g requests/s at %v each, %s ≤ %v, %.0f%% headroom: %d replicas (%d GPUs) at %.0f%% utilisation",
			r.Rate, r.ServiceTime, q, r.SLO, 100*r.Headroom, r.Replicas, r.GPUs, 100*r.Utilisation),
		Columns: []string{"Sizing", "Replicas", "GPUs", "Utilisation", "p50", "p90", "p95", "p99", "p99.9", "Meets SLO", "$/h", "$/1k requests"},
		Right:   []int{1, 2, 3, 4, 5, 6, 7, 8, 10, 11},
		JSON:    r,
	}
	row := func(name string, replicas, gpus int, util float64, lat []plan.LatencyPoint, meets bool, cost, per string) []string {
		cells := []string{name, fmt.Sprint(replicas), fmt.Sprint(gpus), fmt.Sprintf("%.0f%%", 100*util)}
		for _, p := range lat {
			cells = append(cells, Latency(p.Response))
		}
		return append(cells, YesNO(meets), cost, per)
	}
	out.Rows = append(out.Rows, row("Erlang C ("+r.Spread.Model()+")", r.Replicas, r.GPUs, r.Utilisation, r.Latency, true, OptionalDollars(r.PerHour), per1000))
	rt := r.RuleOfThumb
	out.Rows = append(out.Rows, row(fmt.Sprintf("rule of thumb (R4, %.4g QPS/GPU %s)", rt.PerGPUQPS, rt.QPSSource),
		rt.Replicas, rt.GPUs, rt.Utilisation, rt.Latency, rt.MeetsSLO, OptionalDollars(rt.PerHour), ""))
	out.Notes = append(out.Notes, fmt.Sprintf("Erlang C minimum without headroom: %d replicas; %d replicas serve up to %.4g requests/s within the SLO. %.1f%% of requests queue at all.",
		r.MinReplicas, r.Replicas, r.MaxRate, 100*r.WaitProbability))
	out.Notes = append(out.Notes, r.Notes...)
	out.Notes = append(out.Notes, responseModel(r.Spread))
	return out
}

// responseModel says how the latency columns were predicted.
func responseModel(sp plan.Spread) string {
	if sp.Exact() {
		return "Response time = queue wait + the request's own service time, taken as exponential: the M/M/c distribution, exact (--service-cv gives a measured spread)."
	}
	return "Response time = queue wait + the request's own service time, " + sp.String() + ": the M/G/c two-moment approximation (docs/architecture.md \"Response time: wait plus service\")."
}

// Batching is plan batching's table: one row per batch size, the best marked.
func Batching(r plan.BatchingResult) Table {
	out := Table{
		Title: fmt.Sprintf("%.4g requests/s, p%g ≤ %v: batches of %d on %d GPUs (max_batch_size %d, max_queue_delay_microseconds %d)",
			r.Rate, r.Quantile*100, r.SLO, r.Best.MaxBatchSize, r.Best.GPUs, r.Best.MaxBatchSize, r.Best.MaxQueueDelay.Microseconds()),
		Columns: []string{"max_batch_size", "max_queue_delay_microseconds", "Batch time", "Fill time", "Replicas", "GPUs", "Utilisation",
			fmt.Sprintf("Predicted p%g", r.Quantile*100), "Throughput/GPU", "$/h", ""},
		Right:     []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9},
		TableOnly: []int{10}, // the "← best" mark, for people; JSON names the best plan (best)
		JSON:      r,
	}
	for _, p := range r.Plans {
		mark := ""
		if p.MaxBatchSize == r.Best.MaxBatchSize {
			mark = "← best"
		}
		out.Rows = append(out.Rows, []string{fmt.Sprint(p.MaxBatchSize), fmt.Sprint(p.MaxQueueDelay.Microseconds()), Latency(p.Service), Latency(p.Fill),
			fmt.Sprint(p.Replicas), fmt.Sprint(p.GPUs), fmt.Sprintf("%.0f%%", 100*p.Utilisation), Latency(p.Response), fmt.Sprintf("%.4g/s", p.ThroughputPerGPU),
			OptionalDollars(p.PerHour), mark})
	}
	out.Notes = append(out.Notes, "Latency profile: "+r.Profile.String()+".")
	out.Notes = append(out.Notes, r.Notes...)
	return out
}

// Autoscale is plan autoscale's table: one row per replayed policy, and under it which policy
// is best, or what to change when the SLO is missed. all says every policy ran (--compare all).
func Autoscale(o plan.AutoscaleOptions, runs []plan.AutoscaleResult, all bool) Table {
	q := fmt.Sprintf("p%g", o.Quantile*100)
	out := Table{
		Title: fmt.Sprintf("%d intervals of %v at %v per request, %s ≤ %v, %d per replica, %v to provision",
			len(o.Rates), o.Step, o.ServiceTime, q, o.SLO, max(1, o.Concurrency), o.Provisioning),
		Columns: []string{"Policy", "Replica-h", "Gap to oracle", "Mean", "Peak", "Cost", "SLO attainment", "Meets SLO", "Delayed", "Dropped", "Interruptions", "Settings"},
		Right:   []int{1, 2, 3, 4, 5, 6, 8, 9, 10},
		JSON:    runs,
	}
	for _, r := range runs {
		gap := fmt.Sprintf("%+.1f%%", 100*r.GapReplicaHours)
		if r.Policy == plan.Oracle {
			gap = "—"
		}
		out.Rows = append(out.Rows, []string{r.Label(), fmt.Sprintf("%.2f", r.ReplicaHours), gap, fmt.Sprintf("%.2f", r.MeanReplicas),
			fmt.Sprint(r.PeakReplicas), r.Cost.Dollars(), fmt.Sprintf("%.3f%%", 100*r.Attainment), YesNO(r.MeetsSLO(o.Quantile)),
			fmt.Sprintf("%.0f", r.Delayed), fmt.Sprintf("%.0f", r.Dropped), fmt.Sprint(r.Interruptions), r.Settings})
		out.Notes = append(out.Notes, r.Notes...)
	}
	for _, r := range runs {
		if r.Hindsight {
			out.Notes = append(out.Notes, fmt.Sprintf("%s was built from the very trace it is scored on, which no policy knows in advance: it is left out of the best policy; give --schedule, or use learned-schedule, which learns from earlier days only.", r.Label()))
		}
	}
	best, ok := plan.Best(runs, o.Quantile)
	switch {
	case all && ok:
		out.Notes = append(out.Notes, fmt.Sprintf("Best policy that meets the SLO without hindsight: %s, %.2f replica-hours, %+.1f%% over the oracle, %s.",
			best.Policy, best.ReplicaHours, 100*best.GapReplicaHours, best.Cost.Dollars()))
	case all:
		out.Notes = append(out.Notes, fmt.Sprintf("No policy meets %s ≤ %v over the trace: raise --min-replicas, lower --target, or shorten --provisioning.", q, o.SLO))
	case !runs[0].MeetsSLO(o.Quantile):
		out.Notes = append(out.Notes, fmt.Sprintf("%s misses %s ≤ %v over the trace: raise --min-replicas, lower --target, or shorten --provisioning.", runs[0].Policy, q, o.SLO))
	}
	return out
}

// Checkpoint is plan checkpoint's table: Young's, Daly's and the optimal interval, and whether
// an emergency checkpoint fits the interruption notice.
func Checkpoint(r plan.CheckpointResult) Table {
	out := Table{
		Title:   fmt.Sprintf("Checkpoint every … (δ = %s %s, R = %s, M = %s)", r.CheckpointTime, r.CheckpointTimeSource, r.Restart, r.MTBI.Round(time.Second)),
		Columns: []string{"Rule", "Interval", "Overhead", "Writing", "Expected wall"},
		Right:   []int{1, 2, 3, 4},
		JSON:    r,
	}
	for _, row := range []struct {
		name string
		iv   plan.Interval
	}{{"Young", r.Young}, {"Daly", r.Daly}, {"optimum (Daly's model)", r.Optimum}} {
		wall := ""
		if row.iv.ExpectedWall > 0 {
			wall = row.iv.ExpectedWall.Round(time.Second).String()
		}
		out.Rows = append(out.Rows, []string{row.name, row.iv.Every.Round(time.Second).String(),
			fmt.Sprintf("%.1f%%", 100*row.iv.Overhead), fmt.Sprintf("%.1f%%", 100*row.iv.WriteOverhead), wall})
	}
	if em := r.Emergency; em != nil {
		verdict := "fits"
		if !em.Fits {
			verdict = "does NOT fit"
		}
		notice := em.Notice.String()
		if em.Provider != "" {
			notice = em.Provider + "'s " + notice
		}
		out.Notes = append(out.Notes, fmt.Sprintf("Emergency checkpoint on %s notice: writing takes %s (%s) — it %s, slack %s.",
			notice, em.Write.Round(time.Second), em.WriteSource, verdict, em.Slack.Round(time.Second)))
	}
	out.Notes = append(out.Notes, r.Notes...)
	return out
}

// Latency formats a predicted response time, "unstable" when the queue grows without bound.
func Latency(d time.Duration) string {
	switch {
	case d == time.Duration(1<<63-1):
		return "unstable"
	case d >= 10*time.Second:
		return d.Round(100 * time.Millisecond).String()
	case d >= time.Second:
		return d.Round(time.Millisecond).String()
	}
	return d.Round(100 * time.Microsecond).String()
}

// YesNO formats whether a plan meets its target: "yes", or "NO" in capitals to stand out.
func YesNO(ok bool) string {
	if ok {
		return "yes"
	}
	return "NO"
}

// OptionalDollars formats an amount that a plan leaves out when it has no price: "" for nil.
func OptionalDollars(m *gpucost.Money) string {
	if m == nil {
		return ""
	}
	return m.Dollars()
}
