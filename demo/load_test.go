package demo

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/sqlite"
	"github.com/gpucost/gpucost/telemetry"
)

func openStore(t *testing.T) gpucost.Store {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "demo.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestLoadMarksWhatItHolds: a store holds a load once MarkLoaded says so, and only that load
// (another end or length of the same fleet is not it).
func TestLoadMarksWhatItHolds(t *testing.T) {
	ctx := context.Background()
	db := openStore(t)
	end := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	l := Load{End: end, Days: 2}
	if got := l.From(); !got.Equal(end.Add(-48 * time.Hour)) {
		t.Errorf("Load{%v, 2}.From() = %v, want two days before", end, got)
	}
	if done, err := l.Loaded(ctx, db); err != nil || done {
		t.Fatalf("Loaded on an empty store = %v, %v; want false", done, err)
	}
	if err := l.MarkLoaded(ctx, db); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		l    Load
		want bool
	}{
		{"the same load", l, true},
		{"another end", Load{End: end.Add(time.Hour), Days: 2}, false},
		{"another length", Load{End: end, Days: 3}, false},
	} {
		if done, err := c.l.Loaded(ctx, db); err != nil || done != c.want {
			t.Errorf("%s: Loaded = %v, %v; want %v", c.name, done, err, c.want)
		}
	}
}

// TestImportTelemetryStoresTheFleet: a load's telemetry goes into the store through the
// writer, each GPU's minutes once; importing it again stores nothing new.
func TestImportTelemetryStoresTheFleet(t *testing.T) {
	ctx := context.Background()
	db := openStore(t)
	l := Load{End: time.Date(2026, 11, 20, 2, 0, 0, 0, time.UTC), Days: 1}
	fleet := Fleet()[:2]
	hours := 0
	st, err := l.ImportTelemetry(ctx, &telemetry.Writer{Store: db, IdleBelow: 5}, fleet, func() { hours++ })
	if err != nil {
		t.Fatal(err)
	}
	wantSamples := GPUs(fleet) * 24 * 60
	if st.Samples != wantSamples || st.Rollups == 0 || st.Repeated != 0 || hours != 23 {
		t.Errorf("ImportTelemetry = %+v with %d hour ticks; want %d samples, rollups written, none repeated, 23 ticks",
			st, hours, wantSamples)
	}
	again, err := l.ImportTelemetry(ctx, &telemetry.Writer{Store: db, IdleBelow: 5}, fleet, func() {})
	if err != nil || again.Rollups != 0 || again.Repeated != st.Rollups {
		t.Errorf("ImportTelemetry again = %+v, %v; want all %d rollups already stored", again, err, st.Rollups)
	}
}

// TestWriteBillAndServing: the bill is a FOCUS CSV of the fleet's running hours, and the
// serving file names the requests file beside it.
func TestWriteBillAndServing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	files := FilesAt(filepath.Join(dir, "demo"))
	if files.Bill != filepath.Join(dir, "demo-bill.focus.csv") || files.Budgets != filepath.Join(dir, "demo-budgets.yaml") {
		t.Errorf("FilesAt(%s/demo) = %+v", dir, files)
	}
	l := Load{End: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC), Days: 1}
	fleet := Fleet()
	if err := l.WriteBill(ctx, nil, files.Bill, fleet); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(files.Bill)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := 1 // the header
	for _, in := range fleet {
		for h := range 24 {
			if in.Running(l.From().Add(time.Duration(h) * time.Hour)) {
				want += 2 // the instance and its volume
			}
		}
	}
	if len(rows) != want {
		t.Errorf("WriteBill wrote %d rows; want %d (a header and two lines per running instance-hour)", len(rows), want)
	}
	if err := l.WriteServing(files, fleet); err != nil {
		t.Fatal(err)
	}
	yaml, err := os.ReadFile(files.Serving)
	if err != nil || !strings.Contains(string(yaml), "requests: demo-requests.csv") {
		t.Errorf("serving file = %q, %v; want it to name demo-requests.csv", yaml, err)
	}
	if err := WriteBudgets(files.Budgets); err != nil {
		t.Fatal(err)
	}
}

// TestNewTokenRevokesTheLastOne: each demo run leaves one valid demo token, an admin's.
func TestNewTokenRevokesTheLastOne(t *testing.T) {
	ctx := context.Background()
	db := openStore(t)
	now := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	first, err := NewToken(ctx, db, now)
	if err != nil {
		t.Fatal(err)
	}
	second, err := NewToken(ctx, db, now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if first == second {
		t.Fatalf("NewToken gave the same secret twice")
	}
	toks, err := db.Tokens(ctx)
	if err != nil {
		t.Fatal(err)
	}
	valid := 0
	for _, tok := range toks {
		if tok.Name != TokenName || tok.Role != gpucost.RoleAdmin {
			t.Errorf("token %+v; want admin tokens named %s", tok, TokenName)
		}
		if tok.Revoked.IsZero() {
			valid++
		}
	}
	if len(toks) != 2 || valid != 1 {
		t.Errorf("after two NewToken: %d tokens, %d valid; want 2 and 1", len(toks), valid)
	}
}

func TestAppliedAt(t *testing.T) {
	for _, c := range []struct {
		name string
		load Load
		at   time.Time
		ok   bool
	}{
		// 2026-11-27 is a Friday; 30 days back is Wednesday 2026-10-28 13:00: the first whole
		// Monday is 2026-11-02, and 2026-11-09, 16 and 23 follow it.
		{"30 days", Load{End: time.Date(2026, 11, 27, 13, 0, 0, 0, time.UTC), Days: 30}, time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC), true},
		{"3 days", Load{End: time.Date(2026, 11, 27, 13, 0, 0, 0, time.UTC), Days: 3}, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), false},
		// From a Monday's midnight that Monday is whole; then only two more before the end.
		{"a Monday's midnight", Load{End: time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC), Days: 21}, time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC), false},
	} {
		at, ok := c.load.AppliedAt()
		if !at.Equal(c.at) || ok != c.ok {
			t.Errorf("%s: AppliedAt() = %v, %v; want %v, %v", c.name, at, ok, c.at, c.ok)
		}
	}
}

func TestAppliedReleasesEval(t *testing.T) {
	l := Load{End: time.Date(2026, 11, 27, 13, 0, 0, 0, time.UTC), Days: 30}
	fleet := l.Applied(Fleet())
	var eval Instance
	for _, in := range fleet {
		if in.Namespace == "eval" {
			eval = in
		}
	}
	for _, c := range []struct {
		t    time.Time
		want bool
	}{
		{time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC), true},  // before the step: held all Monday
		{time.Date(2026, 11, 9, 7, 0, 0, 0, time.UTC), true},   // after: working
		{time.Date(2026, 11, 9, 8, 0, 0, 0, time.UTC), false},  // after: released when the job ends
		{time.Date(2026, 11, 10, 7, 0, 0, 0, time.UTC), false}, // never on a Tuesday
	} {
		if got := eval.Running(c.t); got != c.want {
			t.Errorf("eval.Running(%v) = %v, want %v", c.t, got, c.want)
		}
	}
	for i, in := range Fleet() {
		if in.Namespace != "eval" && in.Host != fleet[i].Host {
			t.Errorf("Applied changed instance %d: %s, want %s", i, fleet[i].Host, in.Host)
		}
	}
}
