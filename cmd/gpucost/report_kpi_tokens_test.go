package main

import (
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestReportKPITokens prices a million tokens per namespace of the 3-day demo from vLLM's token
// counters, served by a stand-in Prometheus that answers the two queries report kpi asks.
func TestReportKPITokens(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the demo fleet")
	}
	db := filepath.Join(t.TempDir(), "demo.db")
	if code, _, errOut := runAt(t, db, servingNow, "demo", "--days", "3", "--no-serve"); code != exitOK {
		t.Fatalf("demo: exit %d\n%s", code, errOut)
	}
	var asked []string
	prom := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.FormValue("query")
		asked = append(asked, q)
		v := "1000000000" // input tokens
		if strings.Contains(q, "generation_tokens") {
			v = "100000000"
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"namespace":"serving"},"value":[1764547200,"` + v + `"]}]}}`))
	}))
	defer prom.Close()
	args := []string{"report", "kpi", "--by", "namespace", "--since", "3d", "--tokens-prometheus", prom.URL, "--output-token-weight", "10"}
	code, out, errOut := runAt(t, db, servingNow, args...)
	if code != exitOK || !strings.Contains(out, "$/1M TOKENS") || !strings.Contains(out, "an output token weighing 10 input tokens") {
		t.Fatalf("report kpi --tokens-prometheus: exit %d\n%s%s", code, out, errOut)
	}
	if len(asked) != 2 || !strings.Contains(asked[0], "sum by (namespace) (increase(vllm:prompt_tokens_total[") {
		t.Errorf("queries %q; want vLLM's counters by namespace", asked)
	}
	code, out, errOut = runAt(t, db, servingNow, append(args, "--output", "json")...)
	var groups []map[string]any
	if code != exitOK || json.Unmarshal([]byte(out), &groups) != nil {
		t.Fatalf("report kpi --output json: exit %d\n%s%s", code, out, errOut)
	}
	num := func(v any) float64 { f, _ := strconv.ParseFloat(v.(string), 64); return f }
	for _, g := range groups {
		if g["group"] != "serving" {
			continue
		}
		cost := num(g["gpu_cost"])
		total, in, outp := num(g["cost_per_1m_tokens"]), num(g["cost_per_1m_input_tokens"]), num(g["cost_per_1m_output_tokens"])
		// 1,000 M input and 100 M output tokens; an output token weighs 10: 2,000 M input-token
		// equivalents, half the cost each side.
		if math.Abs(total-cost/1100) > 1e-4 || math.Abs(in-cost/2000) > 1e-4 || math.Abs(outp-cost*10/2000) > 1e-4 {
			t.Errorf("serving: cost %v; $/1M %v total, %v input, %v output; want cost/1100, cost/2000, cost/200", cost, total, in, outp)
		}
		return
	}
	t.Errorf("no serving namespace in %s", out)
}
