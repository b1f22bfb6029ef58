package query_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/internal/storetest"
	"github.com/gpucost/gpucost/query"
)

// countingStore counts the scans of hourly rollups.
type countingStore struct {
	query.Store
	hourScans int
}

func (c *countingStore) ScanRollups(ctx context.Context, width time.Duration, f gpucost.RollupFilter, fn func(*gpucost.Rollup) error) error {
	if width == time.Hour {
		c.hourScans++
	}
	return c.Store.ScanRollups(ctx, width, f, fn)
}

// TestUtilizationReadsOnce checks that Utilization reads the hourly rollups once where it builds
// the snapshot, and that its report is the one a second scan over a built snapshot gives, with
// the hour the period starts in counted outside as Scan counts it.
func TestUtilizationReadsOnce(t *testing.T) {
	ctx := context.Background()
	cat, err := catalog.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	db := openStore(t)
	// a second hour of the A100, at 70%
	var samples []gpucost.Sample
	for m := range 60 {
		s := gpucost.NewSample(storetest.RollT0.Add(time.Hour+time.Duration(m)*time.Minute+time.Second),
			gpucost.GPU{UUID: "GPU-1", Host: "h1", Model: "NVIDIA A100-SXM4-80GB"})
		s.Util, s.Labels = 70, gpucost.Labels{"namespace": "train"}
		samples = append(samples, s)
	}
	if _, err := db.WriteRollups(ctx, storetest.RollupsOf(samples)); err != nil {
		t.Fatal(err)
	}
	st := &countingStore{Store: db}
	p := fleet.Period{Start: storetest.RollT0.Add(30 * time.Minute), End: storetest.RollT0.Add(3 * time.Hour)}
	by, _ := analyze.ParseGroupBy("namespace")
	report := func(snapshotFirst bool) ([]byte, int) {
		st.hourScans = 0
		r, err := query.Open(ctx, st, cat, p, "aws")
		if err != nil {
			t.Fatal(err)
		}
		if snapshotFirst {
			if _, err := r.Snapshot(ctx); err != nil {
				t.Fatal(err)
			}
		}
		rep, _, err := r.Utilization(ctx, by, nil)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Outside != 2 || rep.Rollups != 1 || len(rep.Groups) != 1 || rep.Groups[0].UtilMean != 70 {
			t.Errorf("Utilization(from %v, snapshot first %v) counted %d rollups, %d outside; want 1 (the A100 at 70%%) and 2, the hour the period starts in",
				p.Start, snapshotFirst, rep.Rollups, rep.Outside)
		}
		out, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		return out, st.hourScans
	}
	once, n1 := report(false)
	twice, n2 := report(true)
	if n1 != 1 || n2 != 2 {
		t.Errorf("Utilization scanned hourly rollups %d times building the snapshot, %d times after it; want 1 and 2", n1, n2)
	}
	if string(once) != string(twice) {
		t.Errorf("Utilization in one scan =\n%s\nwant, as in two,\n%s", once, twice)
	}
}
