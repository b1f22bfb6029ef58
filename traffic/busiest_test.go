package traffic

import (
	"testing"
	"time"
)

// TestBusiest finds the first interval of the highest rate, and the start of a silent trace.
func TestBusiest(t *testing.T) {
	start := time.Date(2024, 5, 10, 0, 0, 0, 0, time.UTC)
	tr := &Trace{Start: start, Step: time.Minute, Rates: []float64{1, 7, 3, 7}}
	if rate, at := tr.Busiest(); rate != 7 || !at.Equal(start.Add(time.Minute)) {
		t.Errorf("Busiest() = %v, %v; want 7 at %v", rate, at, start.Add(time.Minute))
	}
	silent := &Trace{Start: start, Step: time.Minute, Rates: []float64{0, 0}}
	if rate, at := silent.Busiest(); rate != 0 || !at.Equal(start) {
		t.Errorf("Busiest(silent) = %v, %v; want 0 at the start", rate, at)
	}
}
