package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Reference case R4 beside Erlang C: 500 QPS at 200 per GPU is 3 GPUs, + 20% headroom 4.
func TestPlanCapacityR4(t *testing.T) {
	code, out, errOut := runCLI(t, t.TempDir(), "plan", "capacity", "--rate", "500", "--service-time", "30ms", "--slo", "p99=200ms",
		"--per-gpu-qps", "200", "--headroom", "20%", "--price", "0.80")
	if code != exitOK {
		t.Fatalf("plan capacity: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"19 replicas (19 GPUs)", "rule of thumb (R4, 200 QPS/GPU given)", "│        4 │    4 │", "$15.20", "Erlang C minimum without headroom: 16 replicas"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan capacity lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = runCLI(t, t.TempDir(), "plan", "capacity", "--rate", "50", "--service-time", "200ms", "--service-cv", "0", "--slo", "p99=500ms", "--output", "json")
	if code != exitOK {
		t.Fatalf("plan capacity --output json: exit %d\n%s", code, errOut)
	}
	var r struct {
		Replicas int `json:"replicas"`
		Latency  []struct {
			Quantile  float64 `json:"quantile"`
			ResponseS float64 `json:"response_s"`
		} `json:"latency"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if r.Replicas != 12 || len(r.Latency) != 5 || r.Latency[3].Quantile != 0.99 || r.Latency[3].ResponseS > 0.5 {
		t.Errorf("plan capacity 50/s at 200 ms: %+v; want 12 replicas with p99 ≤ 0.5 s", r)
	}
}

func TestPlanCapacityBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--rate", "10", "--service-time", "300ms", "--slo", "p99=200ms"}, "raise the SLO to at least 1.382s"},
		{[]string{"--rate", "10", "--service-time", "300ms", "--service-cv", "0", "--slo", "p99=200ms"}, "raise the SLO to at least 300ms"},
		{[]string{"--rate", "10", "--service-time", "30ms", "--service-cv", "lots"}, "--service-cv \"lots\""},
		{[]string{"--rate", "500", "--service-time", "30ms", "--max-replicas", "10"}, "10 replicas serve at most"},
		{[]string{"--rate", "10", "--service-time", "30ms", "--slo", "fast"}, "pNN=DURATION"},
		{[]string{"--rate", "10"}, "--service-time is required"},
		{[]string{"--service-time", "30ms"}, "--rate is required"},
		{[]string{"--rate", "10", "--trace", azureHead, "--service-time", "1s"}, "give --rate or --trace, not both"},
	} {
		code, _, errOut := runCLI(t, t.TempDir(), append([]string{"plan", "capacity"}, tc.args...)...)
		if code != exitInvalid || !strings.Contains(errOut, tc.want) {
			t.Errorf("plan capacity %v: exit %d, %q; want exit 2 with %q", tc.args, code, errOut, tc.want)
		}
	}
}

// azureHead is the real Azure trace's first 1,000 requests, kept by the traffic package.
const azureHead = "../../traffic/testdata/azure_code_head.csv"

func TestPlanAutoscaleCompareAll(t *testing.T) {
	dir := t.TempDir()
	chart := filepath.Join(dir, "replicas.svg")
	code, out, errOut := runCLI(t, dir, "plan", "autoscale", "--trace", azureHead, "--service-time", "1s", "--slo", "p99=5s",
		"--compare", "all", "--price", "2.50", "--chart", chart)
	if code != exitOK {
		t.Fatalf("plan autoscale --compare all: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"static", "target-tracking", "step", "schedule (hindsight)", "learned-schedule", "scale-to-zero", "predictive", "oracle", "GAP TO ORACLE", "SLO ATTAINMENT",
		"it is left out of the best policy", "1000 requests over 9m0s", "Gap read as zero traffic: 2m24s"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan autoscale --compare all lacks %q:\n%s", want, out)
		}
	}
	svg, err := os.ReadFile(chart)
	if err != nil || !strings.Contains(string(svg), "<svg") || !strings.Contains(string(svg), "oracle") {
		t.Errorf("chart %s: %v; want an SVG with the oracle's line", chart, err)
	}
	code, out, errOut = runCLI(t, dir, "plan", "autoscale", "--trace", azureHead, "--service-time", "1s", "--slo", "p99=5s",
		"--policy", "static", "--replicas", "12", "--spot-share", "50%", "--spot-price", "1.00", "--price", "2.50", "--output", "json")
	if code != exitOK {
		t.Fatalf("plan autoscale --spot-share: exit %d\n%s", code, errOut)
	}
	var runs []struct {
		Policy   string `json:"policy"`
		Cost     string `json:"cost"`
		Settings string `json:"settings"`
	}
	if err := json.Unmarshal([]byte(out), &runs); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(runs) != 3 || runs[0].Policy != "static" || runs[1].Settings != "the same, all on-demand" || runs[2].Policy != "oracle" || runs[0].Cost >= runs[1].Cost {
		t.Errorf("static with spot: %+v; want the spot run cheaper than all on-demand, then the oracle", runs)
	}
}

func TestPlanAutoscaleBadInput(t *testing.T) {
	dir := t.TempDir()
	gappy := filepath.Join(dir, "rates.csv")
	os.WriteFile(gappy, []byte("timestamp,rate\n2026-01-01T00:00:00Z,10\n2026-01-01T00:01:00Z,20\n2026-01-01T00:05:00Z,5\n"), 0o644)
	unsorted := filepath.Join(dir, "log.csv")
	os.WriteFile(unsorted, []byte("TIMESTAMP\n2023-11-16 18:17:05\n2023-11-16 18:17:03\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--trace", gappy, "--service-time", "30ms"}, "rates.csv:4: no rows for 4m0s"},
		{[]string{"--trace", unsorted, "--service-time", "30ms"}, "log.csv:3:1: 2023-11-16T18:17:03Z is earlier than"},
		{[]string{"--trace", azureHead, "--service-time", "1s", "--slo", "p99=500ms"}, "raise the SLO to at least 4.605s"},
		{[]string{"--trace", azureHead, "--service-time", "1s", "--slo", "p99=5s", "--max-replicas", "3"}, "raise the replica limit to"},
		{[]string{"--trace", azureHead, "--service-time", "1s", "--policy", "magic"}, "policy \"magic\""},
		{[]string{"--trace", azureHead, "--service-time", "1s", "--schedule", "0-7=2"}, "hour 8 has no count"},
		{[]string{"--trace", azureHead, "--service-time", "1s", "--chart", "x.gif"}, ".png or .svg"},
	} {
		code, _, errOut := runCLI(t, dir, append([]string{"plan", "autoscale"}, tc.args...)...)
		if code != exitInvalid || !strings.Contains(errOut, tc.want) {
			t.Errorf("plan autoscale %v: exit %d, %q; want exit 2 with %q", tc.args, code, errOut, tc.want)
		}
	}
	code, out, errOut := runCLI(t, dir, "plan", "autoscale", "--trace", gappy, "--gaps", "zero", "--service-time", "30ms", "--slo", "p99=200ms")
	if code != exitOK || !strings.Contains(out, "Gap read as zero traffic: 4m0s") {
		t.Errorf("plan autoscale --gaps zero: exit %d\n%s%s", code, out, errOut)
	}
}

// latencyProfile is a measured latency profile: 5 ms + 1 ms per request.
const latencyProfile = "../../plan/testdata/latency_profile.csv"

func TestPlanBatching(t *testing.T) {
	code, out, errOut := runCLI(t, t.TempDir(), "plan", "batching", "--rate", "2000", "--batch-profile", latencyProfile, "--slo", "p99=100ms", "--price", "0.44")
	if code != exitOK {
		t.Fatalf("plan batching: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"batches of 32 on 4 GPUs (max_batch_size 32, max_queue_delay_microseconds 25635)", "← best", "69% fewer", "R² = 1.000"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan batching lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = runCLI(t, t.TempDir(), "plan", "batching", "--rate", "500", "--alpha", "8ms", "--beta", "1.5ms", "--max-batch", "64", "--slo", "p99=200ms", "--output", "json")
	var r struct {
		Best struct {
			Batch   int   `json:"max_batch_size"`
			DelayUS int64 `json:"max_queue_delay_microseconds"`
			GPUs    int   `json:"gpus"`
		} `json:"best"`
	}
	if code != exitOK || json.Unmarshal([]byte(out), &r) != nil || r.Best.Batch < 2 || r.Best.DelayUS <= 0 || r.Best.GPUs < 1 {
		t.Errorf("plan batching --alpha --beta: exit %d, %+v\n%s%s", code, r, out, errOut)
	}
	code, out, errOut = runCLI(t, t.TempDir(), "plan", "capacity", "--rate", "2000", "--batch-profile", latencyProfile, "--slo", "p99=100ms")
	if code != exitOK || !strings.Contains(out, "at 37.4ms each") || !strings.Contains(out, "Batches of 32") {
		t.Errorf("plan capacity --batch-profile: exit %d\n%s%s", code, out, errOut)
	}
	code, _, errOut = runCLI(t, t.TempDir(), "plan", "batching", "--rate", "2000", "--batch-profile", latencyProfile, "--slo", "p99=5ms")
	if code != exitInvalid || !strings.Contains(errOut, "even a batch of one takes 6.1ms") {
		t.Errorf("plan batching under a batch of one: exit %d, %q", code, errOut)
	}
}

// TestPlanCapacityTrace sizes for the busiest minute of the real Azure trace's first 1,000
// requests, with headroom on top.
func TestPlanCapacityTrace(t *testing.T) {
	code, out, errOut := runCLI(t, t.TempDir(), "plan", "capacity", "--trace", azureHead, "--service-time", "1s", "--slo", "p99=5s", "--headroom", "20%")
	if code != exitOK {
		t.Fatalf("plan capacity --trace: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"Sized for the trace's busiest 1m0s,", "with 20% headroom", "timestamps, 1000 rows", "Erlang C (M/M/c)"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan capacity --trace lacks %q:\n%s", want, out)
		}
	}
}

// TestPlanTraceShapes: a per-container QPS export is summed, not read as a request log; a file
// that could be two shapes is refused with what was seen and the flag that picks one.
func TestPlanTraceShapes(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("timestamp,container,value\n")
	for i := range 60 {
		for c := range 4 {
			fmt.Fprintf(&b, "2026-11-20T12:%02d:00Z,vllm-%d,%d\n", i, c, 5+c)
		}
	}
	qps := filepath.Join(dir, "qps.csv")
	os.WriteFile(qps, []byte(b.String()), 0o644)
	code, out, errOut := runCLI(t, dir, "plan", "capacity", "--trace", qps, "--service-time", "100ms", "--slo", "p99=1s")
	if code != exitOK || !strings.Contains(out, "26 requests/s at 100ms each") || !strings.Contains(out, "4 sources' requests per second summed") {
		t.Errorf("plan capacity --trace per-container QPS: exit %d; want 4 containers summed to 26/s\n%s%s", code, out, errOut)
	}
	ambiguous := filepath.Join(dir, "values.csv")
	os.WriteFile(ambiguous, []byte("timestamp,value\n2026-11-20T12:00:00Z,7\n2026-11-20T12:01:00Z,9\n"), 0o644)
	code, _, errOut = runCLI(t, dir, "plan", "autoscale", "--trace", ambiguous, "--service-time", "100ms", "--slo", "p99=1s")
	if code != exitInvalid || !strings.Contains(errOut, "cannot tell its shape from timestamp,value with a first row of 2026-11-20T12:00:00Z,7") || !strings.Contains(errOut, "--trace-shape") {
		t.Errorf("plan autoscale --trace ambiguous: exit %d, %q; want exit 2 showing the shape and --trace-shape", code, errOut)
	}
	code, out, errOut = runCLI(t, dir, "plan", "autoscale", "--trace", ambiguous, "--trace-shape", "rates", "--service-time", "100ms", "--slo", "p99=1s")
	if code != exitOK || !strings.Contains(out, "rates, 2 rows") {
		t.Errorf("plan autoscale --trace-shape rates: exit %d\n%s%s", code, out, errOut)
	}
}

// TestPlanTokens: --service-model tokens takes each request's service time from the real Azure
// requests' token counts and prices a million tokens in plan capacity and plan autoscale.
func TestPlanTokens(t *testing.T) {
	tokens := []string{"--trace", azureHead, "--service-model", "tokens", "--prefill-rate", "20000", "--decode-rate", "1500", "--concurrency", "16", "--slo", "p99=10s", "--price", "4"}
	code, out, errOut := runCLI(t, t.TempDir(), append([]string{"plan", "capacity"}, tokens...)...)
	if code != exitOK {
		t.Fatalf("plan capacity --service-model tokens: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"Token model: 20000 prefill and 1500 decode tokens/s per replica shared by 16 sequences; the trace's 1000 requests", "(M/G/c", "At this rate per 1M tokens: $"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan capacity --service-model tokens lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = runCLI(t, t.TempDir(), append([]string{"plan", "autoscale", "--policy", "predictive", "--output", "json"}, tokens...)...)
	var runs []struct {
		Policy string `json:"policy"`
		PerM   *struct {
			Input, Output, Total string
		} `json:"per_million_tokens"`
	}
	num := func(s string) float64 { f, _ := strconv.ParseFloat(s, 64); return f }
	if code != exitOK || json.Unmarshal([]byte(out), &runs) != nil || len(runs) != 2 || runs[0].PerM == nil || num(runs[0].PerM.Total) <= 0 ||
		num(runs[0].PerM.Output) <= num(runs[0].PerM.Total) || num(runs[0].PerM.Input) >= num(runs[0].PerM.Total) {
		t.Errorf("plan autoscale --service-model tokens --output json: exit %d, %+v; want each run priced per 1M tokens\n%s%s", code, runs, out, errOut)
	}
	profile := filepath.Join(t.TempDir(), "tokens.csv")
	os.WriteFile(profile, []byte("input_tokens,output_tokens,latency_ms\n100,10,240\n1000,50,1600\n3000,200,5600\n500,100,2000\n"), 0o644)
	code, out, errOut = runCLI(t, t.TempDir(), "plan", "capacity", "--trace", azureHead, "--service-model", "tokens", "--token-profile", profile, "--concurrency", "16", "--slo", "p99=10s")
	if code != exitOK || !strings.Contains(out, "Token model: 20000 prefill and 1000 decode tokens/s per replica shared by 16 sequences (fitted to 4 requests") {
		t.Errorf("plan capacity --token-profile: exit %d; want 20,000 and 1,000 tokens/s fitted\n%s%s", code, out, errOut)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--rate", "5", "--service-model", "tokens", "--prefill-rate", "1", "--decode-rate", "1"}, "--service-model tokens needs --trace"},
		{[]string{"--trace", azureHead, "--service-model", "tokens", "--token-profile", profile, "--prefill-rate", "1"}, "not both"},
		{[]string{"--trace", azureHead, "--service-model", "tokens", "--service-time", "1s"}, "leave out --service-time"},
		{[]string{"--trace", azureHead, "--service-model", "tokens", "--prefill-rate", "1000"}, "give both rates"},
		{[]string{"--rate", "5", "--service-model", "words"}, "--service-model \"words\""},
	} {
		code, _, errOut := runCLI(t, t.TempDir(), append([]string{"plan", "capacity"}, tc.args...)...)
		if code != exitInvalid || !strings.Contains(errOut, tc.want) {
			t.Errorf("plan capacity %v: exit %d, %q; want exit 2 with %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestPlanShare packs a small pod list in openb's format and refuses a file without its columns.
func TestPlanShare(t *testing.T) {
	dir := t.TempDir()
	pods := filepath.Join(dir, "pods.csv")
	os.WriteFile(pods, []byte("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"+
		"a,1000,1024,1,600,,LS,Running,0,3600,0\nb,1000,1024,1,400,,LS,Running,0,3600,0\nc,1000,1024,2,1000,,LS,Running,0,3600,0\nd,1000,1024,0,0,,LS,Running,0,3600,0\n"), 0o644)
	code, out, errOut := runCLI(t, dir, "plan", "share", "--workloads", pods)
	if code != exitOK {
		t.Fatalf("plan share: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"GPUs for 3 GPU pods", "whole GPUs (no sharing)", "│           4 │             4 │         4 │", "fractional: time-slicing or MPS (best-fit decreasing) │           3 │", "Martello–Toth L2"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan share lacks %q:\n%s", want, out)
		}
	}
	code, _, errOut = runCLI(t, dir, "plan", "share", "--workloads", latencyProfile)
	if code != exitInvalid || !strings.Contains(errOut, "num_gpu") {
		t.Errorf("plan share on a latency profile: exit %d, %q; want exit 2 naming num_gpu", code, errOut)
	}
}
