package plan_test

import (
	"os"
	"testing"
	"time"

	"github.com/gpucost/gpucost/plan"
	"github.com/gpucost/gpucost/traffic"
)

// azureTrace is the Azure LLM inference trace (code), one real hour of 8,819 requests.
const azureTrace = "../../shared/datasets/azure/AzureLLMInferenceTrace_code.csv"

// TestAutoscaleAzureLLMTrace replays the real Azure trace in 1-minute intervals. Service time:
// 1 s per request, one request per replica at a time — a ~2,000-token prompt and ~20 generated
// tokens (the trace's typical code-completion request) on a 70B-class model; SLO p99 ≤ 5 s;
// 60 s provisioning and evaluation.
//
// The trace switches between silence and up to 585 requests a minute from one minute to the
// next, so every causal policy either holds replicas for bursts it cannot see coming or misses
// the SLO at their onset. The test pins the measured figures: the oracle's 3.98 replica-hours
// at ≥ 99% attainment; only static and the (hindsight) hourly schedule meet the SLO, the
// schedule best at +154% over the oracle; target tracking, step, scale-to-zero and predictive
// save replica-hours but miss the SLO. The "within 10% of the oracle" holds on
// forecastable traffic (TestAutoscaleDiurnalPredictive), not on this trace.
func TestAutoscaleAzureLLMTrace(t *testing.T) {
	f, err := os.Open(azureTrace)
	if err != nil {
		t.Skipf("the shared datasets are not beside the repository (%v)", err)
	}
	defer f.Close()
	tr, err := traffic.Read(f, "azure", traffic.Options{Step: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	runs, err := plan.CompareAutoscale(plan.AutoscaleOptions{Start: tr.Start, Step: tr.Step, Rates: tr.Rates,
		ServiceTime: time.Second, Quantile: 0.99, SLO: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	meets := map[plan.Policy]bool{}
	for _, r := range runs {
		t.Logf("%-16s %6.2f replica-h  gap %+7.1f%%  attainment %.4f  delayed %4.0f  dropped %4.0f", r.Policy, r.ReplicaHours, 100*r.GapReplicaHours, r.Attainment, r.Delayed, r.Dropped)
		meets[r.Policy] = r.MeetsSLO(0.99)
		if r.MeetsSLO(0.99) && r.GapReplicaHours < 0 {
			t.Errorf("%s meets the SLO with %.2f replica-hours, fewer than the oracle's bound", r.Policy, r.ReplicaHours)
		}
	}
	oracle := runs[len(runs)-1]
	if !oracle.MeetsSLO(0.99) || oracle.ReplicaHours < 3.93 || oracle.ReplicaHours > 4.03 {
		t.Errorf("oracle: %.2f replica-hours at %.4f; want 3.98 at ≥ 0.99", oracle.ReplicaHours, oracle.Attainment)
	}
	best, ok := plan.Best(runs, 0.99)
	if !ok || best.Policy != plan.Scheduled || best.GapReplicaHours < 1.48 || best.GapReplicaHours > 1.6 {
		t.Errorf("best at ≥ 99%% = %s (%v), gap %+.1f%%; want schedule at about +154%%", best.Policy, ok, 100*best.GapReplicaHours)
	}
	for _, p := range []plan.Policy{plan.TargetTracking, plan.StepScaling, plan.ScaleToZero, plan.Predictive} {
		if meets[p] {
			t.Errorf("%s now meets the SLO on the Azure trace: update the figures above and in the report", p)
		}
	}
}
