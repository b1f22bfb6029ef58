// Package chart draws line charts as SVG or PNG: a title, two labelled axes with round ticks,
// one line per series in its own colour and dash, and a legend at the top right. It is small
// on purpose: the one chart gpucost writes to a file (plan autoscale --chart) needs no more,
// and a plotting library with its fonts added megabytes to the binary (docs/architecture.md
// "Binary size"). PNG text uses a built-in 7×13 pixel font of printable ASCII; a few other
// characters are written as ASCII look-alikes (λ as "lambda", ≤ as "<=").
package chart

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Series is one line: points (X[i], Y[i]) in order.
type Series struct {
	Label string
	X, Y  []float64
}

// Line is a line chart. Width and Height are pixels (960×480 when zero).
type Line struct {
	Title, XLabel, YLabel string
	Series                []Series
	Width, Height         int
}

// Colors are the series' colours, in turn; Dashes their dash patterns (SVG stroke-dasharray).
var (
	Colors = [][3]uint8{{238, 46, 47}, {0, 140, 72}, {24, 90, 169}, {244, 125, 35}, {102, 44, 145}, {162, 29, 33}, {180, 56, 148}}
	Dashes = []string{"", "6 2", "2 2", "8 3 2 3", "4 4", "1 3", "10 3"}
)

// frame is a chart laid out: its plot area in pixels and the data ranges it maps.
type frame struct {
	w, h                  float64
	left, right, top, bot float64 // the plot area's edges
	x0, x1, y0, y1        float64 // data ranges
	xticks, yticks        []float64
}

const (
	charW = 7  // the PNG font's advance
	charH = 13 // and line height
)

func (c Line) layout() (frame, error) {
	f := frame{w: 960, h: 480}
	if c.Width > 0 && c.Height > 0 {
		f.w, f.h = float64(c.Width), float64(c.Height)
	}
	first := true
	for _, s := range c.Series {
		if len(s.X) != len(s.Y) {
			return f, fmt.Errorf("chart: series %q has %d x and %d y values", s.Label, len(s.X), len(s.Y))
		}
		for i := range s.X {
			x, y := s.X[i], s.Y[i]
			if math.IsNaN(x) || math.IsInf(x, 0) || math.IsNaN(y) || math.IsInf(y, 0) {
				return f, fmt.Errorf("chart: series %q point %d (%v, %v) is not a finite number", s.Label, i+1, x, y)
			}
			if first {
				f.x0, f.x1, f.y0, f.y1, first = x, x, y, y, false
			}
			f.x0, f.x1, f.y0, f.y1 = min(f.x0, x), max(f.x1, x), min(f.y0, y), max(f.y1, y)
		}
	}
	f.y0 = min(f.y0, 0) // replicas and demand start at zero
	f.xticks, f.x0, f.x1 = ticks(f.x0, f.x1)
	f.yticks, f.y0, f.y1 = ticks(f.y0, f.y1)
	ylabelW := 0
	for _, t := range f.yticks {
		ylabelW = max(ylabelW, len(tickLabel(t)))
	}
	f.left = float64(ylabelW*charW + 3*charH)
	f.right = f.w - 2*charH
	f.top = 3 * charH
	f.bot = f.h - 4*charH
	return f, nil
}

func (f frame) px(x float64) float64 { return f.left + (x-f.x0)/(f.x1-f.x0)*(f.right-f.left) }
func (f frame) py(y float64) float64 { return f.bot - (y-f.y0)/(f.y1-f.y0)*(f.bot-f.top) }

// ticks returns round tick values covering [lo, hi] (1, 2 or 5 times a power of ten apart,
// about six of them) and the range widened to the outer ticks.
func ticks(lo, hi float64) ([]float64, float64, float64) {
	if hi <= lo {
		hi = lo + 1
	}
	raw := (hi - lo) / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{2, 5, 10} {
		if step >= raw {
			break
		}
		step = m * mag
	}
	first, last := math.Floor(lo/step), math.Ceil(hi/step)
	var out []float64
	for k := first; k <= last; k++ {
		out = append(out, round(k*step))
	}
	return out, round(first * step), round(last * step)
}

// round drops the binary noise of a product such as 3 × 0.05.
func round(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
	return r
}

// tickLabel writes a tick value without needless digits.
func tickLabel(v float64) string {
	if v == 0 {
		return "0"
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// ascii is s with the characters the PNG font lacks written as look-alikes.
func ascii(s string) string {
	s = strings.NewReplacer("λ", "lambda", "≤", "<=", "≥", ">=", "·", "*", "—", "-", "–", "-", "×", "x", "μ", "u").Replace(s)
	return strings.Map(func(r rune) rune {
		if r < ' ' || r > '~' {
			return '?'
		}
		return r
	}, s)
}
