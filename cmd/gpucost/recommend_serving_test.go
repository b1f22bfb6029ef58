package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost/demo"
	"github.com/gpucost/gpucost/serving"
	"github.com/gpucost/gpucost/traffic"
)

// servingNow is when the serving tests build the demo: its 3 days end at this hour.
var servingNow = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// TestRecommendServingDemo builds the 3-day demo, whose serving pool's requests follow its
// utilisation at 40 ms a request (350/s at the 35% afternoon peak over 40 A100s), and sizes
// the pool by them: Erlang C at p99 ≤ 200 ms needs 19 replicas (3 × p4d.24xlarge of 8) at the
// busiest hour + 20%, and 1–3 machines hour by hour.
func TestRecommendServingDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the demo fleet")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "demo.db")
	if code, _, errOut := runAt(t, db, servingNow, "demo", "--days", "3", "--no-serve"); code != exitOK {
		t.Fatalf("demo: exit %d\n%s", code, errOut)
	}
	pools := filepath.Join(dir, "demo-serving.yaml")
	code, out, errOut := runAt(t, db, servingNow, "recommend", "--since", "3d", "--serving", pools)
	if code != exitOK {
		t.Fatalf("recommend --serving: exit %d\n%s", code, errOut)
	}
	_, plain, _ := runAt(t, db, servingNow, "recommend", "--since", "3d")
	main, section, ok := strings.Cut(out, "Serving pools by request counts")
	if !ok || main != plain+"\n" {
		t.Fatalf("recommend --serving: want recommend's own answer unchanged, then the serving section:\n%s", out)
	}
	for _, want := range []string{
		"they are not added to the total, nor to gpucost report savings",
		"│ S1 │ autoscale  │ scale serving-a100-01–05 by its requests between 1 and 3 × p4d.24xlarge by hour of the week (Erlang C per hour, p99 ≤ 200ms)",
		"│     $45,606.55 │",
		"│ S2 │ right-size │ size serving-a100-01–05 by its requests: 3 × p4d.24xlarge instead of 5 (19 replicas keep p99 ≤ 200ms at the busiest hour + 20%)",
		"│     $27,478.42 │",
		"Pool serving (5 serving machines in the bill), p99 ≤ 200ms, service time 40ms: busiest hour 1261485 requests, mean 755871",
		"4320 intervals of 1m0s from 2026-11-17 12:00:00): 54422730 requests over 72 hours of the period",
		"121 machine-hours a week by the schedule against 360 held: 239 h × $43.92 × 730/168 a month",
		"Erlang C at the busiest hour + 20% headroom: 19 replicas at 74% utilisation",
	} {
		if !strings.Contains(section, want) {
			t.Errorf("the serving section lacks %q:\n%s", want, section)
		}
	}
	checkServingJSON(t, db, pools)
	checkServingCSV(t, db, pools)
	t.Run("prometheus", func(t *testing.T) { checkServingPrometheus(t, db, dir, section) })
	t.Run("batching", func(t *testing.T) { checkServingBatching(t, db, dir) })
}

// checkServingBatching gives the pool a latency profile, 40 ms alone and 8 requests in 70 ms:
// batches serve the busiest hour on fewer machines than one request at a time.
func checkServingBatching(t *testing.T, db, dir string) {
	prof := "batch_size,latency_ms\n1,40\n2,44\n4,52\n8,70\n16,110\n"
	if err := os.WriteFile(filepath.Join(dir, "profile.csv"), []byte(prof), 0o644); err != nil {
		t.Fatal(err)
	}
	pools := filepath.Join(dir, "batch-serving.yaml")
	yaml := "pools:\n  - namespace: serving\n    slo: p99=200ms\n    batch_profile: profile.csv\n    requests: demo-requests.csv\n"
	if err := os.WriteFile(pools, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runAt(t, db, servingNow, "recommend", "--since", "3d", "--serving", pools)
	if code != exitOK {
		t.Fatalf("recommend --serving with a batch profile: exit %d\n%s", code, errOut)
	}
	_, section, _ := strings.Cut(out, "Serving pools by request counts")
	line := lineWith(section, "batch serving-a100-01–05's requests")
	if !strings.Contains(line, "(Triton max_batch_size") || !strings.Contains(line, "and run 1 × p4d.24xlarge instead of 3") || !strings.Contains(line, "$27,478.42") {
		t.Logf("%s", line)
		t.Errorf("no batching recommendation of 1 machine instead of 3, saving 2 of 5 machines' $68,696.05:\n%s", section)
	}
}

// checkServingJSON: --output json is {"plan": {...}, "serving": {...}}.
func checkServingJSON(t *testing.T, db, pools string) {
	t.Helper()
	code, out, errOut := runAt(t, db, servingNow, "recommend", "--since", "3d", "--serving", pools, "--output", "json")
	if code != exitOK {
		t.Fatalf("recommend --serving --output json: exit %d\n%s", code, errOut)
	}
	type rec struct {
		Kind          string `json:"kind"`
		MonthlySaving string `json:"monthly_saving"`
	}
	var got struct {
		Plan struct {
			Groups []struct {
				Steps []struct{ Recommendation rec } `json:"steps"`
			} `json:"groups"`
		} `json:"plan"`
		Serving struct {
			Note            string                `json:"note"`
			Pools           []serving.PoolSummary `json:"pools"`
			Recommendations []rec                 `json:"recommendations"`
		} `json:"serving"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	s := got.Serving
	if len(got.Plan.Groups) == 0 || len(got.Plan.Groups[0].Steps) == 0 || len(s.Recommendations) != 2 || len(s.Pools) != 1 || s.Pools[0].Machines != 5 ||
		s.Recommendations[0].MonthlySaving != "45606.545235" || s.Recommendations[1].Kind != "right-size" || math.Round(s.Pools[0].PeakHour) != 1261485 ||
		s.Pools[0].ServiceTimeS != 0.04 || !strings.Contains(s.Note, "not added to the total") {
		t.Errorf("recommend --serving --output json = %+v", s)
	}
}

// checkServingCSV: --output csv is one table, its Section column plan or serving.
func checkServingCSV(t *testing.T, db, pools string) {
	t.Helper()
	code, out, errOut := runAt(t, db, servingNow, "recommend", "--since", "3d", "--serving", pools, "--output", "csv")
	if code != exitOK {
		t.Fatalf("recommend --serving --output csv: exit %d\n%s", code, errOut)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	last := rows[len(rows)-1]
	if strings.Join(rows[0], ",") != "Section,#,ID,Lever,Action,Before,After,Saving,Confidence,Risk,Evidence" || rows[1][0] != "plan" ||
		last[0] != "serving" || last[1] != "S2" || last[7] != "$27,478.42" || !strings.Contains(last[10], "Erlang C at the busiest hour") {
		t.Errorf("recommend --serving --output csv:\n%s", out)
	}
}

// checkServingPrometheus serves the demo's requests as Prometheus would, one point an hour of
// the mean rate over the hour before it, and expects the same section as from the file.
func checkServingPrometheus(t *testing.T, db, dir, want string) {
	f, err := os.Open(filepath.Join(dir, "demo-requests.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := traffic.Read(f, "demo-requests.csv", traffic.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hourly, err := tr.Rebin(time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(promRangeHandler(t, hourly))
	defer srv.Close()
	pools := filepath.Join(dir, "prom-serving.yaml")
	yaml := fmt.Sprintf("pools:\n  - namespace: serving\n    slo: p99=200ms\n    service_time: 40ms\n    prometheus:\n      url: %s\n      query: 'sum(rate(vllm:request_success_total{namespace=\"serving\"}[1h]))'\n", srv.URL)
	if err := os.WriteFile(pools, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runAt(t, db, servingNow, "recommend", "--since", "3d", "--serving", pools)
	if code != exitOK {
		t.Fatalf("recommend --serving with prometheus: exit %d\n%s", code, errOut)
	}
	_, got, _ := strings.Cut(out, "Serving pools by request counts")
	for _, line := range []string{"│ S1 │", "│ S2 │"} {
		if lineWith(got, line) != lineWith(want, line) {
			t.Errorf("from Prometheus:\n%s\nfrom the file:\n%s", lineWith(got, line), lineWith(want, line))
		}
	}
	if !strings.Contains(got, "1 series, 72 hourly points") {
		t.Errorf("the pool's source lacks the points read:\n%s", got)
	}
}

// promRangeHandler answers /api/v1/query_range with one series: at each step t the trace's
// rate over the hour before t.
func promRangeHandler(t *testing.T, hourly *traffic.Trace) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if r.URL.Path != "/api/v1/query_range" || !strings.Contains(q.Get("query"), "vllm:request_success_total") || q.Get("step") != "3600" {
			t.Errorf("asked %s?%s", r.URL.Path, r.URL.RawQuery)
			http.NotFound(w, r)
			return
		}
		start, _ := strconv.ParseFloat(q.Get("start"), 64)
		end, _ := strconv.ParseFloat(q.Get("end"), 64)
		var pts []string
		for s := start; s <= end; s += 3600 {
			i := int(time.Unix(int64(s), 0).Add(-time.Hour).Sub(hourly.Start) / time.Hour)
			if i >= 0 && i < len(hourly.Rates) {
				pts = append(pts, fmt.Sprintf(`[%.3f,"%g"]`, s, hourly.Rates[i]))
			}
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[%s]}]}}`, strings.Join(pts, ","))
	}
}

func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

// TestRecommendServingBadFile: every mistake in a --serving file exits 2 naming the file, the
// line and the field.
func TestRecommendServingBadFile(t *testing.T) {
	const good = "pools:\n  - namespace: serving\n    slo: p99=200ms\n    service_time: 30ms\n    requests: requests.csv\n"
	for _, tc := range []struct {
		name, yaml, want string
	}{
		{"unknown field", strings.Replace(good, "service_time", "servce_time", 1), `serving.yaml line 4: unknown field "servce_time"; known fields here: namespace, slo, service_time`},
		{"bad slo", strings.Replace(good, "p99=200ms", "fast", 1), `serving.yaml line 3: pools[0].slo: "fast": use pNN=DURATION`},
		{"no slo", strings.Replace(good, "    slo: p99=200ms\n", "", 1), "serving.yaml line 2: pools[0].slo: missing"},
		{"bad service time", strings.Replace(good, "30ms", "thirty", 1), `serving.yaml line 4: pools[0].service_time: "thirty": give a duration`},
		{"service time over the SLO", strings.Replace(good, "30ms", "300ms", 1), "serving.yaml line 4: pools[0].service_time: 300ms is not below the SLO's 200ms"},
		{"no service time", strings.Replace(good, "    service_time: 30ms\n", "", 1), "serving.yaml line 2: pools[0].service_time: missing"},
		{"no requests", strings.Replace(good, "    requests: requests.csv\n", "", 1), "serving.yaml line 2: pools[0].requests: missing"},
		{"both sources", good + "    prometheus: {url: http://prom:9090, query: up}\n", "serving.yaml line 6: pools[0].prometheus: give either requests or prometheus"},
		{"bad prometheus url", strings.Replace(good, "requests: requests.csv", "prometheus: {url: prom, query: up}", 1), `serving.yaml line 5: pools[0].prometheus.url: "prom"`},
		{"no prometheus query", strings.Replace(good, "requests: requests.csv", "prometheus: {url: 'http://prom:9090'}", 1), "serving.yaml line 5: pools[0].prometheus.query: missing"},
		{"concurrency 0", good + "    concurrency: 0\n", "serving.yaml line 6: pools[0].concurrency: 0: give 1 to 4096"},
		{"concurrency not a number", good + "    concurrency: many\n", "serving.yaml line 6: cannot unmarshal str `many` into int"},
		{"no namespace", strings.Replace(good, "namespace: serving", "namespace: ''", 1), "serving.yaml line 2: pools[0].namespace: missing"},
		{"namespace twice", good + strings.TrimPrefix(good, "pools:\n"), `serving.yaml line 6: pools[1].namespace: "serving" is also the pool on line 2`},
		{"missing profile", strings.Replace(good, "service_time: 30ms", "batch_profile: nope.csv", 1), "serving.yaml line 4: pools[0].batch_profile: open"},
		{"bad indentation", "pools:\n  - namespace: serving\n   slo: p99=200ms\n", "serving.yaml line 1: did not find expected '-' indicator; check the indentation"},
		{"no pools", "pools: []\n", "serving.yaml line 1: pools: empty"},
		{"empty file", "", "serving.yaml: no pools"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "serving.yaml")
			if err := os.WriteFile(path, []byte(tc.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, errOut := runCLI(t, dir, "recommend", "--serving", path)
			if code != exitInvalid || !strings.Contains(errOut, tc.want) {
				t.Errorf("recommend --serving with %s: exit %d, %q; want exit 2 with %q", tc.name, code, errOut, tc.want)
			}
		})
	}
}

// TestRecommendServingRequestsFile: a missing requests file, one outside the period and one
// with bad rows are errors naming the pool and the file.
func TestRecommendServingRequestsFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "serving.yaml")
	yaml := "pools:\n  - namespace: serving\n    slo: p99=200ms\n    service_time: 30ms\n    requests: requests.csv\n"
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, csv, want string
	}{
		{"missing", "", "pools[0] (namespace serving): requests: open " + filepath.Join(dir, "requests.csv") + ": no such file or directory; give a request log or a timestamp,rate CSV"},
		{"outside the period", "timestamp,rate\n2020-01-01T00:00:00Z,5\n2020-01-01T00:01:00Z,5\n", "has no requests from 2026-11-02 00:00:00 to 2026-12-02 00:00:00"},
		{"bad rate", "timestamp,rate\n2026-11-20T00:00:00Z,5\n2026-11-20T00:01:00Z,lots\n", `requests.csv:3:2: rate "lots"`},
		{"less than a day", "timestamp,rate\n2026-11-20T00:00:00Z,5\n2026-11-20T00:01:00Z,5\n", "never 01:00–02:00 UTC; give at least one whole day"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(filepath.Join(dir, "requests.csv"))
			if tc.csv != "" {
				if err := os.WriteFile(filepath.Join(dir, "requests.csv"), []byte(tc.csv), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			code, _, errOut := runCLI(t, dir, "recommend", "--serving", path)
			if code != exitInvalid || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "serving.yaml line 2:") {
				t.Errorf("recommend --serving, requests %s: exit %d, %q; want exit 2 with serving.yaml line 2: and %q", tc.name, code, errOut, tc.want)
			}
		})
	}
}

// BenchmarkServingRequests reads 30 days of the demo pool's requests a minute (43,200 rows)
// into hours of the week, as recommend --serving does for a pool.
func BenchmarkServingRequests(b *testing.B) {
	end := servingNow
	from := end.Add(-30 * 24 * time.Hour)
	path := filepath.Join(b.TempDir(), "requests.csv")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := demo.ServingRates(f, demo.Fleet(), demo.ServingNamespace, demo.ServiceTime, from, end); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	p := serving.Pool{Namespace: "serving", Requests: path}
	b.ResetTimer()
	for b.Loop() {
		week, _, err := serving.PoolRequests(context.Background(), p, from, end)
		if err != nil || week[time.Monday][15] < 1e6 {
			b.Fatalf("serving.PoolRequests = %v, %v", week[time.Monday][15], err)
		}
	}
}
