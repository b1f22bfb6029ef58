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
				ServiceTime: 50 * time.Millisecond, Quantile: 0.99, SLO: 200 * time.Millisecond, Policy: p}
			for b.Loop() {
				if _, err := Autoscale(o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("compare-all", func(b *testing.B) {
		o := AutoscaleOptions{Start: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), Step: time.Second, Rates: rates,
			ServiceTime: 50 * time.Millisecond, Quantile: 0.99, SLO: 200 * time.Millisecond}
		for b.Loop() {
			if _, err := CompareAutoscale(o); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestMinServersIsReplicas checks the oracle's incremental search against Replicas.
func TestMinServersIsReplicas(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		rate := math.Exp(rng.Float64()*12 - 4)
		s := time.Duration(1+rng.IntN(2000)) * time.Millisecond
		slo := s + time.Duration(rng.IntN(5000))*time.Millisecond
		q := []float64{0.5, 0.9, 0.99, 0.999}[rng.IntN(4)]
		want, err := Replicas(rate, s, q, slo)
		if got := minServers(rate, s, q, slo); err != nil || got != want {
			t.Fatalf("minServers(%v, %v, %v, %v) = %d, Replicas = %d, %v", rate, s, q, slo, got, want, err)
		}
	}
}
