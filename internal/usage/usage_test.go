package usage

import (
	"runtime"
	"testing"
)

func TestCPUGrowsWithWork(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("CPU and PeakRSS are read on Linux here")
	}
	before := CPU()
	x := 0
	for i := range 50_000_000 {
		x += i % 7
	}
	if after := CPU(); after <= before || x == 0 {
		t.Errorf("CPU went from %v to %v over 50 M additions", before, after)
	}
	if rss := PeakRSS(); rss < 1<<20 {
		t.Errorf("PeakRSS = %d bytes; a Go test binary holds more than 1 MiB", rss)
	}
}
