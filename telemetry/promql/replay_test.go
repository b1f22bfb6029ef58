package promql

import (
	"context"
	"flag"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/goldenfile"
)

var update = flag.Bool("update", false, "record testdata/api from a real Prometheus and rewrite the golden files")

func queryEscape(s string) string { return url.QueryEscape(s) }

func golden(samples []gpucost.Sample) []byte { return goldenfile.Samples(samples) }

func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	goldenfile.Check(t, path, got, *update)
}

// replay serves recorded API answers: path → status and body file; it notes the queries asked.
func replay(t *testing.T, answers map[string]string, status int) (*httptest.Server, *[]url.Values) {
	var asked []url.Values
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.Query())
		file, ok := answers[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		body, err := os.ReadFile(file)
		if err != nil {
			t.Error(err)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, &asked
}

func TestReplayCollect(t *testing.T) {
	srv, asked := replay(t, map[string]string{"/api/v1/query": "testdata/api/query.json"}, 200)
	c := &Collector{URL: srv.URL + "/", Selector: `{cluster="prod"}`}
	samples, err := c.Collect(context.Background())
	if err != nil || len(samples) != 6 {
		t.Fatalf("Collect = %d samples, %v; want 6", len(samples), err)
	}
	checkGolden(t, "testdata/query.golden.json", golden(samples))
	q := (*asked)[0].Get("query")
	if !strings.HasPrefix(q, `{__name__=~"DCGM_FI_DEV_FB_FREE|DCGM_FI_DEV_FB_RESERVED|DCGM_FI_DEV_FB_TOTAL|DCGM_FI_DEV_FB_USED|`) ||
		!strings.HasSuffix(q, `",cluster="prod"}`) || (*asked)[0].Get("time") == "" {
		t.Errorf("query = %q", q)
	}
}

func TestReplayRange(t *testing.T) {
	srv, asked := replay(t, map[string]string{"/api/v1/query_range": "testdata/api/query_range.json"}, 200)
	var samples []gpucost.Sample
	from := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	err := (&Collector{URL: srv.URL}).Range(context.Background(), from, from.Add(3*time.Second), time.Second,
		func(s gpucost.Sample) { samples = append(samples, s) })
	if err != nil {
		t.Fatalf("Range: %v", err)
	}
	checkGolden(t, "testdata/query_range.golden.json", golden(samples))
	for i := 1; i < len(samples); i++ {
		if samples[i].Time.Before(samples[i-1].Time) {
			t.Fatalf("sample %d at %v comes after one at %v", i, samples[i].Time, samples[i-1].Time)
		}
	}
	if a := (*asked)[0]; a.Get("start") != "1793527200.000" || a.Get("end") != "1793527203.000" || a.Get("step") != "1" {
		t.Errorf("query_range params = %v", a)
	}
}

// TestRangeChunks splits a long range into requests within the point limit, without gaps or
// overlaps.
func TestRangeChunks(t *testing.T) {
	var asked [][2]string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, [2]string{r.URL.Query().Get("start"), r.URL.Query().Get("end")})
		w.Write([]byte(`{"status":"success","data":{"resultType":"matrix","result":[]}}`))
	}))
	defer srv.Close()
	from := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	c := &Collector{URL: srv.URL}
	if err := c.Range(context.Background(), from, from.Add(30*24*time.Hour), time.Minute, func(gpucost.Sample) {}); err != nil {
		t.Fatal(err)
	}
	// 43,201 steps: a first chunk of 1,000, then chunks of 11,000.
	want := [][2]string{{"1793491200.000", "1793551140.000"}, {"1793551200.000", "1794211140.000"},
		{"1794211200.000", "1794871140.000"}, {"1794871200.000", "1795531140.000"}, {"1795531200.000", "1796083200.000"}}
	if len(asked) != len(want) {
		t.Fatalf("asked %v, want %v", asked, want)
	}
	for i := range want {
		if asked[i] != want[i] {
			t.Errorf("chunk %d = %v, want %v", i, asked[i], want[i])
		}
	}
}

// TestRangeTooManySamples halves a chunk the server finds too large.
func TestRangeTooManySamples(t *testing.T) {
	var steps []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start, end := r.URL.Query().Get("start"), r.URL.Query().Get("end")
		steps = append(steps, start+"-"+end)
		if len(steps) == 1 {
			w.WriteHeader(422)
			w.Write([]byte(`{"status":"error","errorType":"execution","error":"query processing would load too many samples into memory in query execution"}`))
			return
		}
		w.Write([]byte(`{"status":"success","data":{"resultType":"matrix","result":[]}}`))
	}))
	defer srv.Close()
	from := time.Unix(1793491200, 0)
	err := (&Collector{URL: srv.URL}).Range(context.Background(), from, from.Add(999*time.Second), time.Second, func(gpucost.Sample) {})
	if err != nil || len(steps) != 3 || steps[1] != "1793491200.000-1793491699.000" {
		t.Errorf("Range = %v after %v; want the 1,000-step chunk retried as two of 500", err, steps)
	}
}

func TestReplayErrors(t *testing.T) {
	srv, _ := replay(t, map[string]string{"/api/v1/query": "testdata/api/bad_data.json"}, 400)
	_, err := (&Collector{URL: srv.URL}).Collect(context.Background())
	if err == nil || gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "Prometheus query: Prometheus answered 400 bad_data: ") {
		t.Errorf("Collect = %v, want the bad_data answer", err)
	}
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body>Grafana</body></html>"))
	}))
	defer html.Close()
	_, err = (&Collector{URL: html.URL}).Collect(context.Background())
	if err == nil || gpucost.ErrorCode(err) != gpucost.EUnavailable || !strings.Contains(err.Error(), "not a Prometheus API answer") {
		t.Errorf("Collect from a web page = %v", err)
	}
	if _, err = (&Collector{URL: "http://127.0.0.1:1"}).Collect(context.Background()); gpucost.ErrorCode(err) != gpucost.EUnavailable {
		t.Errorf("Collect from a closed port = %v, want unavailable", err)
	}
	empty := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"status":"success","data":{"resultType":"vector","result":[]}}`))
	}))
	defer empty.Close()
	if _, err = (&Collector{URL: empty.URL}).Collect(context.Background()); gpucost.ErrorCode(err) != gpucost.ENotFound ||
		!strings.Contains(err.Error(), "has no DCGM series matching") {
		t.Errorf("Collect from a server without DCGM series = %v, want not found", err)
	}
}

// TestWarningsAndBadValues reads an answer with warnings, a NaN and a negative value.
func TestWarningsAndBadValues(t *testing.T) {
	body := `{"status":"success","warnings":["PromQL info: metric might not be a counter"],"data":{"resultType":"vector","result":[
	 {"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","UUID":"GPU-a","gpu":"0","Hostname":"h","instance":"10.0.0.5:9400","job":"dcgm"},"value":[1793527200.5,"NaN"]},
	 {"metric":{"__name__":"DCGM_FI_DEV_POWER_USAGE","UUID":"GPU-a","gpu":"0","Hostname":"h","instance":"10.0.0.5:9400","job":"dcgm"},"value":[1793527200.5,"-3"]},
	 {"metric":{"__name__":"DCGM_FI_DEV_GPU_TEMP","gpu":"1","instance":"10.0.0.5:9400","job":"dcgm"},"value":[1793527200.5,"40"]},
	 {"metric":{"__name__":"DCGM_FI_DEV_GPU_TEMP","instance":"10.0.0.5:9400"},"value":[1793527200.5,"41"]}]}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(body)) }))
	defer srv.Close()
	var st Stats
	samples, err := (&Collector{URL: srv.URL, OnStats: func(s Stats) { st = s }}).Collect(context.Background())
	if err != nil || len(samples) != 1 || samples[0].GPU.Host != "10.0.0.5" || samples[0].TempC != 40 {
		t.Fatalf("Collect = %+v, %v; want GPU 1 of host 10.0.0.5 (from instance) at 40 °C", samples, err)
	}
	if st.Skipped != 3 || len(st.Warnings) != 1 || st.Series != 4 {
		t.Errorf("stats = %+v; want 3 skips (NaN, negative, no GPU) and the warning", st)
	}
	if got := st.Skips[1].String(); got != "prometheus: DCGM_FI_DEV_POWER_USAGE: GPU-a at 2026-11-01T10:00:00.5Z: negative value -3; reading left out" {
		t.Errorf("skip = %q", got)
	}
}

func TestRangeArguments(t *testing.T) {
	now := time.Now()
	for _, step := range []time.Duration{0, -time.Second} {
		if err := (&Collector{URL: "http://x"}).Range(context.Background(), now, now.Add(time.Hour), step, nil); gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("Range(step %v) = %v, want invalid", step, err)
		}
	}
	if err := (&Collector{URL: "http://x"}).Range(context.Background(), now, now.Add(-time.Hour), time.Second, nil); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("Range(to before from) = %v, want invalid", err)
	}
}
