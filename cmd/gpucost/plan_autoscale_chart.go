package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/plan"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// chartPoints is the most points a chart line gets: long traces are reduced to the largest
// value of each run of intervals, so peaks stay visible.
const chartPoints = 2000

// writeAutoscaleChart draws the demand — the offered load in replicas' worth, λ·S per replica —
// and each run's replicas against time, as PNG or SVG by the file's extension.
func writeAutoscaleChart(name string, o plan.AutoscaleOptions, runs []plan.AutoscaleResult) error {
	ext := strings.ToLower(filepath.Ext(name))
	if ext != ".png" && ext != ".svg" {
		return gpucost.Errorf(gpucost.EInvalid, "--chart %q: give a .png or .svg file", name)
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Demand against replicas (%v per request, p%g ≤ %v)", o.ServiceTime, o.Quantile*100, o.SLO)
	p.X.Label.Text = "hours since " + o.Start.Format(time.DateTime) + " UTC"
	p.Y.Label.Text = "replicas"
	perReplica := o.ServiceTime.Seconds() / float64(max(1, o.Concurrency))
	demand := make([]float64, len(o.Rates))
	for i, r := range o.Rates {
		demand[i] = r * perReplica
	}
	lines := []any{"demand (λ·S per replica)", chartXY(demand, o.Step)}
	for _, r := range runs {
		ys := make([]float64, len(r.Replicas))
		for i, n := range r.Replicas {
			ys[i] = float64(n)
		}
		lines = append(lines, string(r.Policy), chartXY(ys, o.Step))
	}
	if err := plotutil.AddLines(p, lines...); err != nil {
		return fmt.Errorf("draw chart %s: %w", name, err)
	}
	p.Legend.Top = true
	if err := p.Save(10*vg.Inch, 5*vg.Inch, name); err != nil {
		return gpucost.Errorf(gpucost.EInvalid, "--chart %s: %w", name, err)
	}
	return nil
}

// chartXY reduces ys to at most chartPoints points, each run's largest value, at hours.
func chartXY(ys []float64, step time.Duration) plotter.XYs {
	k := max(1, (len(ys)+chartPoints-1)/chartPoints)
	out := make(plotter.XYs, 0, len(ys)/k+1)
	for i := 0; i < len(ys); i += k {
		peak := ys[i]
		for _, y := range ys[i:min(i+k, len(ys))] {
			peak = max(peak, y)
		}
		out = append(out, plotter.XY{X: (time.Duration(i) * step).Hours(), Y: peak})
	}
	return out
}
