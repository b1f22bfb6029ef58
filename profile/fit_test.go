package profile

import "testing"

// TestCheapestFit: the fit holds the VRAM peak with 20% headroom; a run that used no memory has
// none, and neither has one no catalog GPU holds.
func TestCheapestFit(t *testing.T) {
	fit := CheapestFit(Result{MemPeakMiB: 20 * 1024})
	if fit == nil || fit.NeedGB != 24 || fit.MemoryGB < 24 || fit.PerGPUHour == "" || fit.InstanceType == "" {
		t.Errorf("CheapestFit(20 GiB peak) = %+v; want a GPU of 24 GB or more with its price and instance", fit)
	}
	if fit := CheapestFit(Result{}); fit != nil {
		t.Errorf("CheapestFit(no memory) = %+v, want nil", fit)
	}
	if fit := CheapestFit(Result{MemPeakMiB: 10_000 * 1024}); fit != nil {
		t.Errorf("CheapestFit(10 TB) = %+v, want nil", fit)
	}
}
