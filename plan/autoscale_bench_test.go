package plan

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// diurnalTrace is days of traffic at 1 s resolution: a daily cycle between 20% and 100% of
// peak, a weekday/weekend swing, and Poisson noise, seeded.
func diurnalTrace(days int, peak float64) []float64 {
	rng := rand.New(rand.NewPCG(7, 30))
	rates := make([]float64, days*86400)
	for i := range rates {
		day := i / 86400
		h := float64(i%86400) / 3600
		level := 0.6 - 0.4*math.Cos(2*math.Pi*(h-3)/24) // low at 03:00, high at 15:00
		if day%7 >= 5 {
			level *= 0.6
		}
		mean := peak * level
		rates[i] = max(0, mean+math.Sqrt(mean)*rng.NormFloat64()) // one second's count
	}
	return rates
}

// BenchmarkAutoscale30Days simulates 30 days at 1 s resolution (2.6 M intervals) under the
// predictive policy and target tracking; the target is under 5 s per run.
func BenchmarkAutoscale30Days(b *testing.B) {
	rates := diurnalTrace(30, 400)
	for _, p := range []Policy{Predictive, TargetTracking} {
		b.Run(string(p), func(b *testing.B) {
			o := AutoscaleOptions{Start: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), Step: time.Second, Rates: rates,
				ServiceTime: 50 * time.Millisecond, Quantile: 0.99, SLO: 400 * time.Millisecond, Policy: p}
			for b.Loop() {
				if _, err := Autoscale(o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("compare-all", func(b *testing.B) {
		o := AutoscaleOptions{Start: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), Step: time.Second, Rates: rates,
			ServiceTime: 50 * time.Millisecond, Quantile: 0.99, SLO: 400 * time.Millisecond}
		for b.Loop() {
			if _, err := CompareAutoscale(o); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestMinServersIsTheFewest checks the incremental search against ResponseTail, which computes
// Erlang C afresh: the count meets the SLO and one fewer does not.
func TestMinServersIsTheFewest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	spreads := []Spread{{}, Constant, {CV: 0.5, Source: "test"}, {CV: 2, Source: "test"}}
	for range 500 {
		rate := math.Exp(rng.Float64()*10 - 4)
		s := time.Duration(1+rng.IntN(2000)) * time.Millisecond
		slo := s + time.Duration(rng.IntN(8000))*time.Millisecond
		q := []float64{0.5, 0.9, 0.99, 0.999}[rng.IntN(4)]
		sp := spreads[rng.IntN(len(spreads))]
		if ServiceTail(s, sp, slo) >= 1-q {
			continue
		}
		got := minServers(rate, s, sp, q, slo)
		if got == 0 || ResponseTail(got, rate, s, sp, slo) > 1-q || got > 1 && ResponseTail(got-1, rate, s, sp, slo) <= 1-q {
			t.Fatalf("minServers(%v, %v, %v, %v, %v) = %d: P(T > SLO) = %v there, %v with one fewer", rate, s, sp, q, slo, got,
				ResponseTail(got, rate, s, sp, slo), ResponseTail(got-1, rate, s, sp, slo))
		}
	}
}
