package query_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/internal/storetest"
	"github.com/gpucost/gpucost/query"
)

// TestUsageByHour checks the hourly on-demand cost of the store's hour: the whole A100 and the
// MIG slice in the first hour, nothing in the second, counted from the hour holding the start.
func TestUsageByHour(t *testing.T) {
	ctx := context.Background()
	db := openStore(t)
	cat, err := catalog.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	p := fleet.Period{Start: storetest.RollT0.Add(30 * time.Minute), End: storetest.RollT0.Add(2 * time.Hour)}
	r, err := query.Open(ctx, db, cat, p, "aws")
	if err != nil {
		t.Fatal(err)
	}
	u, err := r.UsageByHour(ctx)
	if err != nil {
		t.Fatalf("UsageByHour = %v", err)
	}
	whole, _, _ := cat.PricePerGPUHour(query.NormalizeModel("NVIDIA A100-SXM4-80GB"), "aws")
	dollar := float64(whole.Nanos) / 1e9
	if !u.From.Equal(storetest.RollT0) || len(u.Dollars) != 2 {
		t.Fatalf("UsageByHour(%v) = from %v, %d hours; want from %v, 2 hours", p, u.From, len(u.Dollars), storetest.RollT0)
	}
	// Each series' hour of samples is a GPU-hour (gpucost.Rollup.GPUHours), the MIG slice's
	// too, at the whole A100's price.
	if want := 2 * dollar; math.Abs(u.Dollars[0]-want) > 1e-9 || u.Dollars[1] != 0 {
		t.Errorf("UsageByHour = %v; want [%v 0]: two GPU-hours at %v in the first hour, none in the second", u.Dollars, want, dollar)
	}
}
