package promql

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestVector(t *testing.T) {
	srv, asked := replay(t, map[string]string{"/api/v1/query": "testdata/api/vector.json"}, 200)
	c := &Collector{URL: srv.URL}
	at := time.Date(2025, 11, 22, 0, 0, 0, 0, time.UTC)
	vs, err := c.Vector(context.Background(), `sum by (namespace) (increase(requests_total[30d]))`, at)
	if err != nil || len(vs) != 2 {
		t.Fatalf("Vector = %v, %v", vs, err)
	}
	if vs[0].Labels["namespace"] != "serving" || vs[0].Value != 43200000 || vs[1].Value != 1500 {
		t.Errorf("Vector = %+v", vs)
	}
	if got := (*asked)[0].Get("time"); !strings.HasPrefix(got, "1763769600") {
		t.Errorf("time = %q", got)
	}
	srv, _ = replay(t, map[string]string{"/api/v1/query": "testdata/api/matrix.json"}, 200)
	c.URL = srv.URL
	if _, err := c.Vector(context.Background(), `requests_total[5m]`, at); err == nil || !strings.Contains(err.Error(), "not an instant vector") {
		t.Errorf("a matrix: %v", err)
	}
}
