package fleet

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// TestSplitLines: each stored line once, or its allocations as lines that add up to it; the
// first write error stops the writing and comes back.
func TestSplitLines(t *testing.T) {
	ctx := context.Background()
	p := Period{Start: day1, End: day1.Add(24 * time.Hour)}
	split := func() *Split {
		s, err := NewSplit(ctx, fleetOf(), fakeCatalog{}, SplitOptions{Period: p, Policy: gpucost.PolicyUsed})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, allocated := range []bool{false, true} {
		var sum int64
		idle := 0
		n, err := split().Lines(ctx, allocated, func(l *gpucost.CostLine) error {
			sum += l.EffectiveCost.Nanos
			if l.Extra["x_Idle"] == "true" {
				idle++
			}
			return nil
		})
		if err != nil || sum != 365e9 {
			t.Errorf("Lines(allocated %v) = %d lines summing to %d nanos, %v; want the bill's 365e9", allocated, n, sum, err)
		}
		if want := 3; !allocated && n != want || allocated && (n <= want || idle != 1) {
			t.Errorf("Lines(allocated %v) = %d lines, %d idle; want 3 stored lines, or more with one idle row", allocated, n, idle)
		}
	}
	full := errors.New("disk full")
	n, err := split().Lines(ctx, false, func(*gpucost.CostLine) error { return full })
	if !errors.Is(err, full) || n != 1 {
		t.Errorf("Lines(failing write) = %d, %v; want 1 line tried and the write's error", n, err)
	}
}
