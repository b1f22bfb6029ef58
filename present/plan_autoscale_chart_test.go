package present

import (
	"testing"
	"time"

	"github.com/gpucost/gpucost/plan"
)

// TestAutoscaleChart: the demand line is λ·S per replica, and a long trace is reduced to at
// most chartPoints points that keep its peak.
func TestAutoscaleChart(t *testing.T) {
	rates := make([]float64, 5000)
	for i := range rates {
		rates[i] = 10
	}
	rates[4321] = 100
	o := plan.AutoscaleOptions{Start: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Step: time.Minute, Rates: rates,
		ServiceTime: 200 * time.Millisecond, Concurrency: 2, Quantile: 0.99, SLO: time.Second}
	runs := []plan.AutoscaleResult{{Policy: "static", Replicas: make([]int32, len(rates))}}
	c := AutoscaleChart(o, runs)
	if len(c.Series) != 2 || c.Series[1].Label != "static" {
		t.Fatalf("AutoscaleChart gave %d series; want the demand and one run", len(c.Series))
	}
	d := c.Series[0]
	if len(d.Y) > chartPoints || len(d.X) != len(d.Y) {
		t.Errorf("demand line has %d points (%d x); want at most %d", len(d.Y), len(d.X), chartPoints)
	}
	peak := 0.0
	for _, y := range d.Y {
		peak = max(peak, y)
	}
	if peak != 10 || d.Y[0] != 1 { // 100 and 10 requests a second × 0.2 s ÷ 2 at once
		t.Errorf("demand peak %v, first %v; want 10 and 1 replicas' worth", peak, d.Y[0])
	}
}
