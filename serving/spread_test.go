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
