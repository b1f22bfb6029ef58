package billimport

import (
	"runtime/debug"
	"testing"
)

// Imports side by side lower the collector's goal once and the last to finish restores it,
// whatever order they finish in; releasing twice changes nothing.
func TestTightenRestores(t *testing.T) {
	old := debug.SetGCPercent(150)
	defer debug.SetGCPercent(old)
	a := tighten()
	b := tighten()
	if got := debug.SetGCPercent(tightPercent); got != tightPercent {
		t.Errorf("GC percent while two imports hold it = %d, want %d", got, tightPercent)
	}
	a()
	a()
	if got := debug.SetGCPercent(tightPercent); got != tightPercent {
		t.Errorf("GC percent after one of two released (twice) = %d, want %d", got, tightPercent)
	}
	b()
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("GC percent after both released = %d, want 150", got)
	}
}
