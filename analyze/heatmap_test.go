package analyze

import (
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// The heatmap has a row per GPU, each hour's mean utilisation to a tenth, -1 where no sample.
func TestHeatmap(t *testing.T) {
	from := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	a := &gpucost.Series{GPU: gpucost.GPU{UUID: "GPU-a", Host: "h1", Model: "m"}}
	b := &gpucost.Series{GPU: gpucost.GPU{UUID: "GPU-b", Host: "h0", Model: "m"}}
	h := NewHeatmap("gpu", from, from.Add(3*time.Hour), nil)
	h.Add(&gpucost.Rollup{Series: a, Start: from, Width: time.Hour, Samples: 3, UtilSum: 100})
	h.Add(&gpucost.Rollup{Series: a, Start: from.Add(2 * time.Hour), Width: time.Hour, Samples: 1, UtilSum: 50})
	h.Add(&gpucost.Rollup{Series: b, Start: from.Add(time.Hour), Width: time.Hour, Samples: 2, UtilSum: 20})
	h.Add(&gpucost.Rollup{Series: b, Start: from.Add(5 * time.Hour), Width: time.Hour, Samples: 2, UtilSum: 20}) // outside
	got := h.Result()
	if len(got.Hours) != 3 || len(got.Rows) != 2 {
		t.Fatalf("Result() = %+v; want 3 hours, 2 rows", got)
	}
	for i, want := range []struct {
		key  string
		util []float64
	}{{"GPU-b", []float64{-1, 10, -1}}, {"GPU-a", []float64{33.3, -1, 50}}} {
		r := got.Rows[i]
		if r.Key != want.key || len(r.Util) != 3 || r.Util[0] != want.util[0] || r.Util[1] != want.util[1] || r.Util[2] != want.util[2] {
			t.Errorf("row %d = %s %v; want %s %v", i, r.Key, r.Util, want.key, want.util)
		}
	}
}
