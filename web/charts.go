package web

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/gpucost/gpucost"
)

// The chart types below are what a page puts, as JSON, in a <script type="application/json">
// block for static/app.js to draw. Amounts are numbers only to place marks: every amount a
// person reads comes formatted from gpucost.Money, in Labels or in the page's tables.

// lineChart is drawn by uPlot: a time axis and series of values, nil where there is none.
type lineChart struct {
	X      []int64      `json:"x"` // Unix seconds
	Series []lineSeries `json:"series"`
	Unit   string       `json:"unit"` // "$" for amounts
}

// lineSeries is one of a lineChart's series.
type lineSeries struct {
	Label  string     `json:"label"`
	Style  string     `json:"style"` // "bars", "line" or "dash"
	Color  string     `json:"color"`
	Values []*float64 `json:"values"`
	Labels []string   `json:"labels,omitempty"` // the values as Money formats them, for the legend
}

// Points counts the values the chart should draw.
func (c lineChart) Points() int {
	n := 0
	for _, s := range c.Series {
		for _, v := range s.Values {
			if v != nil {
				n++
			}
		}
	}
	return n
}

// heatmapChart is drawn by ECharts: Cells are [x, y, value] for the cells that have a value.
type heatmapChart struct {
	X     []string `json:"x"`
	Y     []string `json:"y"`
	Cells cells    `json:"cells"`
	Min   float64  `json:"min"`
	Max   float64  `json:"max"`
	Unit  string   `json:"unit"`
}

// cells are heatmap cells, [x, y, value]; they encode by hand, as a large heatmap holds
// hundreds of thousands of numbers.
type cells [][3]float64

// MarshalJSON writes the cells as an array of [x, y, value] arrays.
func (cs cells) MarshalJSON() ([]byte, error) { return cs.appendJSON(nil) }

func (cs cells) appendJSON(b []byte) ([]byte, error) {
	b = slices.Grow(b, 16*len(cs)+2)
	b = append(b, '[')
	for i, c := range cs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(c[0]), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(c[1]), 10)
		b = append(b, ',')
		if math.IsNaN(c[2]) || math.IsInf(c[2], 0) {
			return nil, fmt.Errorf("heatmap cell %v: not a number", c)
		}
		b = strconv.AppendFloat(b, c[2], 'f', -1, 64)
		b = append(b, ']')
	}
	return append(b, ']'), nil
}

// MarshalJSON encodes the chart; chartJSON calls it directly, so the cells, numbers only,
// are not scanned again by encoding/json.
func (c heatmapChart) MarshalJSON() ([]byte, error) {
	head, err := json.Marshal(struct {
		X    []string `json:"x"`
		Y    []string `json:"y"`
		Min  float64  `json:"min"`
		Max  float64  `json:"max"`
		Unit string   `json:"unit"`
	}{c.X, c.Y, c.Min, c.Max, c.Unit})
	if err != nil {
		return nil, err
	}
	b := append(head[:len(head)-1], `,"cells":`...)
	if b, err = c.Cells.appendJSON(b); err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

// Points counts the cells.
func (c heatmapChart) Points() int { return len(c.Cells) }

// stackedChart is drawn by ECharts: one bar series per group, stacked per X.
type stackedChart struct {
	X      []string     `json:"x"`
	Series []stackGroup `json:"series"`
	Unit   string       `json:"unit"`
}

// stackGroup is one stacked series.
type stackGroup struct {
	Name   string    `json:"name"`
	Values []float64 `json:"values"`
	Labels []string  `json:"labels"`
}

// Points counts the bars.
func (c stackedChart) Points() int {
	n := 0
	for _, s := range c.Series {
		n += len(s.Values)
	}
	return n
}

// Series colours, shared by both chart libraries.
const (
	colorSpend    = "#2f6fdf"
	colorForecast = "#e08a1e"
	colorBudget   = "#c23b3b"
)

func amount(m gpucost.Money) *float64 {
	f := float(m)
	return &f
}

// days returns the midnights from start up to end (exclusive).
func days(start, end time.Time) []time.Time {
	var out []time.Time
	for d := start.UTC().Truncate(day); d.Before(end); d = d.Add(day) {
		out = append(out, d)
	}
	return out
}

func unixDays(ds []time.Time) []int64 {
	x := make([]int64, len(ds))
	for i, d := range ds {
		x[i] = d.Unix()
	}
	return x
}
