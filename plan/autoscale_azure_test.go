package plan_test

import (
	"os"
	"strings"
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
// at ≥ 99% attainment; only static and the hourly schedule built from the trace itself meet
// the SLO, and the schedule is hindsight (+154%), so the best policy that does not see the
// future is static at +191%. What bounds it is OnsetShare: 52% of the requests arrive in
// minutes that need more replicas than any of the two minutes before them (provisioning +
// evaluation), far over the 1% p99 allows, so target tracking, step, the learned schedule
// (Erlang C on the last minute's rate here: the trace is one hour, with no day to learn from),
// scale-to-zero and predictive all miss. Forecastable traffic is another matter (TestAutoscaleDiurnalWeek).
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
	if !ok || best.Policy != plan.Static || best.GapReplicaHours < 1.85 || best.GapReplicaHours > 1.97 {
		t.Errorf("best at ≥ 99%% = %s (%v), gap %+.1f%%; want static at about +191%%", best.Policy, ok, 100*best.GapReplicaHours)
	}
	if s := runs[3]; s.Policy != plan.Scheduled || !s.Hindsight || !s.MeetsSLO(0.99) {
		t.Errorf("runs[3] = %s, hindsight %v, attainment %.4f; want the schedule from the trace, marked hindsight", s.Policy, s.Hindsight, s.Attainment)
	}
	o := plan.AutoscaleOptions{Step: tr.Step, Rates: tr.Rates, Provisioning: time.Minute, Evaluation: time.Minute}
	sizes := make([]int32, len(tr.Rates))
	for i, r := range tr.Rates {
		n, _ := plan.Replicas(r, time.Second, 0.99, 5*time.Second)
		sizes[i] = int32(n)
	}
	if share := plan.OnsetShare(o, sizes); share < 0.50 || share > 0.54 {
		t.Errorf("OnsetShare = %.4f, want about 0.52", share)
	}
	if !strings.Contains(strings.Join(oracle.Notes, " "), "only replicas held in advance") {
		t.Errorf("oracle notes %q: want the onset bound explained", oracle.Notes)
	}
	for _, p := range []plan.Policy{plan.TargetTracking, plan.StepScaling, plan.LearnedSchedule, plan.ScaleToZero, plan.Predictive} {
		if meets[p] {
			t.Errorf("%s now meets the SLO on the Azure trace: update the figures above and in the report", p)
		}
	}
}
