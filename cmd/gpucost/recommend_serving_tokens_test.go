package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRecommendServingTokensPrometheus reads a pool's requests and its tokens from a real
// Prometheus backfilled with vLLM's counters for the demo's serving namespace — 100 requests a
// second of 2,000 prompt and 50 generated tokens each, and a busier namespace beside it that
// must not count — and expects the pool priced per million tokens, split by its prefill and
// decode rates.
func TestRecommendServingTokensPrometheus(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the demo fleet and starts Prometheus")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "demo.db")
	if code, _, errOut := runAt(t, db, servingNow, "demo", "--days", "3", "--no-serve"); code != exitOK {
		t.Fatalf("demo: exit %d\n%s", code, errOut)
	}
	start, end := servingNow.Add(-95*time.Hour), servingNow.Add(time.Hour)
	span := end.Sub(start).Seconds()
	ns := func(n string) string { return `namespace="` + n + `",job="vllm",instance="vllm-0:8000"` }
	url := startBackfilledPrometheus(t, []tokenSeries{
		{"vllm:request_success", ns("serving"), 100 * span, true},
		{"vllm:prompt_tokens", ns("serving"), 2000 * 100 * span, true},
		{"vllm:generation_tokens", ns("serving"), 50 * 100 * span, true},
		{"vllm:prompt_tokens", ns("batch"), 9e12, true},
		{"vllm:generation_tokens", ns("batch"), 9e11, true},
	}, start, end, 5*time.Minute)
	pools := filepath.Join(dir, "tokens-serving.yaml")
	yaml := fmt.Sprintf("pools:\n  - namespace: serving\n    slo: p99=200ms\n    service_time: 40ms\n    prefill_rate: 100000\n    decode_rate: 2500\n"+
		"    prometheus:\n      url: %s\n      query: 'sum(rate(vllm:request_success_total{namespace=\"serving\"}[1h]))'\n      tokens: vllm\n", url)
	if err := os.WriteFile(pools, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runAt(t, db, servingNow, "recommend", "--since", "3d", "--serving", pools, "--output", "json")
	var got struct {
		Serving struct {
			Pools []struct {
				Tokens *struct {
					Input  float64 `json:"input_tokens_per_request"`
					Output float64 `json:"output_tokens_per_request"`
					All    string  `json:"cost_per_1m_tokens"`
					In     string  `json:"cost_per_1m_input_tokens"`
					Out    string  `json:"cost_per_1m_output_tokens"`
				} `json:"tokens"`
			} `json:"pools"`
		} `json:"serving"`
	}
	if err := json.Unmarshal([]byte(out), &got); code != exitOK || err != nil || len(got.Serving.Pools) != 1 {
		t.Fatalf("recommend --serving with prometheus tokens: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	tk := got.Serving.Pools[0].Tokens
	if tk == nil || math.Abs(tk.Input-2000) > 20 || math.Abs(tk.Output-50) > 0.5 || tk.In == "" || tk.Out == "" {
		t.Fatalf("pool tokens = %+v; want 2000 input and 50 output tokens a request, priced each side", tk)
	}
	// 2,000 tokens at 100,000/s and 50 at 2,500/s: half the replica time each side, so a million
	// output tokens costs 40 times a million input tokens, and the whole is their weighted mean.
	num := func(s string) float64 { f, _ := strconv.ParseFloat(s, 64); return f }
	in, outp, all := num(tk.In), num(tk.Out), num(tk.All)
	if in <= 0 || math.Abs(outp/in-40) > 0.4 || math.Abs(all-(in*2000+outp*50)/2050) > 0.01*all {
		t.Errorf("$/1M tokens %v input, %v output, %v in all; want output 40× input and the total their mean by tokens", in, outp, all)
	}
	code, text, _ := runAt(t, db, servingNow, "recommend", "--since", "3d", "--serving", pools)
	if code != exitOK || !strings.Contains(text, "per 1M tokens") {
		t.Errorf("recommend --serving with prometheus tokens lacks the price per 1M tokens:\n%s", text)
	}
}
