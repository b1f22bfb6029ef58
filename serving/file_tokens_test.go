package serving

import (
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

// TestParsePoolsPrometheusTokens reads prometheus.tokens, the engine whose token counters price
// the pool's tokens, and refuses an engine it does not know, listing those it does.
func TestParsePoolsPrometheusTokens(t *testing.T) {
	pool := "pools:\n  - namespace: serving\n    slo: p99=200ms\n    service_time: 40ms\n    prometheus:\n      url: http://prom:9090\n      query: up\n"
	ps, err := ParsePools("serving.yaml", []byte(pool+"      tokens: TGI\n"))
	if err != nil || len(ps) != 1 || ps[0].PromTokens != "tgi" {
		t.Errorf("ParsePools(tokens: TGI) = %+v, %v; want tgi", ps, err)
	}
	ps, err = ParsePools("serving.yaml", []byte(pool))
	if err != nil || ps[0].PromTokens != "" {
		t.Errorf("ParsePools(no tokens) = %+v, %v; want none", ps, err)
	}
	_, err = ParsePools("serving.yaml", []byte(pool+"      tokens: ollama\n"))
	if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "prometheus.tokens") || !strings.Contains(err.Error(), "tgi, triton, vllm") {
		t.Errorf("ParsePools(tokens: ollama) = %v; want an error naming prometheus.tokens and the engines", err)
	}
}
