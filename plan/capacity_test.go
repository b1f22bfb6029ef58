package plan

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// TestCapacityR4 sets Erlang C beside reference case R4: 500 QPS at 200 per GPU is 3 GPUs, + 20%
// headroom 4.
func TestCapacityR4(t *testing.T) {
	o := CapacityOptions{Rate: 500, ServiceTime: 30 * time.Millisecond, Quantile: 0.99, SLO: 200 * time.Millisecond,
		Headroom: 0.2, PerGPUQPS: 200, GPU: "L4", PricePerGPU: gpucost.USD(800_000_000)}
	r, err := Capacity(o)
	if err != nil {
		t.Fatal(err)
	}
	if rt := r.RuleOfThumb; rt.Base != 3 || rt.GPUs != 4 {
		t.Errorf("Capacity(R4).RuleOfThumb = %d base, %d GPUs; want 3 and 4", rt.Base, rt.GPUs)
	}
	// 500/s × 30 ms = 15 erlangs: at least 16 replicas, the SLO's p99 a few more.
	min, _ := Replicas(500, o.ServiceTime, 0.99, o.SLO)
	withHeadroom, _ := Replicas(600, o.ServiceTime, 0.99, o.SLO)
	if r.MinReplicas != min || r.Replicas != withHeadroom || r.Replicas < 16 || r.GPUs != r.Replicas {
		t.Errorf("Capacity(R4) = %d min, %d replicas, %d GPUs; want %d, %d", r.MinReplicas, r.Replicas, r.GPUs, min, withHeadroom)
	}
	if r.RuleOfThumb.MeetsSLO {
		t.Errorf("rule of thumb with %d GPUs at 30 ms meets the SLO; it carries %.0f erlangs on 4 replicas", r.RuleOfThumb.GPUs, 15.0)
	}
	if want := gpucost.USD(800_000_000 * int64(r.GPUs)); *r.PerHour != want {
		t.Errorf("PerHour = %v, want %v", r.PerHour, want)
	}
	wantPer1000 := float64(r.PerHour.Nanos) * 1000 / (500 * 3600)
	if got := float64(r.Per1000Requests.Nanos); math.Abs(got-wantPer1000) > 1 {
		t.Errorf("Per1000Requests = %v nanos, want %v", got, wantPer1000)
	}
	if got := r.Utilisation; math.Abs(got-15/float64(r.Replicas)) > 1e-12 {
		t.Errorf("Utilisation = %v, want %v", got, 15/float64(r.Replicas))
	}
}

// TestCapacityLatencyMatchesSizing checks that the predicted p99 at the chosen size is within the
// SLO and that one replica fewer misses it: the latency model and the sizing agree.
func TestCapacityLatencyMatchesSizing(t *testing.T) {
	for _, tc := range []struct {
		rate    float64
		s, slo  time.Duration
		sp      Spread
		replica int
	}{{50, 200 * time.Millisecond, 500 * time.Millisecond, Constant, 12}, {1000, 50 * time.Millisecond, 200 * time.Millisecond, Constant, 51},
		{500, 30 * time.Millisecond, 200 * time.Millisecond, Spread{}, 16}, {9.75, time.Second, 5 * time.Second, Spread{}, 12},
		{20, time.Second, 12 * time.Second, Spread{CV: 2, Source: "test"}, 22}} {
		r, err := Capacity(CapacityOptions{Rate: tc.rate, ServiceTime: tc.s, Spread: tc.sp, Quantile: 0.99, SLO: tc.slo})
		if err != nil {
			t.Fatal(err)
		}
		if r.Replicas != tc.replica {
			t.Errorf("Capacity(%v/s, %v).Replicas = %d, want %d", tc.rate, tc.s, r.Replicas, tc.replica)
		}
		p99 := r.Latency[3]
		if p99.Quantile != 0.99 || p99.Response > tc.slo {
			t.Errorf("Capacity(%v/s, %v) p99 = %v, want ≤ %v", tc.rate, tc.s, p99.Response, tc.slo)
		}
		if fewer := ResponseQuantile(r.Replicas-1, tc.rate, tc.s, tc.sp, 0.99); fewer <= tc.slo {
			t.Errorf("ResponseQuantile(%d, %v) = %v, want > %v", r.Replicas-1, tc.rate, fewer, tc.slo)
		}
		for i := 1; i < len(r.Latency); i++ {
			if r.Latency[i].Response < r.Latency[i-1].Response {
				t.Errorf("latency quantiles not increasing: %v", r.Latency)
			}
		}
		if r.MaxRate < tc.rate || Must(ReplicasFor(r.MaxRate*1.001, tc.s, tc.sp, 0.99, tc.slo)) <= r.Replicas {
			t.Errorf("MaxRate(%d) = %v: want the edge of %d replicas", r.Replicas, r.MaxRate, r.Replicas)
		}
		if r.RuleOfThumb.QPSSource != "one replica at the SLO" || !r.RuleOfThumb.MeetsSLO || r.RuleOfThumb.ExtraGPUs < 0 {
			t.Errorf("derived rule of thumb = %+v: want a per-replica load test that over-provisions", r.RuleOfThumb)
		}
	}
}

// Must returns v, for tests whose error is checked elsewhere.
func Must[T any](v T, _ error) T { return v }

func TestCapacityBadInput(t *testing.T) {
	base := CapacityOptions{Rate: 500, ServiceTime: 30 * time.Millisecond, Quantile: 0.99, SLO: 200 * time.Millisecond}
	cases := []struct {
		name string
		edit func(*CapacityOptions)
		want string
	}{
		{"service over SLO", func(o *CapacityOptions) { o.ServiceTime = 300 * time.Millisecond }, "raise the SLO to at least 1.382s"},
		{"constant service over SLO", func(o *CapacityOptions) { o.ServiceTime, o.Spread = 300*time.Millisecond, Constant }, "raise the SLO to at least 300ms"},
		{"too many replicas", func(o *CapacityOptions) { o.MaxReplicas = 10 }, "10 replicas serve at most"},
		{"negative headroom", func(o *CapacityOptions) { o.Headroom = -1 }, "headroom"},
		{"bad quantile", func(o *CapacityOptions) { o.Quantile = 1 }, "quantile"},
	}
	for _, tc := range cases {
		o := base
		tc.edit(&o)
		_, err := Capacity(o)
		var e *gpucost.Error
		if err == nil || !errors.As(err, &e) || e.Code != gpucost.EInvalid || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Capacity = %v; want an EInvalid error with %q", tc.name, err, tc.want)
		}
	}
}
