package fleet

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// TestExportLinesNoGPU checks that a GPU-only export of a period with bill lines but none of
// GPUs says how many lines there are and names the period as its label does, and that a period
// with no lines at all keeps the split's own error.
func TestExportLinesNoGPU(t *testing.T) {
	ctx := context.Background()
	p := Period{Start: day1, End: day1.Add(2 * 24 * time.Hour)}
	volume := &fakeStore{}
	volume.lines = append(volume.lines, gpucost.CostLine{Provider: "AWS", ResourceID: "vol-1", ChargeCategory: "Usage", ChargePeriodStart: day1,
		ChargePeriodEnd: day1.Add(24 * time.Hour), BilledCost: gpucost.USD(5e9), EffectiveCost: gpucost.USD(5e9)})
	for _, tt := range []struct {
		name    string
		st      *fakeStore
		gpuOnly bool
		rows    int
		want    string
	}{
		{"GPU-only, no GPU lines", volume, true, 0, "no GPU lines charged from 2026-11-01 to 2026-11-02 (1 bill lines are stored in the period); use --all to export every line"},
		{"every line", volume, false, 1, ""},
		{"no lines", &fakeStore{}, true, 0, "no bill lines charged from 2026-11-01 to 2026-11-02"},
	} {
		s, err := NewSplit(ctx, tt.st, fakeCatalog{}, SplitOptions{Period: p, GPUOnly: tt.gpuOnly, Policy: gpucost.PolicyUsed})
		if err != nil {
			t.Fatal(err)
		}
		n, err := s.ExportLines(ctx, false, func(*gpucost.CostLine) error { return nil })
		switch {
		case tt.want == "" && (err != nil || n != tt.rows):
			t.Errorf("%s: ExportLines = %d, %v; want %d lines", tt.name, n, err, tt.rows)
		case tt.want != "" && (gpucost.ErrorCode(err) != gpucost.ENotFound || !strings.HasPrefix(err.Error(), tt.want)):
			t.Errorf("%s: ExportLines = %d, %v\nwant %s %q", tt.name, n, err, gpucost.ENotFound, tt.want)
		}
	}
}
