package plan_test

import (
	"math"
	"os"
	"testing"
	"time"

	"github.com/gpucost/gpucost/plan"
	"github.com/gpucost/gpucost/traffic"
)

// oldRuleReplicas is the rule the planner used before issue 19: the fewest replicas whose M/M/c
// wait quantile plus the mean service time is within the SLO, P(W > slo − s) ≤ 1 − q. It is kept
// here only to show what the exact sojourn distribution changed.
func oldRuleReplicas(rate float64, s time.Duration, q float64, slo time.Duration) int {
	if rate == 0 {
		return 0
	}
	for c := int(rate*s.Seconds()) + 1; ; c++ {
		if plan.WaitTail(c, rate, s, slo-s) <= 1-q {
			return c
		}
	}
}

// TestOracleIssueCase pins the oracle's replica-hours on the Azure code trace (one hour, 8,819
// requests) at 1 s per request, exponential, p99 ≤ 5 s — the settings of `plan autoscale`'s
// first example — before and after the exact M/M/c sojourn distribution, in 1-minute bins (the
// default) and in 10-second bins, where the old rule's 43 replicas at the 41.1/s peak miss the
// SLO (TestResponseTailIssueCase). The oracle is each interval's fewest replicas, summed over
// the trace's intervals, so its replica-hours are Σ c_i · step:
//
//	1-minute bins (58):   old rule 3.50, exact 3.98 (+13.7%); the peak 9.75/s needs 11 → 12
//	10-second bins (344): old rule 3.03, exact 3.28 (+8.2%);  the peak 41.1/s needs 43 → 44
//
// The issue's 6.90 → 7.70 is reached by no step, service time (0.2 to 4 s), SLO (2 to 30 s) and
// percentile (p90 to p99.9) of M/M/c on this trace together, and its "10 replicas" at a peak by
// none where the old rule asked for 10; so it came from another trace or model. The figures the
// code gives are these, and CompareAutoscale's oracle run reports the same replica-hours.
func TestOracleIssueCase(t *testing.T) {
	for _, tc := range []struct {
		step               time.Duration
		old, exact         float64
		peakOld, peakExact int
	}{
		{time.Minute, 3.50, 3.98, 11, 12},
		{10 * time.Second, 3.03, 3.28, 43, 44},
	} {
		f, err := os.Open(azureTrace)
		if err != nil {
			t.Skipf("the shared datasets are not beside the repository (%v)", err)
		}
		tr, err := traffic.Read(f, "azure", traffic.Options{Step: tc.step})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		var oldSum, exactSum, peakOld, peakExact int
		for _, r := range tr.Rates {
			o := oldRuleReplicas(r, time.Second, 0.99, 5*time.Second)
			e, err := plan.Replicas(r, time.Second, 0.99, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			oldSum, exactSum = oldSum+o, exactSum+e
			peakOld, peakExact = max(peakOld, o), max(peakExact, e)
		}
		h := tc.step.Hours()
		if got := float64(oldSum) * h; math.Abs(got-tc.old) > 0.005 {
			t.Errorf("%v bins: old rule's oracle %.3f replica-hours, want %.2f", tc.step, got, tc.old)
		}
		if got := float64(exactSum) * h; math.Abs(got-tc.exact) > 0.005 {
			t.Errorf("%v bins: exact oracle %.3f replica-hours, want %.2f", tc.step, got, tc.exact)
		}
		if peakOld != tc.peakOld || peakExact != tc.peakExact {
			t.Errorf("%v bins: peak need %d (old rule) and %d (exact), want %d and %d", tc.step, peakOld, peakExact, tc.peakOld, tc.peakExact)
		}
		runs, err := plan.CompareAutoscale(plan.AutoscaleOptions{Start: tr.Start, Step: tr.Step, Rates: tr.Rates,
			ServiceTime: time.Second, Quantile: 0.99, SLO: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if oracle := runs[len(runs)-1]; oracle.Policy != plan.Oracle || math.Abs(oracle.ReplicaHours-float64(exactSum)*h) > 1e-6 {
			t.Errorf("%v bins: CompareAutoscale's oracle %s %.4f replica-hours, want the per-interval sum %.4f", tc.step, oracle.Policy, oracle.ReplicaHours, float64(exactSum)*h)
		}
	}
}
