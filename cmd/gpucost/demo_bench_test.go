package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost/internal/usage"
)

// BenchmarkDemoBuild builds the 30-day demo store as gpucost demo does (telemetry, bill,
// applied step, spot jobs, serving files) into a new file each time, against issue 21's
// target of 10 s; cpu-s is the process's CPU time per build, what the build costs on a busy
// machine.
//
//	go test ./cmd/gpucost -run '^$' -bench DemoBuild -benchtime 1x
func BenchmarkDemoBuild(b *testing.B) {
	ctx := context.Background()
	var cpu time.Duration
	for b.Loop() {
		e := demoBenchEnv(filepath.Join(b.TempDir(), "demo.db"))
		c := usage.CPU()
		if err := e.loadDemo(ctx, demoNow, 30, false); err != nil {
			b.Fatal(err)
		}
		cpu += usage.CPU() - c
	}
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkDemoHeadline prints the demo's headlines (utilisation by namespace, spend by team,
// the plan's saving, the applied step's realized saving) from the 30-day demo store, what
// gpucost demo does between building the store and serving.
//
//	go test ./cmd/gpucost -run '^$' -bench DemoHeadline -benchtime 3x
func BenchmarkDemoHeadline(b *testing.B) {
	path := benchDemoStore(b)
	ctx := context.Background()
	var cpu time.Duration
	for b.Loop() {
		var out strings.Builder
		e := demoBenchEnv(path)
		e.stdout = &out
		c := usage.CPU()
		if err := e.printDemoHeadline(ctx, demoNow, 30); err != nil {
			b.Fatal(err)
		}
		cpu += usage.CPU() - c
		if !strings.Contains(out.String(), "gpucost demo — 88 GPUs") || !strings.Contains(out.String(), "The recommended plan would take") {
			b.Fatalf("headline:\n%s", out.String())
		}
	}
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
}

func demoBenchEnv(path string) *env {
	return &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" },
		now: func() time.Time { return demoNow }, dbPath: path, output: "table"}
}
