package promql

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// targets serves each file of testdata/targets as a dcgm-exporter /metrics page at
// /metrics/NAME (NAME without .prom).
func targets(t *testing.T) (*httptest.Server, []string) {
	files, err := filepath.Glob("testdata/targets/*.prom")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scrape targets in testdata/targets: %v", err)
	}
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".prom"))
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, err := os.ReadFile(filepath.Join("testdata/targets", strings.TrimPrefix(r.URL.Path, "/metrics/")+".prom"))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return srv, names
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startPrometheus runs Debian's prometheus on a free loopback port, scraping each target every
// second, and returns its URL once it is ready.
func startPrometheus(t *testing.T, srv *httptest.Server, names []string) string {
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("prometheus is not installed; CI must install it: apt-get install -y prometheus")
		}
		t.Skip("prometheus is not installed; to run this test: apt-get install -y prometheus")
	}
	dir := t.TempDir()
	var cfg strings.Builder
	cfg.WriteString("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n")
	for _, name := range names {
		fmt.Fprintf(&cfg, "  - job_name: %s\n    metrics_path: /metrics/%s\n    static_configs:\n      - targets: ['%s']\n",
			name, name, strings.TrimPrefix(srv.URL, "http://"))
	}
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
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
	url := "http://" + addr
	waitFor(t, 10*time.Second, func() bool {
		resp, err := http.Get(url + "/-/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, func() string { return "prometheus did not become ready:\n" + logs.String() })
	return url
}

func waitFor(t *testing.T, limit time.Duration, ok func() bool, why func() string) {
	t.Helper()
	for deadline := time.Now().Add(limit); !ok(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal(why())
		}
	}
}

// TestPrometheus reads DCGM series through a real Prometheus scraping the real dcgm-exporter
// samples. With -update it records the API's answers for the replay tests.
func TestPrometheus(t *testing.T) {
	srv, names := targets(t)
	url := startPrometheus(t, srv, names)
	c := &Collector{URL: url}
	var samples []gpucost.Sample
	waitFor(t, 10*time.Second, func() bool {
		var err error
		samples, err = c.Collect(context.Background())
		return err == nil && len(samples) == 6
	}, func() string {
		return fmt.Sprintf("Prometheus has %d of the 6 GPUs after 10 s: %+v", len(samples), samples)
	})

	byUUID := map[string]gpucost.Sample{}
	for _, s := range samples {
		byUUID[s.GPU.UUID] = s
	}
	t4 := byUUID["GPU-6d5c0ac5-74d7-3130-46f1-e93ed57f469a"]
	if t4.GPU.Host != "cp-bm14r7" || t4.GPU.Model != "Tesla T4" || t4.Util != 91 || t4.MemUsedMiB != 5120 ||
		t4.MemTotalMiB != 5120+9791+447 || t4.PowerW != 68.244 || t4.TempC != 74 || t4.GrEngineActive != 0.156205 || t4.Labels != nil {
		t.Errorf("T4 sample = %+v", t4)
	}
	train := byUUID["GPU-2b5a9c1e-7f3d-4e8a-9b61-0c4d8e2f1a37"]
	if train.Labels.String() != "container=trainer,namespace=ml-research,pod=llm-finetune-0" || train.SMOccupancy != 0.4571 {
		t.Errorf("training GPU = %+v", train)
	}
	mig := byUUID["GPU-8d0f3b7a-1c2e-49d5-a6f8-3e7b9c0d2a14/1"]
	if mig.GPU.Parent != "GPU-8d0f3b7a-1c2e-49d5-a6f8-3e7b9c0d2a14" || mig.GPU.Profile != "3g.40gb" ||
		mig.Labels.String() != "job=slurm-4242" || mig.MemTotalMiB != 30720+9472 {
		t.Errorf("MIG instance = %+v %q (Prometheus renames the scraped job label to exported_job)", mig.GPU, mig.Labels.String())
	}

	// A range of a few scrapes, in one chunk and in chunks of two steps: the same samples.
	var from, to time.Time
	var one []gpucost.Sample
	waitFor(t, 10*time.Second, func() bool {
		to = time.Now().Truncate(time.Second)
		from = to.Add(-3 * time.Second)
		one = readRange(t, &Collector{URL: url}, from, to)
		return len(one) >= 6*4
	}, func() string { return fmt.Sprintf("Range has %d samples after 10 s, want 6 GPUs × 4 steps", len(one)) })
	chunked := readRange(t, &Collector{URL: url, MaxPoints: 2}, from, to)
	if !bytes.Equal(golden(one), golden(chunked)) {
		t.Errorf("Range = %d samples in one chunk and %d in chunks of 2; want the same", len(one), len(chunked))
	}

	_, err := (&Collector{URL: url, Selector: `Hostname=~"(unclosed"`}).Collect(context.Background())
	if err == nil || gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "Prometheus answered 400 bad_data") {
		t.Errorf("Collect with a bad selector = %v, want a bad_data error", err)
	}
	if *update {
		record(t, url, from, to)
	}
}

func readRange(t *testing.T, c *Collector, from, to time.Time) []gpucost.Sample {
	t.Helper()
	var out []gpucost.Sample
	var st Stats
	c.OnStats = func(s Stats) { st = s }
	if err := c.Range(context.Background(), from, to, time.Second, func(s gpucost.Sample) { out = append(out, s) }); err != nil {
		t.Fatalf("Range: %v", err)
	}
	if st.Skipped != 0 || st.Samples != len(out) {
		t.Errorf("Range stats = %+v", st)
	}
	return out
}

// record saves the server's answers to the Collector's queries as testdata/api/*.json.
func record(t *testing.T, url string, from, to time.Time) {
	c := &Collector{URL: url}
	for file, path := range map[string]string{
		"query.json":       "/api/v1/query?query=" + queryEscape(c.Query()) + "&time=" + unixParam(to),
		"query_range.json": "/api/v1/query_range?query=" + queryEscape(c.Query()) + "&start=" + unixParam(from) + "&end=" + unixParam(to) + "&step=1",
		"bad_data.json":    "/api/v1/query?query=" + queryEscape(`{Hostname=~"(unclosed"}`),
	} {
		resp, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err := os.WriteFile(filepath.Join("testdata/api", file), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
