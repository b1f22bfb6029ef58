package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/internal/storeopen"
	"github.com/gpucost/gpucost/server"
	"github.com/gpucost/gpucost/sqlite"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// demoNow is the clock runCLI and loadDemo use.
var demoNow = time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)

// checkFleetMetrics checks the /metrics fleet series over the demo fleet in dir against the
// reports they come from: report cost --by team over the month so far and report utilization
// --by namespace over the last hour (hourly rollups there, minute rollups here).
func checkFleetMetrics(t *testing.T, dir string) {
	fm, err := storeFleetMetrics(context.Background(), filepath.Join(dir, "gpucost.db"), demoNow)
	if err != nil {
		t.Fatal(err)
	}

	costs := reportTeamCosts(t, dir, "1d") // 2026-12-01 to now: the month so far
	if len(fm.Teams) != len(costs) || len(costs) < 4 {
		t.Errorf("fleet metrics have %d teams, the cost report %d: %+v", len(fm.Teams), len(costs), fm.Teams)
	}
	for _, tc := range fm.Teams {
		want, ok := costs[tc.Team]
		if !ok || tc.CostUSD != want.CostUSD || tc.IdleUSD != want.IdleUSD || math.Abs(tc.GPUHours-want.GPUHours) > 1e-9 {
			t.Errorf("team %s: metrics %+v; report %+v", tc.Team, tc, want)
		}
	}

	code, out, errOut := runCLI(t, dir, "report", "utilization", "--by", "namespace", "--since", "1h", "--output", "json")
	if code != exitOK {
		t.Fatalf("report utilization: exit %d\n%s", code, errOut)
	}
	var rep struct {
		Groups []struct {
			Key          string
			GPUs         int     `json:"gpus"`
			GPUHours     float64 `json:"gpu_hours"`
			IdleGPUHours float64 `json:"idle_gpu_hours"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(fm.Namespaces) != len(rep.Groups) || len(rep.Groups) < 3 {
		t.Fatalf("fleet metrics have %d namespaces, the report %d: %+v", len(fm.Namespaces), len(rep.Groups), fm.Namespaces)
	}
	byNS := map[string]httpapi.NamespaceUsage{}
	for _, n := range fm.Namespaces {
		byNS[n.Namespace] = n
	}
	for _, g := range rep.Groups {
		n := byNS[g.Key]
		if n.GPUs != g.GPUs || math.Abs(n.GPUHours-g.GPUHours) > 1e-6 || math.Abs(n.IdleGPUHours-g.IdleGPUHours) > 1e-6 {
			t.Errorf("namespace %s: metrics %+v; report %+v", g.Key, n, g)
		}
	}
	if s := byNS["serving"]; s.GPUs != 40 || s.GPUHours != 40 {
		t.Errorf("serving over the last hour = %+v; want 40 GPUs, 40 GPU-hours", s)
	}
}

// reportTeamCosts runs report cost --by team --output json over since.
func reportTeamCosts(t *testing.T, dir, since string) map[string]httpapi.TeamCost {
	t.Helper()
	code, out, errOut := runCLI(t, dir, "report", "cost", "--by", "team", "--since", since, "--output", "json")
	if code != exitOK {
		t.Fatalf("report cost: exit %d\n%s", code, errOut)
	}
	var rep struct {
		Groups []struct {
			Group, Currency string
			CostLessIdle    string  `json:"cost_less_idle"`
			IdleCost        string  `json:"idle_cost"`
			UsedGPUHours    float64 `json:"used_gpu_hours"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("report cost --output json: %v\n%s", err, out)
	}
	costs := map[string]httpapi.TeamCost{}
	for _, g := range rep.Groups {
		used, err1 := gpucost.ParseMoney(g.CostLessIdle, g.Currency)
		idle, err2 := gpucost.ParseMoney(g.IdleCost, g.Currency)
		if err1 != nil || err2 != nil || g.Currency != "USD" {
			t.Fatalf("report cost group %+v", g)
		}
		costs[g.Group] = httpapi.TeamCost{Team: g.Group, CostUSD: dollars(used), IdleUSD: dollars(idle), GPUHours: g.UsedGPUHours}
	}
	return costs
}

// TestServeMetrics checks the fleet series against the reports, then serves the demo store and
// scrapes /metrics with a viewer token, as Prometheus would.
func TestServeMetrics(t *testing.T) {
	dir := loadDemo(t)
	checkFleetMetrics(t, dir)
	code, viewer, _ := runCLI(t, dir, "token", "create", "--name", "prometheus", "--role", "viewer")
	viewer = strings.TrimSpace(viewer)
	if code != exitOK {
		t.Fatal("token create failed")
	}
	dbPath := filepath.Join(dir, "gpucost.db")
	db, err := sqlite.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuffer{}
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: logs, getenv: func(string) string { return "" },
		now: func() time.Time { return demoNow }, dbPath: dbPath, output: "table"}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.serve(ctx, db, ln, serveOptions{flush: time.Second}) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		db.Close()
	}()

	url := "http://" + ln.Addr().String() + "/metrics"
	if resp, err := http.Get(url); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /metrics without a token = %v, %v; want 401", resp, err)
	}
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+viewer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics = %d %s\n%s", resp.StatusCode, body, logs)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	costs := reportTeamCosts(t, dir, "1d")
	for team, want := range costs {
		if got, ok := gauge(fams["gpucost_cost_usd"], "team", team); !ok || got != want.CostUSD {
			t.Errorf("gpucost_cost_usd{team=%q} = %v (%v); the report says %v", team, got, ok, want.CostUSD)
		}
	}
	if got, ok := gauge(fams["gpucost_gpu_hours"], "namespace", "serving"); !ok || got != 40 {
		t.Errorf("gpucost_gpu_hours{namespace=serving} = %v (%v); want 40", got, ok)
	}
	if _, ok := gauge(fams["gpucost_ingest_queue_samples"]); !ok {
		t.Errorf("no gpucost_ingest_queue_samples")
	}
	if fams["gpucost_writer_flush_errors_total"] == nil {
		t.Errorf("no gpucost_writer_flush_errors_total")
	}
	if strings.Contains(string(body), viewer) || strings.Contains(logs.String(), viewer) {
		t.Errorf("the token secret appears in /metrics or the log")
	}
}

// gauge returns the value of the gauge of fam with the label name=value (or the first, without).
func gauge(fam *dto.MetricFamily, label ...string) (float64, bool) {
	if fam == nil {
		return 0, false
	}
	for _, m := range fam.Metric {
		for _, l := range m.Label {
			if len(label) == 2 && l.GetName() == label[0] && l.GetValue() == label[1] {
				return m.GetGauge().GetValue(), true
			}
		}
		if len(label) == 0 {
			return m.GetGauge().GetValue(), true
		}
	}
	return 0, false
}

// BenchmarkFleetMetrics computes the /metrics fleet series over the demo fleet (88 GPUs, 3 days
// of telemetry and bill), as a scrape does at most once a minute.
func BenchmarkFleetMetrics(b *testing.B) {
	dir := b.TempDir()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(string) string { return "" },
		now: func() time.Time { return demoNow }}
	if code := run(context.Background(), []string{"--db", filepath.Join(dir, "gpucost.db"), "demo", "--days", "3", "--no-serve"}, e); code != exitOK {
		b.Fatalf("demo: exit %d\n%s", code, errb.String())
	}
	ctx := context.Background()
	for b.Loop() {
		fm, err := storeFleetMetrics(ctx, filepath.Join(dir, "gpucost.db"), demoNow)
		if err != nil || len(fm.Teams) == 0 || len(fm.Namespaces) == 0 {
			b.Fatalf("fleet metrics: %v, %d teams, %d namespaces", err, len(fm.Teams), len(fm.Namespaces))
		}
	}
}

// storeFleetMetrics opens the store at path and computes its /metrics fleet series at now.
func storeFleetMetrics(ctx context.Context, path string, now time.Time) (httpapi.FleetMetrics, error) {
	st, err := storeopen.Open(ctx, path)
	if err != nil {
		return httpapi.FleetMetrics{}, err
	}
	defer st.Close()
	return server.FleetMetrics(ctx, st, now)
}

// dollars converts exact money to the float a Prometheus sample holds, as the server does.
func dollars(m gpucost.Money) float64 { return float64(m.Nanos) / 1e9 }
