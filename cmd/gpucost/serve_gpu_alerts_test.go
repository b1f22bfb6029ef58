package main

import (
	"context"
	"fmt"
	"net"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/notify"
	"github.com/gpucost/gpucost/server"
	"github.com/spf13/cobra"
)

// idleEnd is when the three idle GPUs writeIdleGPUs stores stop reporting.
var idleEnd = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// writeIdleGPUs stores an hour of minute rollups before idleEnd of three GPUs on node-a at 5%
// utilisation and 50 °C, and of a fourth at 90%.
func writeIdleGPUs(t *testing.T, db storeDB) {
	t.Helper()
	var rs []gpucost.Rollup
	for i := range 4 {
		s := &gpucost.Series{GPU: gpucost.GPU{UUID: fmt.Sprintf("GPU-%d", i), Host: "node-a", Model: "NVIDIA A100-SXM4-80GB", Index: i}}
		u := 5.0
		if i == 3 {
			u = 90
		}
		for m := range 60 {
			rs = append(rs, gpucost.Rollup{Series: s, Start: idleEnd.Add(time.Duration(m-60) * time.Minute), Width: time.Minute,
				Samples: 1, Coverage: 1, UtilSum: u, UtilMax: u, UtilP50: u, UtilP95: u, TempMaxC: 50})
		}
	}
	if _, err := db.WriteRollups(context.Background(), rs); err != nil {
		t.Fatal(err)
	}
}

// serveGPUAlerts starts gpucost serve with args (its alert flags: --rules, --alert-on-no-data,
// --notify-resolved …) and --targets naming one webhook over a store holding writeIdleGPUs'
// data, its clock at now; checks counts the GPU alert checks run.
func serveGPUAlerts(t *testing.T, args []string, now time.Time) (s *spotServer, checks *atomic.Int64, stop func()) {
	t.Helper()
	s, checks = &spotServer{hook: &spotHook{}}, &atomic.Int64{}
	s.setNow(now)
	hookSrv := httptest.NewServer(s.hook)
	dir := t.TempDir()
	e := liveEnv(filepath.Join(dir, "gpucost.db"), &lockedBuffer{}, func(string) string { return "" })
	e.now = func() time.Time { return *s.now.Load() }
	db, err := e.openDB(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	writeIdleGPUs(t, db)
	o := serveOptions{flush: 100 * time.Millisecond, checkEvery: 20 * time.Millisecond, viewsEvery: time.Minute, maxBill: 1 << 20}
	cmd := &cobra.Command{}
	o.alerts.add(cmd)
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatal(err)
	}
	if err := o.alerts.load(); err != nil {
		t.Fatal(err)
	}
	targets := writeFile(t, dir, "targets.yaml", "targets:\n  ops: {webhook: {url: "+hookSrv.URL+", secret: k}}\n")
	if o.targets, err = e.loadTargets(targets); err != nil {
		t.Fatal(err)
	}
	so, err := e.serverOptions(db, o)
	if err != nil {
		t.Fatal(err)
	}
	so.GPUAlerts.Checked = func(time.Time) { checks.Add(1) }
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- server.Run(ctx, db, ln, so) }()
	return s, checks, func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		db.Close()
		hookSrv.Close()
	}
}

// waitGPUChecks waits until n more GPU alert checks have run; with n ≥ 2 one started after any
// change to the clock.
func waitGPUChecks(t *testing.T, checks *atomic.Int64, n int64) {
	t.Helper()
	target := checks.Load() + n
	waitFor(t, func() bool { return checks.Load() >= target }, "GPU alert checks")
}

func subjects(msgs []notify.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Kind+": "+m.Subject)
	}
	return out
}

// TestServeGPUAlerts runs gpucost serve --rules --targets over three idle GPUs: one grouped
// message reaches the webhook however many checks see them, gpu_hot (notify: false) sends
// nothing though it fires, and the data stopping sends one "no data" message (naming all four
// GPUs) under
// --alert-on-no-data, nothing without it, and never "resolved", even with --notify-resolved.
func TestServeGPUAlerts(t *testing.T) {
	rules := writeFile(t, t.TempDir(), "rules.yaml", "rules:\n  - name: gpu_underutilized\n    for: 10m\n"+
		"  - name: gpu_hot\n    threshold: 40\n    notify: false\n")
	const firing = "gpu.alert.firing: GPU alert gpu_underutilized firing on 3 GPUs"
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"alert_on_no_data", []string{"--rules", rules, "--alert-on-no-data", "--notify-resolved"},
			[]string{firing, "gpu.alert.no_data: GPU alert gpu_underutilized no data from 4 GPUs"}}, // the busy GPU too: its agent stopped
		{"without alert_on_no_data", []string{"--rules", rules, "--notify-resolved"}, []string{firing}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, checks, stop := serveGPUAlerts(t, c.args, idleEnd)
			defer stop()
			waitFor(t, func() bool { return len(s.hook.received()) >= 1 }, "the GPU alert")
			waitGPUChecks(t, checks, 2)
			s.setNow(idleEnd.Add(5 * time.Minute)) // silent, but within the rule's 10m: still firing
			waitGPUChecks(t, checks, 2)
			s.setNow(idleEnd.Add(15 * time.Minute)) // silent past it: no data
			waitGPUChecks(t, checks, 2)
			s.setNow(idleEnd.Add(3 * time.Hour))
			waitGPUChecks(t, checks, 2)
			got := s.hook.received()
			if strings.Join(subjects(got), "\n") != strings.Join(c.want, "\n") {
				t.Fatalf("the webhook got %q; want %q", subjects(got), c.want)
			}
			for _, want := range []string{"node-a GPU 0 (NVIDIA A100-SXM4-80GB)", "node-a GPU 2"} {
				if !strings.Contains(got[0].Text, want) {
					t.Errorf("the firing message lacks %q:\n%s", want, got[0].Text)
				}
			}
			if strings.Contains(got[0].Text, "GPU 3") {
				t.Errorf("the firing message names the busy GPU 3:\n%s", got[0].Text)
			}
		})
	}
}

// TestServeGPUAlertFlags: serve sends GPU alerts by default, none with
// --notify-gpu-alerts=false; --notify-resolved and the rules file's notify: false reach the
// server's options.
func TestServeGPUAlertFlags(t *testing.T) {
	rules := writeFile(t, t.TempDir(), "rules.yaml", "rules:\n  - name: gpu_hot\n    notify: false\n")
	for _, c := range []struct {
		args []string
		want server.GPUAlerts
	}{
		{nil, server.GPUAlerts{}},
		{[]string{"--notify-gpu-alerts=false"}, server.GPUAlerts{Off: true}},
		{[]string{"--rules", rules, "--notify-resolved"}, server.GPUAlerts{Resolved: true, Quiet: map[string]bool{"gpu_hot": true}}},
	} {
		var o serveAlertOptions
		cmd := &cobra.Command{}
		o.add(cmd)
		if err := cmd.ParseFlags(c.args); err != nil {
			t.Fatal(err)
		}
		if err := o.load(); err != nil {
			t.Fatal(err)
		}
		var so server.Options
		o.apply(nil, nil, "", &so)
		g := so.GPUAlerts
		if g.Off != c.want.Off || g.Resolved != c.want.Resolved || fmt.Sprint(g.Quiet) != fmt.Sprint(c.want.Quiet) {
			t.Errorf("serve %v: GPU alerts %+v, want %+v", c.args, g, c.want)
		}
	}
}
