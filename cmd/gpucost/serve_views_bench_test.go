package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost/server"
)

// benchDemoStore returns the path of a store holding the 30-day demo fleet and its bill as
// gpucost demo (make demo) builds it, ending at demoNow. It is built on first use (about 90 s)
// and kept in the temporary folder.
func benchDemoStore(b *testing.B) string {
	b.Helper()
	path := filepath.Join(os.TempDir(), "gpucost-bench-demo-"+demoVersion+".db")
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" },
		now: func() time.Time { return demoNow }, dbPath: path, output: "table"}
	if err := e.loadDemo(context.Background(), demoNow, 30, false); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkOverview computes the dashboard's overview over the demo fleet (88 GPUs, 30 days of
// telemetry and bill) against the target of < 300 ms server time: cold is a fresh
// server's first request (nothing cached), cached a request within --views-every.
//
//	go test ./cmd/gpucost -run XXX -bench Overview -benchtime 10x
func BenchmarkOverview(b *testing.B) {
	path := benchDemoStore(b)
	ctx := context.Background()
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" },
		now: func() time.Time { return demoNow }, dbPath: path, output: "table"}
	db, err := e.openDB(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	o := server.Options{ViewsEvery: time.Minute, Now: func() time.Time { return demoNow }, Log: slog.New(slog.DiscardHandler)}
	check := func(v *server.Views) {
		ov, err := v.Overview(ctx, demoNow)
		if err != nil {
			b.Fatal(err)
		}
		if ov.GPUs != 88 || ov.MonthToDate.IsZero() || len(ov.TopTeams) == 0 || ov.Recommended == 0 {
			b.Fatalf("overview = %+v", ov)
		}
	}
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			check(server.NewViews(db, o))
		}
	})
	b.Run("cached", func(b *testing.B) {
		o.ViewsEvery = time.Hour
		v := server.NewViews(db, o)
		check(v)
		for b.Loop() {
			check(v)
		}
	})
}
