package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tokenSeries is one histogram whose _sum counts a serving engine's tokens, or with counter
// one counter (name_total), as the engine exposes it: name, labels, and what it adds over the
// series' span.
type tokenSeries struct {
	name, labels string
	tokens       float64
	counter      bool
}

// TestReportKPITokensRealPrometheus backfills a real Prometheus with TGI's and Triton
// TensorRT-LLM backend's token histograms, under the names and labels the two servers expose
// (TGI: tgi_request_input_length and tgi_request_generated_tokens, no labels of their own;
// Triton: nv_llm_input_token_len and nv_llm_output_token_len with model, version and
// response_metric_type), each series growing evenly over four days, and checks that report kpi
// --tokens-server tgi and triton read each server's own tokens for the demo's serving namespace
// over three of them, summed over Triton's two models, and price them; a TGI server scraped
// without a namespace label is said to be left out.
func TestReportKPITokensRealPrometheus(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the demo fleet and starts Prometheus")
	}
	db := filepath.Join(t.TempDir(), "demo.db")
	if code, _, errOut := runAt(t, db, servingNow, "demo", "--days", "3", "--no-serve"); code != exitOK {
		t.Fatalf("demo: exit %d\n%s", code, errOut)
	}
	ns := `namespace="serving",job="llm",`
	series := []tokenSeries{
		{"tgi_request_input_length", ns + `instance="tgi-0:3000"`, 4e9, false},
		{"tgi_request_generated_tokens", ns + `instance="tgi-0:3000"`, 2e8, false},
		{"nv_llm_input_token_len", ns + `instance="triton-0:8002",model="llama",version="1",response_metric_type="total_input_tokens"`, 6e9, false},
		{"nv_llm_output_token_len", ns + `instance="triton-0:8002",model="llama",version="1",response_metric_type="total_output_tokens"`, 3e8, false},
		{"nv_llm_input_token_len", ns + `instance="triton-1:8002",model="mistral",version="1",response_metric_type="total_input_tokens"`, 2e9, false},
		{"nv_llm_output_token_len", ns + `instance="triton-1:8002",model="mistral",version="1",response_metric_type="total_output_tokens"`, 1e8, false},
		// A TGI server scraped without a namespace label: its tokens are said to be left out.
		{"tgi_request_input_length", `job="llm",instance="tgi-9:3000"`, 1e9, false},
		{"tgi_request_generated_tokens", `job="llm",instance="tgi-9:3000"`, 1e8, false},
	}
	// Four days of samples, every 5 minutes, ending an hour after the report's now: the report's
	// period (the window of its increase) sees its share of each series' tokens.
	start, end := servingNow.Add(-95*time.Hour), servingNow.Add(time.Hour)
	url := startBackfilledPrometheus(t, series, start, end, 5*time.Minute)
	window := regexp.MustCompile(`\[(\d+)s\]`)
	for _, tc := range []struct {
		server          string
		in, out         float64
		counters        []string
		otherServerName string
		leftOut         bool
	}{
		{"tgi", 4e9, 2e8, []string{"tgi_request_input_length_sum", "tgi_request_generated_tokens_sum"}, "nv_llm_", true},
		{"triton", 6e9 + 2e9, 3e8 + 1e8, []string{"nv_llm_input_token_len_sum", "nv_llm_output_token_len_sum"}, "tgi_", false},
	} {
		args := []string{"report", "kpi", "--by", "namespace", "--since", "3d", "--tokens-prometheus", url, "--tokens-server", tc.server}
		code, text, errOut := runAt(t, db, servingNow, args...)
		m := window.FindStringSubmatch(text)
		if code != exitOK || m == nil || strings.Contains(text, tc.otherServerName) || !strings.Contains(text, tc.counters[0]) || !strings.Contains(text, tc.counters[1]) {
			t.Fatalf("report kpi --tokens-server %s: exit %d; want a note naming %q and the window, not %q\n%s%s", tc.server, code, tc.counters, tc.otherServerName, text, errOut)
		}
		if left := strings.Contains(text, "tokens of no namespace label, which hold no GPU cost in this report"); left != tc.leftOut {
			t.Errorf("report kpi --tokens-server %s: a note on tokens without a namespace: %v, want %v\n%s", tc.server, left, tc.leftOut, text)
		}
		w, _ := strconv.ParseFloat(m[1], 64)
		share := w / end.Sub(start).Seconds()
		tc.in, tc.out = tc.in*share, tc.out*share
		code, out, errOut := runAt(t, db, servingNow, append(args, "--output", "json")...)
		var groups []map[string]any
		if code != exitOK || json.Unmarshal([]byte(out), &groups) != nil {
			t.Fatalf("report kpi --tokens-server %s: exit %d\n%s%s", tc.server, code, out, errOut)
		}
		var serving map[string]any
		for _, g := range groups {
			if g["group"] == "serving" {
				serving = g
			}
		}
		if serving == nil {
			t.Fatalf("report kpi --tokens-server %s: no serving namespace in %s", tc.server, out)
		}
		num := func(k string) float64 {
			switch v := serving[k].(type) {
			case float64:
				return v
			case string:
				f, _ := strconv.ParseFloat(v, 64)
				return f
			}
			t.Fatalf("report kpi --tokens-server %s: %s is %v", tc.server, k, serving[k])
			return 0
		}
		in, outTok := num("input_tokens"), num("output_tokens")
		if math.Abs(in-tc.in) > 0.005*tc.in || math.Abs(outTok-tc.out) > 0.005*tc.out {
			t.Errorf("report kpi --tokens-server %s: %.0f input and %.0f output tokens; want %.0f and %.0f (its own series only)", tc.server, in, outTok, tc.in, tc.out)
		}
		cost, perM := num("gpu_cost"), num("cost_per_1m_tokens")
		if want := cost / ((in + outTok) / 1e6); math.Abs(perM-want) > 1e-4+1e-6*want {
			t.Errorf("report kpi --tokens-server %s: $/1M tokens %v; want the GPU cost %v over %.0f M tokens, %v", tc.server, perM, cost, (in+outTok)/1e6, want)
		}
	}
}

// startBackfilledPrometheus writes series as OpenMetrics histograms (a +Inf bucket, _count and
// _sum, each _sum growing evenly from 0 to its tokens between start and end) or counters
// (growing the same way), turns them into
// TSDB blocks with promtool, starts Debian's prometheus on them on a free loopback port and
// returns its URL once it is ready.
func startBackfilledPrometheus(t *testing.T, series []tokenSeries, start, end time.Time, every time.Duration) string {
	t.Helper()
	promtool := promtoolPath(t)
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("prometheus is not installed; CI must install it: apt-get install -y prometheus")
		}
		t.Skip("prometheus is not installed; to run this test: apt-get install -y prometheus")
	}
	dir := t.TempDir()
	var om bytes.Buffer
	families := map[string][]tokenSeries{}
	var order []string
	for _, s := range series {
		if _, ok := families[s.name]; !ok {
			order = append(order, s.name)
		}
		families[s.name] = append(families[s.name], s)
	}
	steps := int(end.Sub(start) / every)
	for _, name := range order {
		if families[name][0].counter {
			fmt.Fprintf(&om, "# TYPE %s counter\n", name)
			for _, s := range families[name] {
				for i := 0; i <= steps; i++ {
					fmt.Fprintf(&om, "%s_total{%s} %g %d\n", name, s.labels, s.tokens*float64(i)/float64(steps), start.Add(time.Duration(i)*every).Unix())
				}
			}
			continue
		}
		fmt.Fprintf(&om, "# TYPE %s histogram\n", name)
		for _, s := range families[name] {
			for i := 0; i <= steps; i++ {
				ts := start.Add(time.Duration(i) * every).Unix()
				sum := s.tokens * float64(i) / float64(steps)
				n := float64(i * 10) // ten requests every interval
				fmt.Fprintf(&om, "%s_bucket{%s,le=\"+Inf\"} %g %d\n%s_count{%s} %g %d\n%s_sum{%s} %g %d\n",
					name, s.labels, n, ts, name, s.labels, n, ts, name, s.labels, sum, ts)
			}
		}
	}
	om.WriteString("# EOF\n")
	input := filepath.Join(dir, "tokens.om")
	if err := os.WriteFile(input, om.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	if msg, err := exec.Command(promtool, "tsdb", "create-blocks-from", "openmetrics", input, data).CombinedOutput(); err != nil {
		t.Fatalf("promtool tsdb create-blocks-from openmetrics: %v\n%s", err, msg)
	}
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte("global:\n  scrape_interval: 1m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	var logs bytes.Buffer
	cmd := exec.Command(bin, "--config.file="+cfg, "--storage.tsdb.path="+data, "--storage.tsdb.retention.time=100y",
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
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if resp, err := http.Get(url + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("prometheus did not become ready:\n%s", logs.String())
		}
	}
}
