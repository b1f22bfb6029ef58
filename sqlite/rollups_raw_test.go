package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storetest"
)

// TestScanHoursByDayOwnConnection checks that ScanHoursByDay, which reads on a connection of
// its own (rawConn), reads the store sqlite.Open opened, in a folder whose name has a space,
// while the store's own connections have written its hours: every hour once, as an hour or
// within a day.
func TestScanHoursByDayOwnConnection(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "a store", "gpucost.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.WriteRollups(ctx, storetest.RollupsOf(storetest.FleetSamples(5, 50*time.Hour, 30*time.Second))); err != nil {
		t.Fatal(err)
	}
	var first time.Time
	if err := db.ScanRollups(ctx, time.Hour, gpucost.RollupFilter{}, func(r *gpucost.Rollup) error {
		if first.IsZero() || r.Start.Before(first) {
			first = r.Start
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// From mid-way through the first day: its hours are read as hours, the next days as days.
	f := gpucost.RollupFilter{From: first.Truncate(24 * time.Hour).Add(13 * time.Hour)}
	want := 0
	if err := db.ScanRollups(ctx, time.Hour, f, func(*gpucost.Rollup) error {
		want++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var hours, days, inDays int
	err = db.ScanHoursByDay(ctx, f, time.Time{}, time.Time{},
		func(*gpucost.Rollup) error { hours++; return nil },
		func(d *gpucost.DayRollup) error { days++; inDays += len(d.Hours); return nil })
	if err != nil {
		t.Fatalf("ScanHoursByDay = %v", err)
	}
	if hours+inDays != want || days == 0 || hours == 0 {
		t.Errorf("ScanHoursByDay(from %s) gave %d hours and %d days of %d hours, want %d hours in all, some in days and some not",
			f.From, hours, days, inDays, want)
	}
}

// TestRawConnErrors checks that a rawConn names what failed: a file that is not there (it
// creates none) and a query SQLite cannot prepare.
func TestRawConnErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.db")
	if c, err := openRaw(missing); err == nil {
		c.Close()
		t.Errorf("openRaw(%s) = nil error, want one", missing)
	} else if !strings.Contains(err.Error(), missing) {
		t.Errorf("openRaw(%s) = %v, want the path named", missing, err)
	}
	path := filepath.Join(t.TempDir(), "gpucost.db")
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c, err := openRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.prepare(`SELECT key, data FROM no_such_table WHERE key >= ? AND key < ?`); err == nil ||
		!strings.Contains(err.Error(), "no_such_table") {
		t.Errorf("prepare of a query over a missing table = %v, want an error naming it", err)
	}
}
