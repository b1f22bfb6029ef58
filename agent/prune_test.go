package agent_test

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/agent"
	"github.com/gpucost/gpucost/sqlite"
	"github.com/gpucost/gpucost/telemetry"
)

func TestPruningSinkDropsOldMinutesKeepsHours(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	t0 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	now := t0
	w := &telemetry.Writer{Store: db, IdleBelow: 5}
	sink := &agent.PruningSink{Writer: w, Store: db, Retention: telemetry.Retention{Minutes: 14 * 24 * time.Hour},
		Now: func() time.Time { return now }, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for m := range 5 {
		s := gpucost.NewSample(t0.Add(time.Duration(m)*time.Minute), gpucost.GPU{UUID: "GPU-a", Host: "h", Model: "NVIDIA L4"})
		s.Util = 50
		if err := sink.Add(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := sink.Close(ctx); err != nil {
		t.Fatal(err)
	}
	count := func(width time.Duration) int {
		n := 0
		db.ScanRollups(ctx, width, gpucost.RollupFilter{}, func(*gpucost.Rollup) error { n++; return nil })
		return n
	}
	if got := count(time.Minute); got != 5 {
		t.Fatalf("stored %d minute rollups, want 5", got)
	}
	now = t0.Add(15 * 24 * time.Hour)
	if err := sink.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if m, h := count(time.Minute), count(time.Hour); m != 0 || h != 1 {
		t.Errorf("after 15 days: %d minute and %d hour rollups, want 0 and 1", m, h)
	}
}
