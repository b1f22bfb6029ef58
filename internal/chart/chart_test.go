package chart

import (
	"bytes"
	"image/png"
	"math"
	"reflect"
	"strings"
	"testing"
)

func demo() Line {
	return Line{Title: "Demand against replicas (p99 ≤ 5s) <&>", XLabel: "hours", YLabel: "replicas", Series: []Series{
		{Label: "demand (λ·S per replica)", X: []float64{0, 1, 2, 3}, Y: []float64{0.5, 3.2, 7.9, 2}},
		{Label: "static", X: []float64{0, 3}, Y: []float64{8, 8}},
		{Label: "oracle", X: []float64{0, 1, 2, 3}, Y: []float64{1, 4, 8, 2}},
	}}
}

func TestTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi         float64
		want           []float64
		wantLo, wantHi float64
	}{
		{0, 7.9, []float64{0, 2, 4, 6, 8}, 0, 8},
		{0, 100, []float64{0, 20, 40, 60, 80, 100}, 0, 100},
		{0, 0.15, []float64{0, 0.05, 0.1, 0.15}, 0, 0.15},
		{3, 3, []float64{3, 3.2, 3.4, 3.6, 3.8, 4}, 3, 4},
	} {
		got, lo, hi := ticks(tc.lo, tc.hi)
		if !reflect.DeepEqual(got, tc.want) || lo != tc.wantLo || hi != tc.wantHi {
			t.Errorf("ticks(%v, %v) = %v [%v, %v], want %v [%v, %v]", tc.lo, tc.hi, got, lo, hi, tc.want, tc.wantLo, tc.wantHi)
		}
	}
}

func TestSVG(t *testing.T) {
	var b bytes.Buffer
	if err := demo().SVG(&b); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{`<svg xmlns="http://www.w3.org/2000/svg" width="960" height="480"`, "p99 ≤ 5s) &lt;&amp;&gt;</text>",
		">demand (λ·S per replica)</text>", ">static</text>", ">oracle</text>", `stroke="rgb(238,46,47)"`, `stroke-dasharray="6 2"`, ">8</text>"} {
		if !strings.Contains(s, want) {
			t.Errorf("SVG() lacks %q:\n%s", want, s)
		}
	}
	if n := strings.Count(s, "<path fill=\"none\""); n != 3 {
		t.Errorf("SVG() has %d series lines, want 3", n)
	}
}

func TestPNG(t *testing.T) {
	var b bytes.Buffer
	if err := demo().PNG(&b); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&b)
	if err != nil {
		t.Fatalf("PNG() does not decode: %v", err)
	}
	if r := img.Bounds(); r.Dx() != 960 || r.Dy() != 480 {
		t.Errorf("PNG() is %v, want 960×480", r)
	}
	seen := map[[3]uint8]int{}
	for y := range 480 {
		for x := range 960 {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[[3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8)}]++
		}
	}
	for i := range 3 {
		if seen[Colors[i]] < 50 {
			t.Errorf("PNG() has %d pixels of series %d's colour %v, want a line", seen[Colors[i]], i, Colors[i])
		}
	}
	if seen[[3]uint8{0, 0, 0}] < 500 {
		t.Errorf("PNG() has %d black pixels, want axes and text", seen[[3]uint8{0, 0, 0}])
	}
}

func TestBadSeries(t *testing.T) {
	for _, s := range []Series{{Label: "short", X: []float64{1, 2}, Y: []float64{1}}, {Label: "nan", X: []float64{1}, Y: []float64{math.NaN()}}} {
		err := Line{Series: []Series{s}}.SVG(&bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), s.Label) {
			t.Errorf("SVG(%+v) = %v, want an error naming the series", s, err)
		}
	}
}

func TestASCII(t *testing.T) {
	if got, want := ascii("λ·S ≤ 5s — é"), "lambda*S <= 5s - ?"; got != want {
		t.Errorf("ascii() = %q, want %q", got, want)
	}
}
