package promql

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"testing"

	"github.com/gpucost/gpucost"
)

// FuzzDecode reads any answer without panicking and makes only valid samples of it.
func FuzzDecode(f *testing.F) {
	for _, file := range []string{"query.json", "query_range.json", "bad_data.json"} {
		b, err := os.ReadFile("testdata/api/" + file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"x"},"value":[1e300,"7"]}]}}`))
	u, _ := url.Parse("http://prometheus/api/v1/query")
	resp := &http.Response{StatusCode: 200, Status: "200 OK", Header: http.Header{}, Request: &http.Request{URL: u}}
	f.Fuzz(func(t *testing.T, body []byte) {
		res, _, err := decode("query", resp, body)
		if err != nil {
			return
		}
		var st Stats
		var g grouper
		g.init(&st)
		for _, s := range res.Result {
			g.add(s.Metric, s.Values)
			if s.Value != nil {
				g.add(s.Metric, []point{*s.Value})
			}
		}
		for _, s := range g.samples() {
			for _, v := range []float64{s.Util, s.MemUsedMiB, s.MemTotalMiB, s.PowerW, s.TempC, s.SMActive, s.SMOccupancy, s.GrEngineActive} {
				if !gpucost.IsAbsent(v) && v < 0 {
					t.Fatalf("sample %+v has a negative reading", s)
				}
			}
			if s.GPU.UUID == "" || s.Util > 100 || s.SMActive > 1 {
				t.Fatalf("sample %+v is not valid", s)
			}
		}
	})
}

// BenchmarkCollect is one instant query of 6 GPUs over loopback HTTP, answered from a recording.
func BenchmarkCollect(b *testing.B) {
	body, err := os.ReadFile("testdata/api/query.json")
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) }))
	defer srv.Close()
	c := &Collector{URL: srv.URL}
	for b.Loop() {
		if s, err := c.Collect(context.Background()); err != nil || len(s) != 6 {
			b.Fatal(err)
		}
	}
}
