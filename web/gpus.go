package web

import (
	"math"
	"net/http"

	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/httpapi"
)

// gpusPage is the utilisation heatmap per GPU or host, the utilisation table and the alerts
// that fired over the period.
type gpusPage struct {
	Heatmap heatmapChart
	Report  analyze.Report
	Alerts  analyze.AlertReport
	Firing  int
	NoData  int // alerts whose GPUs stopped reporting: not resolved
}

func loadGPUs(s *site, r *http.Request, q query) (any, error) {
	ctx := r.Context()
	hm, err := s.d.Views.Heatmap(ctx, q.Query)
	if err != nil {
		return nil, err
	}
	rep, err := s.d.Views.GPUs(ctx, q.Query)
	if err != nil {
		return nil, err
	}
	al, err := s.d.Views.Alerts(ctx, q.Query)
	if err != nil {
		return nil, err
	}
	p := gpusPage{Heatmap: heatmap(hm), Report: rep, Alerts: al}
	for _, a := range al.Alerts {
		switch a.State {
		case analyze.Firing:
			p.Firing++
		case analyze.AlertNoData:
			p.NoData++
		}
	}
	return p, nil
}

// heatmap turns hourly utilisation rows into heatmap cells, leaving out hours without samples.
func heatmap(h httpapi.Heatmap) heatmapChart {
	c := heatmapChart{Min: 0, Max: 100, Unit: "%", X: make([]string, len(h.Hours)), Y: make([]string, len(h.Rows)), Cells: cells{}}
	for i, t := range h.Hours {
		c.X[i] = t.UTC().Format("Jan 2 15:00")
	}
	for y, row := range h.Rows {
		c.Y[y] = rowLabel(h.By, row)
		for x, u := range row.Util {
			if u < 0 || math.IsNaN(u) || x >= len(h.Hours) {
				continue
			}
			c.Cells = append(c.Cells, [3]float64{float64(x), float64(y), math.Round(u*10) / 10})
		}
	}
	return c
}

// rowLabel names a heatmap row: a GPU by its host and the start of its UUID.
func rowLabel(by string, row httpapi.HeatmapRow) string {
	if by == "host" || row.Host == "" {
		return row.Key
	}
	key := row.Key
	if len(key) > 12 {
		key = key[:12] + "…"
	}
	return row.Host + " " + key
}
