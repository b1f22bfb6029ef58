package present

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

func TestSparkline(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		in    []float64
		width int
		want  string
	}{
		{[]float64{0, 12.5, 50, 99, 100, nan}, 10, "▁▂▅██ "},
		{[]float64{100, 0, 0}, 2, "▁▁"}, // the latest values
		{nil, 5, ""},
	} {
		if got := Sparkline(c.in, c.width); got != c.want {
			t.Errorf("Sparkline(%v, %d) = %q, want %q", c.in, c.width, got, c.want)
		}
	}
}

func TestJSONKey(t *testing.T) {
	for in, want := range map[string]string{
		"$/GPU-h on-demand": "gpu_h_on_demand",
		"Idle %":            "idle",
		"USED GPU-H":        "used_gpu_h",
		"P95 (ms)":          "p95_ms",
	} {
		if got := JSONKey(in); got != want {
			t.Errorf("JSONKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestWrite: the table has its title and notes, CSV and JSON rows drop the table-only columns
// and carry the percentage as a number, and both keep stdout data-only, the notes on the other
// writer.
func TestWrite(t *testing.T) {
	tab := Table{Title: "GPUs", Columns: []string{"Model", "Idle %", "Trend"}, Rows: [][]string{{"H100", "12.5%", "▁▂"}},
		Notes: []string{"Prices: the bill."}, TableOnly: []int{2}, Right: []int{1}}
	var out, notes bytes.Buffer
	if err := Write(&out, &notes, "table", tab); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.HasPrefix(s, "GPUs\n") || !strings.Contains(s, "12.5%") || !strings.HasSuffix(s, "Prices: the bill.\n") || notes.Len() != 0 {
		t.Errorf("table:\n%s\nnotes %q", s, notes.String())
	}
	out.Reset()
	if err := Write(&out, &notes, "csv", tab); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "model,idle_pct\nH100,12.5\n"; got != want || notes.String() != "Prices: the bill.\n" {
		t.Errorf("csv %q (want %q), notes %q", got, want, notes.String())
	}
	out.Reset()
	if err := Write(&out, &notes, "json", tab); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, `"idle_pct": 12.5`) || strings.Contains(got, "trend") {
		t.Errorf("json %s", got)
	}
	if Percent(math.NaN()) != "–" || Percent(12.345) != "12.3%" || Hours(9.999) != "10.00" || Hours(12.34) != "12.3" {
		t.Errorf("Percent/Hours: %q %q %q %q", Percent(math.NaN()), Percent(12.345), Hours(9.999), Hours(12.34))
	}
}
