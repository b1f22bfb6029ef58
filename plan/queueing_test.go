package plan

import (
	"math"
	"testing"
	"time"
)

// TestReplicasWorkedExamples reproduces the serving planner's worked Erlang C examples.
func TestReplicasWorkedExamples(t *testing.T) {
	cases := []struct {
		name string
		rate float64
		s    time.Duration
		slo  time.Duration
		want int
	}{
		{"50/s at 200 ms, p99 500 ms", 50, 200 * time.Millisecond, 500 * time.Millisecond, 13},
		{"1000/s at 50 ms, p99 200 ms", 1000, 50 * time.Millisecond, 200 * time.Millisecond, 52},
	}
	for _, tc := range cases {
		got, err := Replicas(tc.rate, tc.s, 0.99, tc.slo)
		if err != nil || got != tc.want {
			t.Errorf("%s: Replicas(%v, %v, 0.99, %v) = %d, %v; want %d", tc.name, tc.rate, tc.s, tc.slo, got, err, tc.want)
		}
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
	if _, err := Replicas(10, 300*time.Millisecond, 0.99, 200*time.Millisecond); err == nil {
		t.Error("Replicas with a service time over the SLO: want an error")
	}
}
