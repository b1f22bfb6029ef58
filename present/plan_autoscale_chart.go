package present

import (
	"fmt"
	"time"

	"github.com/gpucost/gpucost/internal/chart"
	"github.com/gpucost/gpucost/plan"
)

// chartPoints is the most points a chart line gets: long traces are reduced to the largest
// value of each run of intervals, so peaks stay visible.
const chartPoints = 2000

// AutoscaleChart is plan autoscale --chart: the demand — the offered load in replicas' worth,
// λ·S per replica — and each run's replicas against time.
func AutoscaleChart(o plan.AutoscaleOptions, runs []plan.AutoscaleResult) chart.Line {
	c := chart.Line{
		Title:  fmt.Sprintf("Demand against replicas (%v per request, p%g ≤ %v)", o.ServiceTime, o.Quantile*100, o.SLO),
		XLabel: "hours since " + o.Start.Format(time.DateTime) + " UTC",
		YLabel: "replicas",
	}
	perReplica := o.ServiceTime.Seconds() / float64(max(1, o.Concurrency))
	demand := make([]float64, len(o.Rates))
	for i, r := range o.Rates {
		demand[i] = r * perReplica
	}
	c.Series = append(c.Series, chartXY("demand (λ·S per replica)", demand, o.Step))
	for _, r := range runs {
		ys := make([]float64, len(r.Replicas))
		for i, n := range r.Replicas {
			ys[i] = float64(n)
		}
		c.Series = append(c.Series, chartXY(r.Label(), ys, o.Step))
	}
	return c
}

// chartXY reduces ys to at most chartPoints points, each run's largest value, at hours.
func chartXY(label string, ys []float64, step time.Duration) chart.Series {
	k := max(1, (len(ys)+chartPoints-1)/chartPoints)
	out := chart.Series{Label: label, X: make([]float64, 0, len(ys)/k+1), Y: make([]float64, 0, len(ys)/k+1)}
	for i := 0; i < len(ys); i += k {
		peak := ys[i]
		for _, y := range ys[i:min(i+k, len(ys))] {
			peak = max(peak, y)
		}
		out.X = append(out.X, (time.Duration(i) * step).Hours())
		out.Y = append(out.Y, peak)
	}
	return out
}
