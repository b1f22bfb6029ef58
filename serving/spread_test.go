package serving

import (
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/plan"
	"github.com/gpucost/gpucost/traffic"
)

// TestParsePoolsSpreadAndShape: service_cv gives the service time's spread (exponential when
// absent), requests_shape the requests file's shape; bad values are errors naming the field.
func TestParsePoolsSpreadAndShape(t *testing.T) {
	pools, err := ParsePools("serving.yaml", []byte(`pools:
  - namespace: a
    slo: p99=500ms
    service_time: 100ms
    requests: a.csv
  - namespace: b
    slo: p99=500ms
    service_time: 100ms
    service_cv: 0.4
    requests: b.csv
    requests_shape: samples
`))
	if err != nil {
		t.Fatal(err)
	}
	if pools[0].Spread != (plan.Spread{}) || pools[0].RequestsShape != "" {
		t.Errorf("pool a: spread %+v, shape %q; want exponential and told from the file", pools[0].Spread, pools[0].RequestsShape)
	}
	if pools[1].Spread != (plan.Spread{CV: 0.4, Source: "service_cv"}) || pools[1].RequestsShape != traffic.Samples {
		t.Errorf("pool b: spread %+v, shape %q; want cv 0.4 from service_cv and samples", pools[1].Spread, pools[1].RequestsShape)
	}
	for _, tc := range []struct{ field, want string }{
		{"service_cv: -1", "service_cv"},
		{"requests_shape: lines", "requests_shape"},
	} {
		_, err := ParsePools("serving.yaml", []byte("pools:\n  - namespace: a\n    slo: p99=500ms\n    service_time: 100ms\n    requests: a.csv\n    "+tc.field+"\n"))
		if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParsePools(%s) = %v; want an EInvalid error naming %s", tc.field, err, tc.want)
		}
	}
}

// TestPoolTokens: $730 a month for 100 requests an hour of 100 input and 10 output tokens is
// 8.03 M tokens a month, $90.91 per million; at 1,000 prefill and 100 decode tokens a second
// half the GPU time is prefill: $50 per million input and $500 per million output tokens.
func TestPoolTokens(t *testing.T) {
	s := PoolSummary{MeanHour: 100, tokens: &traffic.TokenCounts{Requests: 2, Input: 200, Output: 20}}
	s.priceTokens(gpucost.USD(730_000_000_000), Pool{PrefillRate: 1000, DecodeRate: 100})
	tk := s.Tokens
	if tk == nil || tk.PerMillion.Fixed(2) != "90.91" || tk.PerMillionInput.Fixed(2) != "50.00" || tk.PerMillionOutput.Fixed(2) != "500.00" {
		t.Fatalf("priceTokens = %+v; want $90.91 per 1M, $50 input, $500 output", tk)
	}
	s = PoolSummary{MeanHour: 100}
	if s.priceTokens(gpucost.USD(1), Pool{}); s.Tokens != nil {
		t.Errorf("priceTokens without token counts = %+v, want none", s.Tokens)
	}
}
