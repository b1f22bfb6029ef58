package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost/postgres/pgtest"
)

// runAt runs gpucost with args against the store db (a SQLite path or a postgres:// URL) at a
// fixed time, and returns the exit code and outputs.
func runAt(t *testing.T, db string, now time.Time, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
		getenv: func(string) string { return "" }, now: func() time.Time { return now }}
	code := run(context.Background(), append([]string{"--db", db}, args...), e)
	return code, out.String(), errb.String()
}

// TestReportsPostgresMatchSQLite loads the demo fleet into a SQLite file and a PostgreSQL
// database and checks that every report, the recommendations and the budgets read the same
// from both, to the nano-dollar.
func TestReportsPostgresMatchSQLite(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the demo fleet twice")
	}
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	lite := filepath.Join(t.TempDir(), "demo.db")
	pg := pgtest.Start(t)
	budgets := "../../budget/testdata/budgets.yaml"
	for _, db := range []string{lite, pg} {
		if code, _, errOut := runAt(t, db, now, "demo", "--days", "3", "--no-serve", "--output", "json"); code != exitOK {
			t.Fatalf("demo --db %s: exit %d\n%s", db, code, errOut)
		}
	}
	for _, args := range [][]string{
		{"report", "utilization", "--by", "namespace", "--since", "3d"},
		{"report", "idle", "--since", "3d"},
		{"report", "cost", "--by", "team", "--since", "3d"},
		{"report", "kpi", "--since", "3d"},
		{"recommend", "--since", "3d"},
		{"budget", "status", "--file", budgets},
	} {
		args = append(args, "--output", "json")
		_, want, errLite := runAt(t, lite, now, args...)
		code, got, errPG := runAt(t, pg, now, args...)
		if code != exitOK {
			t.Errorf("%s on PostgreSQL: exit %d\n%s", strings.Join(args, " "), code, errPG)
			continue
		}
		if got != want {
			t.Errorf("%s: PostgreSQL gives\n%.2000s\nSQLite gives\n%.2000s\n(stderr %s)", strings.Join(args, " "), got, want, errLite)
		}
	}
}
