package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// TestMetricsScrapedByPrometheus has Debian's prometheus scrape /metrics with a viewer token
// (and, as a second job, with an ingest token, which must be refused) and reads the series back
// through its query API.
func TestMetricsScrapedByPrometheus(t *testing.T) {
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("prometheus is not installed; CI must install it: apt-get install -y prometheus")
		}
		t.Skip("prometheus is not installed; to run this test: apt-get install -y prometheus")
	}
	f := newFixture(t)
	f.srv.Now = time.Now
	f.srv.Fleet = func(context.Context, time.Time) (FleetMetrics, error) {
		return FleetMetrics{Namespaces: []NamespaceUsage{{Namespace: "ml", GPUs: 4, GPUHours: 4, IdleGPUHours: 1, UtilMean: 50}},
			Teams: []TeamCost{{Team: "vision", CostUSD: 1234.5, IdleUSD: 20.25, GPUHours: 3}}}, nil
	}
	f.ts.Close()
	f.ts = httptest.NewServer(f.srv.Handler())
	t.Cleanup(f.ts.Close)

	dir := t.TempDir()
	target := strings.TrimPrefix(f.ts.URL, "http://")
	var cfg strings.Builder
	cfg.WriteString("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n")
	for job, secret := range map[string]string{"gpucost": f.secrets[gpucost.RoleViewer], "wrongrole": f.secrets[gpucost.RoleIngest]} {
		fmt.Fprintf(&cfg, "  - job_name: %s\n    authorization:\n      credentials: %s\n    static_configs:\n      - targets: ['%s']\n", job, secret, target)
	}
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	var logs bytes.Buffer
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("start prometheus: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	promURL := "http://" + addr
	checks := map[string]float64{
		`up{job="gpucost"}`:                                    1,
		`up{job="wrongrole"}`:                                  0,
		`gpucost_cost_usd{job="gpucost",team="vision"}`:        1234.5,
		`gpucost_gpu_idle_ratio{namespace="ml"}`:               0.25,
		`sum(gpucost_auth_failures_total{reason="forbidden"})`: -1, // any value: present
	}
	var last string
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		last = ""
		for q, want := range checks {
			got, err := promQuery(promURL, q)
			if err != nil || (want >= 0 && got != want) || (want < 0 && got < 1) {
				last += fmt.Sprintf("%s = %v, %v; want %v\n", q, got, err, want)
			}
		}
		if last == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 20 s Prometheus answers:\n%s\nprometheus log:\n%s", last, logs.String())
		}
	}
}

// promQuery asks Prometheus for the single value of an instant query.
func promQuery(base, q string) (float64, error) {
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var r struct {
		Status string
		Data   struct {
			Result []struct {
				Value [2]any
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return 0, err
	}
	if r.Status != "success" || len(r.Data.Result) != 1 {
		return 0, fmt.Errorf("status %s, %d results", r.Status, len(r.Data.Result))
	}
	s, _ := r.Data.Result[0].Value[1].(string)
	return strconv.ParseFloat(s, 64)
}
