package demo

import (
	"bytes"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry/dcgm"
)

// TestWriteScrapes: the scrapes read back as the fleet's samples, and hour ticks once per hour
// boundary crossed.
func TestWriteScrapes(t *testing.T) {
	from := time.Date(2026, 3, 2, 14, 30, 0, 0, time.UTC)
	end := from.Add(90 * time.Minute)
	var buf bytes.Buffer
	hours := 0
	if err := WriteScrapes(&buf, Fleet(), from, end, func() { hours++ }); err != nil {
		t.Fatal(err)
	}
	want := 0
	Samples(Fleet(), from, end, time.Minute, func(gpucost.Sample) { want++ })
	got := 0
	st, err := dcgm.Read(&buf, "demo.prom", dcgm.ReadOptions{}, func(gpucost.Sample) { got++ })
	if err != nil || st.Skipped > 0 || got != want || want == 0 {
		t.Errorf("WriteScrapes read back %d samples (%d skipped, %v); want the fleet's %d", got, st.Skipped, err, want)
	}
	if hours != 1 {
		t.Errorf("WriteScrapes from 14:30 to 16:00 called hour %d times; want 1 (15:00)", hours)
	}
}
