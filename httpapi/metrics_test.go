package httpapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/gpucost/gpucost"
)

// scrape reads /metrics with secret and parses it as Prometheus does.
func scrape(t *testing.T, f *fixture, secret string) map[string]*dto.MetricFamily {
	t.Helper()
	status, out := f.do(t, "GET", "/metrics", secret, nil)
	if status != 200 {
		t.Fatalf("GET /metrics = %d %s", status, out)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("parse /metrics: %v\n%s", err, out)
	}
	return fams
}

// seriesValue returns the value of the series of name whose labels include want (label=value pairs),
// and whether there is one.
func seriesValue(fams map[string]*dto.MetricFamily, name string, want ...string) (float64, bool) {
	fam := fams[name]
	if fam == nil {
		return 0, false
	}
next:
	for _, m := range fam.Metric {
		have := map[string]string{}
		for _, l := range m.Label {
			have[l.GetName()] = l.GetValue()
		}
		for i := 0; i+1 < len(want); i += 2 {
			if have[want[i]] != want[i+1] {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		case m.Untyped != nil:
			return m.Untyped.GetValue(), true
		}
	}
	return 0, false
}

func wantValue(t *testing.T, fams map[string]*dto.MetricFamily, want float64, name string, labels ...string) {
	t.Helper()
	got, ok := seriesValue(fams, name, labels...)
	if !ok {
		t.Errorf("%s%v: missing", name, labels)
		return
	}
	if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("%s%v = %g; want %g", name, labels, got, want)
	}
}

func TestMetricsServerHealth(t *testing.T) {
	f := newFixture(t)
	samples := testSamples(2, 2, 3, testNow.Add(-time.Hour)) // 12 valid
	bad := samples[0]
	bad.Util = 250
	samples = append(samples, bad, bad)
	if status, out := f.do(t, "POST", "/api/v1/samples", f.secrets[gpucost.RoleIngest], samplesBody(t, samples)); status != 200 {
		t.Fatalf("POST samples = %d %s", status, out)
	}
	f.do(t, "GET", "/api/v1/whoami", "", nil)                                       // missing
	f.do(t, "GET", "/api/v1/whoami", "gpc_nope", nil)                               // invalid
	f.do(t, "GET", "/api/v1/whoami", f.revoked, nil)                                // invalid
	f.do(t, "POST", "/api/v1/samples", f.secrets[gpucost.RoleViewer], []byte("{}")) // forbidden
	f.do(t, "GET", "/api/v1/nothing", f.secrets[gpucost.RoleViewer], nil)

	for _, c := range []struct {
		secret string
		want   int
	}{{"", 401}, {f.revoked, 401}, {f.secrets[gpucost.RoleIngest], 403}} {
		if status, _ := f.do(t, "GET", "/metrics", c.secret, nil); status != c.want {
			t.Errorf("GET /metrics with a bad token = %d; want %d", status, c.want)
		}
	}
	fams := scrape(t, f, f.secrets[gpucost.RoleViewer])
	wantValue(t, fams, 12, "gpucost_ingest_samples_total", "result", "accepted")
	wantValue(t, fams, 2, "gpucost_ingest_samples_total", "result", "skipped")
	wantValue(t, fams, 0, "gpucost_ingest_samples_total", "result", "refused")
	wantValue(t, fams, 1, "gpucost_http_requests_total", "route", "POST /api/v1/samples", "code", "200")
	wantValue(t, fams, 1, "gpucost_http_requests_total", "route", "POST /api/v1/samples", "code", "403")
	wantValue(t, fams, 3, "gpucost_http_requests_total", "route", "GET /api/v1/whoami", "code", "401")
	wantValue(t, fams, 1, "gpucost_http_requests_total", "route", "other", "code", "404")
	wantValue(t, fams, 2, "gpucost_http_requests_total", "route", "GET /metrics", "code", "401")
	wantValue(t, fams, 1, "gpucost_http_requests_total", "route", "GET /metrics", "code", "403")
	wantValue(t, fams, 2, "gpucost_http_request_duration_seconds", "route", "POST /api/v1/samples")
	wantValue(t, fams, 2, "gpucost_auth_failures_total", "reason", "missing")
	wantValue(t, fams, 3, "gpucost_auth_failures_total", "reason", "invalid")
	wantValue(t, fams, 2, "gpucost_auth_failures_total", "reason", "forbidden")
	if fams["go_goroutines"] == nil || fams["process_start_time_seconds"] == nil {
		t.Errorf("/metrics lacks the Go and process collectors")
	}
	if fams["gpucost_gpu_hours"] != nil || fams["gpucost_ingest_queue_samples"] != nil {
		t.Errorf("a server without Fleet and QueueDepth serves their series")
	}
	for _, secret := range f.secrets {
		if _, out := f.do(t, "GET", "/metrics", f.secrets[gpucost.RoleAdmin], nil); strings.Contains(string(out), secret) {
			t.Errorf("a token secret appears in /metrics")
		}
	}
}

func TestMetricsRefusedSamples(t *testing.T) {
	f := newFixture(t)
	q := &Queue{Next: f.writer, Max: 10}
	f.srv.Ingest, f.srv.QueueDepth = q, q.Held
	f.srv.FlushErrors = func() int64 { return 3 }
	f.restart(t)
	body := samplesBody(t, testSamples(1, 2, 4, testNow.Add(-time.Hour))) // 8 samples
	for _, want := range []int{200, 503} {
		if status, out := f.do(t, "POST", "/api/v1/samples", f.secrets[gpucost.RoleIngest], body); status != want {
			t.Fatalf("POST samples = %d %s; want %d", status, out, want)
		}
	}
	fams := scrape(t, f, f.secrets[gpucost.RoleAdmin])
	wantValue(t, fams, 8, "gpucost_ingest_samples_total", "result", "accepted")
	wantValue(t, fams, 8, "gpucost_ingest_samples_total", "result", "refused")
	wantValue(t, fams, 8, "gpucost_ingest_queue_samples")
	wantValue(t, fams, 3, "gpucost_writer_flush_errors_total")
	wantValue(t, fams, 1, "gpucost_http_requests_total", "route", "POST /api/v1/samples", "code", "503")
}

func TestMetricsFleetCache(t *testing.T) {
	f := newFixture(t)
	clock := &testClock{now: testNow}
	f.srv.Now = clock.Now
	var (
		mu    sync.Mutex
		calls int
		fail  error
	)
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		return calls
	}
	f.srv.Fleet = func(ctx context.Context, at time.Time) (FleetMetrics, error) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if now := clock.Now(); !at.Equal(now) {
			t.Errorf("Fleet called at %v; want the server's now %v", at, now)
		}
		if fail != nil {
			return FleetMetrics{}, fail
		}
		return FleetMetrics{
			Namespaces: []NamespaceUsage{{Namespace: "ml", GPUs: 4, GPUHours: 4, IdleGPUHours: 1, UtilMean: 62.5},
				{Namespace: "(none)", GPUs: 1, GPUHours: 0.5, IdleGPUHours: 0.5, UtilMean: math.NaN()}},
			Teams: []TeamCost{{Team: "vision", CostUSD: 1234.5, IdleUSD: 20.25, GPUHours: float64(calls)}},
		}, nil
	}
	f.restart(t)

	fams := scrape(t, f, f.secrets[gpucost.RoleViewer])
	wantValue(t, fams, 4, "gpucost_gpu_hours", "namespace", "ml")
	wantValue(t, fams, 1, "gpucost_gpu_idle_hours", "namespace", "ml")
	wantValue(t, fams, 0.25, "gpucost_gpu_idle_ratio", "namespace", "ml")
	wantValue(t, fams, 0.625, "gpucost_gpu_utilization_ratio", "namespace", "ml")
	wantValue(t, fams, 1, "gpucost_gpu_idle_ratio", "namespace", "(none)")
	if _, ok := seriesValue(fams, "gpucost_gpu_utilization_ratio", "namespace", "(none)"); ok {
		t.Errorf("an unknown utilisation is served")
	}
	wantValue(t, fams, 1234.5, "gpucost_cost_usd", "team", "vision")
	wantValue(t, fams, 20.25, "gpucost_idle_cost_usd", "team", "vision")
	wantValue(t, fams, float64(testNow.Unix()), "gpucost_fleet_metrics_last_success_timestamp_seconds")

	clock.Add(59 * time.Second)
	scrape(t, f, f.secrets[gpucost.RoleViewer])
	if calls := count(); calls != 1 {
		t.Errorf("two scrapes within a minute computed the fleet series %d times; want 1", calls)
	}
	lastOK := clock.Add(time.Second)
	fams = scrape(t, f, f.secrets[gpucost.RoleViewer])
	wantValue(t, fams, 2, "gpucost_used_gpu_hours", "team", "vision")

	mu.Lock()
	fail = errors.New("the store is gone")
	mu.Unlock()
	clock.Add(time.Minute)
	fams = scrape(t, f, f.secrets[gpucost.RoleViewer])
	wantValue(t, fams, 2, "gpucost_used_gpu_hours", "team", "vision") // kept
	wantValue(t, fams, 1, "gpucost_fleet_metrics_errors_total")
	wantValue(t, fams, float64(lastOK.Unix()), "gpucost_fleet_metrics_last_success_timestamp_seconds")
	if !strings.Contains(f.logs.String(), "the store is gone") {
		t.Errorf("the failed computation is not logged")
	}

	// Ingest never computes the fleet series.
	before := count()
	now := clock.Add(time.Hour)
	f.do(t, "POST", "/api/v1/samples", f.secrets[gpucost.RoleIngest], samplesBody(t, testSamples(1, 1, 2, now.Add(-time.Minute))))
	if count() != before {
		t.Errorf("ingest computed the fleet series")
	}
}

// restart serves f.srv anew after a test changed its settings.
func (f *fixture) restart(t *testing.T) {
	f.ts.Close()
	f.ts = httptest.NewServer(f.srv.Handler())
	t.Cleanup(f.ts.Close)
}

// testClock is a clock a test moves while the server reads it.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Add(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.now
}

// BenchmarkMetricsScrape serves /metrics with cached fleet series of 100 namespaces and 50
// teams: the cost of a scrape between the once-a-minute computations.
func BenchmarkMetricsScrape(b *testing.B) {
	f := newFixture(b)
	var fm FleetMetrics
	for i := range 100 {
		fm.Namespaces = append(fm.Namespaces, NamespaceUsage{Namespace: fmt.Sprint("ns-", i), GPUs: 8, GPUHours: 8, IdleGPUHours: 2, UtilMean: 40})
	}
	for i := range 50 {
		fm.Teams = append(fm.Teams, TeamCost{Team: fmt.Sprint("team-", i), CostUSD: 1000, IdleUSD: 100, GPUHours: 30})
	}
	f.srv.Fleet = func(context.Context, time.Time) (FleetMetrics, error) { return fm, nil }
	f.ts.Close()
	f.ts = httptest.NewServer(f.srv.Handler())
	b.Cleanup(f.ts.Close)
	secret := f.secrets[gpucost.RoleViewer]
	for b.Loop() {
		if status, _ := f.do(b, "GET", "/metrics", secret, nil); status != 200 {
			b.Fatalf("GET /metrics = %d", status)
		}
	}
}
