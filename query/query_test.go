package query_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/internal/storetest"
	"github.com/gpucost/gpucost/query"
	"github.com/gpucost/gpucost/sqlite"
)

// settings is a store's settings in memory.
type settings map[string]string

func (s settings) Setting(_ context.Context, key, def string) (string, error) {
	if v, ok := s[key]; ok {
		return v, nil
	}
	return def, nil
}

func (s settings) SetSetting(_ context.Context, key, value string) error {
	s[key] = value
	return nil
}

func TestIdleBelow(t *testing.T) {
	ctx := context.Background()
	st := settings{}
	if got, err := query.IdleBelow(ctx, st); err != nil || got != query.DefaultIdleBelow || st["idle_below"] != "5" {
		t.Errorf("IdleBelow(empty store) = %v, %v, stored %q; want %v recorded as \"5\"", got, err, st["idle_below"], query.DefaultIdleBelow)
	}
	st["idle_below"] = "2.5"
	if got, err := query.IdleBelow(ctx, st); err != nil || got != 2.5 {
		t.Errorf("IdleBelow(idle_below=2.5) = %v, %v; want 2.5", got, err)
	}
	st["idle_below"] = "low"
	if _, err := query.IdleBelow(ctx, st); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("IdleBelow(idle_below=low) = %v; want an invalid error", err)
	}
}

func TestBillPeriod(t *testing.T) {
	from := time.Date(2026, 11, 3, 17, 42, 0, 0, time.UTC)
	to := time.Date(2026, 11, 10, 9, 0, 0, 0, time.UTC)
	p, err := query.BillPeriod(from, to)
	if err != nil || !p.Start.Equal(time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)) || !p.End.Equal(to) {
		t.Errorf("BillPeriod(%v, %v) = %v, %v; want from the 3rd's midnight to %v", from, to, p, err, to)
	}
	if _, err := query.BillPeriod(to, from); err == nil {
		t.Errorf("BillPeriod(%v, %v) = nil error; want the reversed period refused", to, from)
	}
}

// openStore returns a SQLite store holding an hour of one A100 at 40% and a MIG slice of
// another at 10%, starting at storetest.RollT0.
func openStore(t *testing.T) *sqlite.DB {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "gpucost.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	whole := gpucost.GPU{UUID: "GPU-1", Host: "h1", Model: "NVIDIA A100-SXM4-80GB"}
	slice := gpucost.GPU{UUID: "MIG-2", Host: "h2", Model: "NVIDIA A100-SXM4-80GB MIG 1g.10gb", Parent: "GPU-2", Profile: "1g.10gb"}
	var samples []gpucost.Sample
	for m := range 60 {
		for _, g := range []struct {
			gpu  gpucost.GPU
			util float64
			ns   string
		}{{whole, 40, "train"}, {slice, 10, "serve"}} {
			s := gpucost.NewSample(storetest.RollT0.Add(time.Duration(m)*time.Minute+time.Second), g.gpu)
			s.Util, s.Labels = g.util, gpucost.Labels{"namespace": g.ns}
			samples = append(samples, s)
		}
	}
	if _, err := db.WriteRollups(ctx, storetest.RollupsOf(samples)); err != nil {
		t.Fatal(err)
	}
	return db
}

func TestReport(t *testing.T) {
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
	if r.Options.From != p.Start || r.Options.To != p.End || r.Options.IdleThreshold != query.DefaultIdleBelow {
		t.Errorf("Open(%v).Options = %+v; want the period and the default idle threshold", p, r.Options)
	}

	var hours, minutes int
	if err := r.Scan(ctx, time.Hour, func(*gpucost.Rollup) { hours++ }); err != nil {
		t.Fatal(err)
	}
	if err := r.Scan(ctx, time.Minute, func(*gpucost.Rollup) { minutes++ }); err != nil {
		t.Fatal(err)
	}
	// The hourly scan starts at the hour holding the period's start; the minute scan at its minute.
	if hours != 2 || minutes != 2*30 {
		t.Errorf("Scan = %d hourly, %d minute rollups; want 2 (one per GPU) and 60 (the last 30 minutes of each)", hours, minutes)
	}

	price := r.Pricer()
	whole, _, _ := cat.PricePerGPUHour(query.NormalizeModel("NVIDIA A100-SXM4-80GB"), "aws")
	for _, s := range []*gpucost.Series{
		{GPU: gpucost.GPU{Model: "NVIDIA A100-SXM4-80GB"}},
		{GPU: gpucost.GPU{Model: "NVIDIA A100-SXM4-80GB MIG 1g.10gb", Parent: "GPU-2", Profile: "1g.10gb"}},
	} {
		if got, ok := price(s); !ok || got != whole {
			t.Errorf("Pricer()(%q) = %v, %v; want the whole A100-80GB's %v (a MIG slice's model is its GPU's)", s.GPU.Model, got, ok, whole)
		}
	}

	// Utilisation counts the hours that start in the period.
	if r, err = query.Open(ctx, db, cat, fleet.Period{Start: storetest.RollT0, End: p.End}, "aws"); err != nil {
		t.Fatal(err)
	}
	by, _ := analyze.ParseGroupBy("namespace")
	rep, snap, err := r.Utilization(ctx, by, func(s *gpucost.Series) bool { return s.Labels["namespace"] == "train" })
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Groups) != 1 || rep.Groups[0].Key != "train" || rep.Groups[0].GPUHours != 1 || rep.Groups[0].UtilMean != 40 || snap == nil {
		t.Fatalf("Utilization(by namespace, train only) = %+v; want the train group alone, 1 GPU-hour at 40%%", rep.Groups)
	}
	if again, _ := r.Snapshot(ctx); again != snap {
		t.Errorf("Snapshot after Utilization built a second snapshot; want the first kept")
	}
}

func TestBillSnapshotEmpty(t *testing.T) {
	ctx := context.Background()
	db := openStore(t)
	cat, err := catalog.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	p := fleet.Period{Start: storetest.RollT0, End: storetest.RollT0.Add(24 * time.Hour)}
	if _, err := query.BillSnapshot(ctx, db, cat, p, "aws", nil); gpucost.ErrorCode(err) != gpucost.ENotFound {
		t.Errorf("BillSnapshot(a store without bills) = %v; want not found", err)
	}
	b, err := query.OpenBill(ctx, db, cat, fleet.SplitOptions{Period: p, Policy: gpucost.PolicyUsed})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.Recommendable(ctx); gpucost.ErrorCode(err) != gpucost.ENotFound {
		t.Errorf("Recommendable(a store without bills) = %v; want not found", err)
	}
	if _, err := query.OpenBill(ctx, db, cat, fleet.SplitOptions{Period: p, Policy: "fair"}); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("OpenBill(policy fair) = %v; want invalid", err)
	}
}
