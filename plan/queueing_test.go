package plan

import (
	"math"
	"strings"
	"testing"
	"time"
)

// TestReplicasWorkedExamples reproduces the serving planner's worked examples
// (docs/architecture.md "Erlang C for replica sizing"): constant service times (M/D/c) and
// exponential ones (M/M/c, exact).
func TestReplicasWorkedExamples(t *testing.T) {
	cases := []struct {
		name string
		rate float64
		s    time.Duration
		sp   Spread
		slo  time.Duration
		want int
	}{
		{"50/s at a constant 200 ms, p99 500 ms", 50, 200 * time.Millisecond, Constant, 500 * time.Millisecond, 12},
		{"1000/s at a constant 50 ms, p99 200 ms", 1000, 50 * time.Millisecond, Constant, 200 * time.Millisecond, 51},
		{"500/s at an exponential 30 ms, p99 200 ms", 500, 30 * time.Millisecond, Spread{}, 200 * time.Millisecond, 16},
		{"Azure code trace's busiest minute, 9.75/s at 1 s, p99 5 s", 9.75, time.Second, Spread{}, 5 * time.Second, 12},
	}
	for _, tc := range cases {
		got, err := ReplicasFor(tc.rate, tc.s, tc.sp, 0.99, tc.slo)
		if err != nil || got != tc.want {
			t.Errorf("%s: ReplicasFor(%v, %v, %v, 0.99, %v) = %d, %v; want %d", tc.name, tc.rate, tc.s, tc.sp, tc.slo, got, err, tc.want)
		}
	}
}

// TestResponseTailIssueCase keeps the case of the response-time bug: the planner that added the
// mean service time to the M/M/c wait quantile sized the Azure code trace's busiest 10 s
// (41.1 requests/s at 1 s each, p99 ≤ 5 s) at 43 replicas, where P(T > 5 s) is in fact 1.18%,
// and its busiest minute (9.75/s) at 11, where it is 1.85%.
func TestResponseTailIssueCase(t *testing.T) {
	for _, tc := range []struct {
		c    int
		rate float64
		want float64
	}{{43, 41.1, 0.0118}, {11, 9.75, 0.0185}} {
		if got := ResponseTail(tc.c, tc.rate, time.Second, Spread{}, 5*time.Second); math.Abs(got-tc.want) > 0.00005 {
			t.Errorf("ResponseTail(%d, %v, 1s, exponential, 5s) = %.5f, want %.4f", tc.c, tc.rate, got, tc.want)
		}
		if old := WaitTail(tc.c, tc.rate, time.Second, 4*time.Second); old > 0.01 {
			t.Errorf("WaitTail(%d, %v, 1s, 4s) = %.4f: the old rule did not pass this size", tc.c, tc.rate, old)
		}
	}
}

// TestResponseTailExponentialLimits checks the M/M/c formula at θ = μ (c − 1 = λ/μ) against
// its neighbours, and with no queueing against the exponential service time alone.
func TestResponseTailExponentialLimits(t *testing.T) {
	at := ResponseTail(5, 4, time.Second, Spread{}, 3*time.Second) // c − 1 = λS: θ = μ
	near := ResponseTail(5, 4.000001, time.Second, Spread{}, 3*time.Second)
	if math.Abs(at-near) > 1e-5 {
		t.Errorf("ResponseTail at θ = μ = %v, just beside it %v; want continuity", at, near)
	}
	if got, want := ResponseTail(1000, 1e-6, time.Second, Spread{}, 2*time.Second), math.Exp(-2); math.Abs(got-want) > 1e-6 {
		t.Errorf("ResponseTail with no queueing = %v, want e^-2 = %v", got, want)
	}
	if got := ResponseTail(3, 3, time.Second, Spread{}, time.Hour); got != 1 {
		t.Errorf("ResponseTail when unstable = %v, want 1", got)
	}
}

// TestErlangC checks the Erlang C formula against its textbook value and its limits.
func TestErlangC(t *testing.T) {
	// A call centre with 2 agents and 1 erlang: C = 1/3.
	if got := ErlangC(2, 1); math.Abs(got-1.0/3) > 1e-12 {
		t.Errorf("ErlangC(2, 1) = %v, want 1/3", got)
	}
	if got := ErlangC(1, 0.5); math.Abs(got-0.5) > 1e-12 { // M/M/1: C = ρ
		t.Errorf("ErlangC(1, 0.5) = %v, want 0.5", got)
	}
	if got := ErlangC(10, 10); got != 1 {
		t.Errorf("ErlangC(10, 10) = %v, want 1 (unstable)", got)
	}
	if got := ErlangC(5000, 4900); got <= 0 || got >= 1 || math.IsNaN(got) {
		t.Errorf("ErlangC(5000, 4900) = %v, want a probability", got)
	}
}

func TestReplicasServiceLongerThanSLO(t *testing.T) {
	if _, err := ReplicasFor(10, 300*time.Millisecond, Constant, 0.99, 200*time.Millisecond); err == nil {
		t.Error("ReplicasFor with a constant service time over the SLO: want an error")
	}
	// An exponential 1 s exceeds 5 s for e^-5 = 0.67% of requests, within p99 but not p99.9.
	if _, err := Replicas(1, time.Second, 0.999, 5*time.Second); err == nil || !strings.Contains(err.Error(), "raise the SLO to at least 6.908s") {
		t.Errorf("Replicas(1/s, exponential 1s, p99.9, 5s) = %v; want the SLO the service time allows, 6.908s", err)
	}
}
