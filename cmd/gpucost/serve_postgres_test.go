package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/postgres/pgtest"
)

// TestServeAgentEndToEndPostgres is TestServeAgentEndToEnd on a real PostgreSQL: tokens created
// by gpucost token create --db postgres://…, looked up by the server, readiness through the
// pool, and every pushed sample in the store's rollups. Minute rollups a month old, written
// before the server starts, are pruned by the server's writer; their hourly rollups stay.
func TestServeAgentEndToEndPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for about 6 s")
	}
	db := pgtest.Start(t)
	old := time.Now().UTC().Add(-30 * 24 * time.Hour).Truncate(time.Hour)
	writeOldSamples(t, db, old)
	serveAgentEndToEnd(t, db, serveOptions{flush: 200 * time.Millisecond, keepMinutes: 24 * time.Hour})

	store, err := liveEnv(db, &lockedBuffer{}, func(string) string { return "" }).openDB(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	f := gpucost.RollupFilter{From: old, To: old.Add(time.Hour)}
	if n := countRollups(t, store, time.Minute, f); n != 0 {
		t.Errorf("%d minute rollups of %s left after serve; want them pruned past --keep-minutes", n, old)
	}
	if n := countRollups(t, store, time.Hour, f); n != 1 {
		t.Errorf("%d hourly rollups of %s; want the 1 kept", n, old)
	}
}

// writeOldSamples writes an hour of samples of one GPU from at, a minute apart, into db.
func writeOldSamples(t *testing.T, db string, at time.Time) {
	t.Helper()
	ctx := context.Background()
	e := liveEnv(db, &lockedBuffer{}, func(string) string { return "" })
	store, err := e.openDB(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	w, err := e.rollupWriter(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	g := gpucost.GPU{UUID: "GPU-old", Host: "old-host", Model: "NVIDIA A100-SXM4-80GB", Index: 0}
	for m := range 60 {
		s := gpucost.NewSample(at.Add(time.Duration(m)*time.Minute), g)
		s.Util, s.MemUsedMiB, s.MemTotalMiB = 50, 1024, 81920
		if err := w.Add(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if n := countRollups(t, store, time.Minute, gpucost.RollupFilter{From: at, To: at.Add(time.Hour)}); n != 60 {
		t.Fatalf("wrote %d minute rollups of %s; want 60", n, at)
	}
}

func countRollups(t *testing.T, store storeDB, width time.Duration, f gpucost.RollupFilter) int {
	t.Helper()
	n := 0
	if err := store.ScanRollups(context.Background(), width, f, func(*gpucost.Rollup) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestTokenCommandsPostgres creates, lists and revokes tokens in a PostgreSQL store.
func TestTokenCommandsPostgres(t *testing.T) {
	db := pgtest.Start(t)
	code, secret, errOut := runCLIDB(t, db, "token", "create", "--name", "ci", "--role", "admin")
	secret = strings.TrimSpace(secret)
	if code != exitOK || !strings.HasPrefix(secret, gpucost.TokenSecretPrefix) {
		t.Fatalf("token create --db postgres://…: exit %d, %q, %s", code, secret, errOut)
	}
	code, out, _ := runCLIDB(t, db, "token", "list")
	if code != exitOK || !strings.Contains(out, "ci") || !strings.Contains(out, "admin") || strings.Contains(out, secret) {
		t.Errorf("token list: exit %d\n%s; want the token without its secret", code, out)
	}
	if code, _, errOut := runCLIDB(t, db, "token", "revoke", "1"); code != exitOK {
		t.Errorf("token revoke 1: exit %d, %s", code, errOut)
	}
	if code, _, _ := runCLIDB(t, db, "token", "revoke", "9"); code != exitNotFound {
		t.Errorf("token revoke 9: exit %d; want %d", code, exitNotFound)
	}
	code, out, _ = runCLIDB(t, db, "token", "list", "--output", "json")
	if code != exitOK || !strings.Contains(out, `"revoked": "2026-12-02T00:00:00Z"`) {
		t.Errorf("token list --output json after revoke: exit %d\n%s", code, out)
	}
}

// TestServePostgresUnreachable: a PostgreSQL URL nothing answers at fails serve as unavailable,
// with a message naming the database but never its password.
func TestServePostgresUnreachable(t *testing.T) {
	for _, scheme := range []string{"postgres", "postgresql"} {
		db := scheme + "://gpucost:sekret-pw@127.0.0.1:1/gpucost?connect_timeout=2"
		code, out, errOut := runCLIDB(t, db, "serve", "--listen", "127.0.0.1:0")
		if code != exitUnavailable || !strings.Contains(errOut, "127.0.0.1:1") || !strings.Contains(errOut, "check that PostgreSQL runs") {
			t.Errorf("serve --db %s: exit %d, %s; want %d naming the database and what to check", scheme, code, errOut, exitUnavailable)
		}
		if strings.Contains(out+errOut, "sekret-pw") {
			t.Errorf("serve --db %s: the password appears in the output:\n%s%s", scheme, out, errOut)
		}
	}
}
