package plan

import (
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// TestAutoscaleBeside: a policy runs beside the oracle, last, with each run's gap to it; with
// spot, the same policy all on-demand comes between; the oracle alone is one run.
func TestAutoscaleBeside(t *testing.T) {
	o := baseOptions(steady(50, 120))
	o.Policy = Static
	o.Replicas = 20
	runs, err := AutoscaleBeside(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].Policy != Static || runs[1].Policy != Oracle {
		t.Fatalf("AutoscaleBeside(static) = %d runs %v; want static, then the oracle", len(runs), policies(runs))
	}
	if want := runs[0].ReplicaHours/runs[1].ReplicaHours - 1; runs[0].GapReplicaHours != want || want <= 0 || runs[1].GapReplicaHours != 0 {
		t.Errorf("gaps = %v, %v; want %v for 20 static replicas against the oracle's 12, and 0", runs[0].GapReplicaHours, runs[1].GapReplicaHours, want)
	}

	o.Spot, err = SpotMix("50%", "10%/h", "gcp", true, 7)
	if err != nil {
		t.Fatal(err)
	}
	o.Spot.PricePerGPU = gpucost.USD(700_000_000)
	runs, err = AutoscaleBeside(o)
	if err != nil || len(runs) != 3 || runs[1].Settings != "the same, all on-demand" || runs[2].Policy != Oracle {
		t.Fatalf("AutoscaleBeside(static, spot) = %v, %v; want the policy, it all on-demand, the oracle", policies(runs), err)
	}

	o.Policy, o.Spot = Oracle, nil
	if runs, err = AutoscaleBeside(o); err != nil || len(runs) != 1 {
		t.Errorf("AutoscaleBeside(oracle) = %v, %v; want the oracle once", policies(runs), err)
	}
}

func policies(runs []AutoscaleResult) []Policy {
	out := make([]Policy, len(runs))
	for i, r := range runs {
		out[i] = r.Policy
	}
	return out
}

func TestSpotMix(t *testing.T) {
	s, err := SpotMix("50%", "5%/h", "", false, 1)
	if err != nil || s.Share != 0.5 || s.InterruptionsPerHour != 0.05 || s.Notice != 2*time.Minute || s.Fallback || s.Rand == nil {
		t.Errorf("SpotMix(50%%, 5%%/h) = %+v, %v; want half on spot, 0.05/h, AWS's 2 min notice", s, err)
	}
	if s, err := SpotMix("0.2", "0.1", "azure", true, 1); err != nil || s.Notice != 30*time.Second {
		t.Errorf("SpotMix(azure) = %+v, %v; want a 30 s notice", s, err)
	}
	for _, tc := range []struct{ share, rate, provider, want string }{
		{"150%", "5%/h", "", `--spot-share "150%": give a share up to 100%, such as 50%`},
		{"half", "5%/h", "", `--spot-share "half": give a share up to 100%, such as 50%`},
		{"50%", "often", "", `--interruption-rate "often": use interruptions per hour, such as 10%/h or 0.1`},
		{"50%", "5%/h", "oracle", "unknown provider"},
	} {
		_, err := SpotMix(tc.share, tc.rate, tc.provider, true, 1)
		if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("SpotMix(%q, %q, %q) = %v; want EInvalid %q", tc.share, tc.rate, tc.provider, err, tc.want)
		}
	}
}

// TestPlanBatchService: the best batch size by default, the largest size up to --batch-size
// that keeps the SLO when one is given, and errors that say what to give.
func TestPlanBatchService(t *testing.T) {
	prof, err := FittedProfile(8*time.Millisecond, time.Millisecond, 64)
	if err != nil {
		t.Fatal(err)
	}
	best, err := PlanBatchService(prof, 2000, 0.99, 200*time.Millisecond, 0, Spread{})
	if err != nil || best.Batch < 2 || best.S != prof.Service(float64(best.Batch)) || !strings.HasPrefix(best.Note, "Batches of ") {
		t.Fatalf("PlanBatchService(2000/s) = %+v, %v; want batches of several at the profile's time", best, err)
	}
	if got, err := PlanBatchService(prof, 2000, 0.99, 200*time.Millisecond, 4, Spread{}); err != nil || got.Batch > 4 {
		t.Errorf("PlanBatchService(batch size 4) = %+v, %v; want batches of at most 4", got, err)
	}
	if _, err := PlanBatchService(prof, 0, 0.99, 200*time.Millisecond, 0, Spread{}); gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "positive --rate") {
		t.Errorf("PlanBatchService(rate 0) = %v; want an EInvalid error asking for --rate", err)
	}
}

// TestUsageByHour: each hourly rollup counts its GPU-hours at its price in its hour; rollups
// outside the period count nothing.
func TestUsageByHour(t *testing.T) {
	from := time.Date(2026, 11, 2, 10, 30, 0, 0, time.UTC)
	u := NewUsageByHour(from, from.Add(3*time.Hour))
	if !u.From.Equal(from.Truncate(time.Hour)) || len(u.Dollars) != 4 {
		t.Fatalf("NewUsageByHour = from %v, %d hours; want from 10:00, 4 hours", u.From, len(u.Dollars))
	}
	full := func(h int) *gpucost.Rollup {
		return &gpucost.Rollup{Start: u.From.Add(time.Duration(h) * time.Hour), Width: time.Hour, Coverage: 1<<60 - 1}
	}
	u.Add(full(1), gpucost.USD(2_500_000_000))
	u.Add(full(1), gpucost.USD(500_000_000))
	u.Add(full(-1), gpucost.USD(1_000_000_000))
	u.Add(full(9), gpucost.USD(1_000_000_000))
	if u.Dollars[1] != 3 || u.Dollars[0] != 0 || u.Dollars[3] != 0 {
		t.Errorf("UsageByHour = %v; want 3 dollars in hour 1 only", u.Dollars)
	}
}
