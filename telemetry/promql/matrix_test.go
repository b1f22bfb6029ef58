package promql

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rangeServer answers query_range with one series whose value at t is t's hour of the day,
// plus a NaN at hour 5, and records the ranges asked for.
func rangeServer(t *testing.T) (*httptest.Server, *[][2]float64) {
	var asked [][2]float64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/query_range" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		start, _ := strconv.ParseFloat(q.Get("start"), 64)
		end, _ := strconv.ParseFloat(q.Get("end"), 64)
		step, _ := strconv.ParseFloat(q.Get("step"), 64)
		asked = append(asked, [2]float64{start, end})
		var pts []string
		for s := start; s <= end; s += step {
			v := strconv.Itoa(time.Unix(int64(s), 0).UTC().Hour())
			if v == "5" {
				v = "NaN"
			}
			pts = append(pts, fmt.Sprintf(`[%.3f,"%s"]`, s, v))
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"namespace":"serving"},"values":[%s]}]}}`,
			strings.Join(pts, ","))
	}))
	t.Cleanup(srv.Close)
	return srv, &asked
}

// TestMatrix reads 3 days of hourly points in chunks of 24 and joins them into one series.
func TestMatrix(t *testing.T) {
	srv, asked := rangeServer(t)
	c := &Collector{URL: srv.URL, MaxPoints: 24}
	from := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	ss, err := c.Matrix(context.Background(), `sum(rate(requests_total[1h]))`, from, from.Add(71*time.Hour), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if len(*asked) != 3 || len(ss) != 1 || ss[0].Labels["namespace"] != "serving" {
		t.Fatalf("Matrix asked %v, got %d series; want 3 chunks of one series", *asked, len(ss))
	}
	pts := ss[0].Points
	if len(pts) != 69 { // 72 hours less the three NaNs at 05:00
		t.Fatalf("Matrix gave %d points, want 69", len(pts))
	}
	for i := 1; i < len(pts); i++ {
		if !pts[i].Time.After(pts[i-1].Time) {
			t.Fatalf("points out of order at %d: %v after %v", i, pts[i].Time, pts[i-1].Time)
		}
	}
	if last := pts[len(pts)-1]; !last.Time.Equal(from.Add(71*time.Hour)) || last.Value != 23 {
		t.Errorf("last point = %+v, want 23 at %v", last, from.Add(71*time.Hour))
	}
	if _, err := c.Matrix(context.Background(), "x", from, from, time.Hour); err == nil {
		t.Error("an empty range: no error")
	}
}

func TestMatrixNotAMatrix(t *testing.T) {
	srv, _ := replay(t, map[string]string{"/api/v1/query_range": "testdata/api/vector.json"}, 200)
	c := &Collector{URL: srv.URL}
	from := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	if _, err := c.Matrix(context.Background(), "x", from, from.Add(time.Hour), time.Hour); err == nil || !strings.Contains(err.Error(), "not a matrix") {
		t.Errorf("a vector answer: %v, want not a matrix", err)
	}
}

// TestPrometheusMatrix runs a range query on a real Prometheus scraping the real dcgm-exporter
// samples: how many of its targets are up, a second apart, once all of them are.
func TestPrometheusMatrix(t *testing.T) {
	srv, names := targets(t)
	url := startPrometheus(t, srv, names)
	c := &Collector{URL: url}
	var ss []Series
	var err error
	waitFor(t, 15*time.Second, func() bool {
		now := time.Now().Truncate(time.Second)
		ss, err = c.Matrix(context.Background(), "sum(up)", now.Add(-3*time.Second), now, time.Second)
		return err == nil && len(ss) == 1 && len(ss[0].Points) >= 3 && ss[0].Points[0].Value == float64(len(names))
	}, func() string { return fmt.Sprintf("Matrix = %+v, %v; want every target up over 3 s", ss, err) })
	for _, p := range ss[0].Points {
		if p.Value != float64(len(names)) || p.Time.Nanosecond() != 0 {
			t.Errorf("sum(up) at %v = %v, want the %d targets on whole seconds", p.Time, p.Value, len(names))
		}
	}
}
