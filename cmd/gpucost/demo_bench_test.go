package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkDemoBuild builds the 30-day demo store as gpucost demo does (telemetry, bill,
// applied step, spot jobs) into a new file each time, against issue 21's target of 10 s.
//
//	go test ./cmd/gpucost -run '^$' -bench DemoBuild -benchtime 1x
func BenchmarkDemoBuild(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		path := filepath.Join(b.TempDir(), "demo.db")
		e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" },
			now: func() time.Time { return demoNow }, dbPath: path, output: "table"}
		if err := e.loadDemo(ctx, demoNow, 30, false); err != nil {
			b.Fatal(err)
		}
	}
}
