package analyze

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/gpucost/gpucost"
)

// Heatmap is hourly utilisation per GPU or host: Util[row][hour] in percent, or -1 for an
// hour without samples.
type Heatmap struct {
	By    string       `json:"by"`
	Hours []time.Time  `json:"hours"`
	Rows  []HeatmapRow `json:"rows"`
}

// HeatmapRow is one GPU's or host's hours.
type HeatmapRow struct {
	Key   string    `json:"key"`
	Host  string    `json:"host,omitempty"`
	Model string    `json:"model,omitempty"`
	Util  []float64 `json:"util"`
}

// HeatmapBuilder sums each row's hourly utilisation.
type HeatmapBuilder struct {
	by        string
	from      time.Time // the first hour
	hours     int
	rows      map[string]*heatRow
	normalize func(string) string
}

type heatRow struct {
	row     HeatmapRow
	sum     []float64
	samples []int
}

// NewHeatmap returns a builder of the heatmap of [from, to) with a row per "gpu" or "host"
// (by), models named through normalize (nil keeps the driver's names).
func NewHeatmap(by string, from, to time.Time, normalize func(string) string) *HeatmapBuilder {
	from = from.UTC().Truncate(time.Hour)
	n := int((to.Sub(from) + time.Hour - 1) / time.Hour)
	if normalize == nil {
		normalize = func(s string) string { return s }
	}
	return &HeatmapBuilder{by: by, from: from, hours: max(n, 0), rows: map[string]*heatRow{}, normalize: normalize}
}

// Add adds an hour rollup.
func (h *HeatmapBuilder) Add(r *gpucost.Rollup) {
	i := int(r.Start.Sub(h.from) / time.Hour)
	if i < 0 || i >= h.hours || r.Samples == 0 {
		return
	}
	key := r.Series.GPU.UUID
	if h.by == "host" {
		key = r.Series.GPU.Host
	}
	row := h.rows[key]
	if row == nil {
		row = &heatRow{row: HeatmapRow{Key: key, Host: r.Series.GPU.Host, Model: h.normalize(r.Series.GPU.Model)},
			sum: make([]float64, h.hours), samples: make([]int, h.hours)}
		h.rows[key] = row
	} else if row.row.Model != "" && row.row.Model != h.normalize(r.Series.GPU.Model) {
		row.row.Model = "" // a host of several models
	}
	row.sum[i] += r.UtilSum
	row.samples[i] += r.Samples
}

// Result returns the rows by host, then key, each hour's mean to a tenth of a percent.
func (h *HeatmapBuilder) Result() Heatmap {
	out := Heatmap{By: h.by, Hours: make([]time.Time, h.hours), Rows: make([]HeatmapRow, 0, len(h.rows))}
	for i := range out.Hours {
		out.Hours[i] = h.from.Add(time.Duration(i) * time.Hour)
	}
	for _, row := range h.rows {
		r := row.row
		r.Util = make([]float64, h.hours)
		for i := range r.Util {
			r.Util[i] = -1
			if n := row.samples[i]; n > 0 {
				r.Util[i] = math.Round(row.sum[i]/float64(n)*10) / 10
			}
		}
		out.Rows = append(out.Rows, r)
	}
	slices.SortFunc(out.Rows, func(a, b HeatmapRow) int {
		return cmp.Or(cmp.Compare(a.Host, b.Host), cmp.Compare(a.Key, b.Key))
	})
	return out
}
