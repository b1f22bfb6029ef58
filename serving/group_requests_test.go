package serving

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestGroupRequests checks report kpi's request counts: a CSV's rows dated in the period summed
// per group, a Prometheus vector summed per value of the group label, and none without a source.
func TestGroupRequests(t *testing.T) {
	ctx := context.Background()
	from := time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC)
	to := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	file := filepath.Join(t.TempDir(), "requests.csv")
	csv := "date,team,requests\n2026-11-01,ml,10\n2026-10-31,ml,5\n2026-12-01,ml,7\n2026-11-30,search,3\n2026-11-02,ml,1.5\n"
	if err := os.WriteFile(file, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	prom := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"success","data":{"resultType":"vector","result":[` +
			`{"metric":{"team":"ml","pod":"a"},"value":[1764547200,"100"]},` +
			`{"metric":{"team":"ml","pod":"b"},"value":[1764547200,"20"]},` +
			`{"metric":{"team":"search"},"value":[1764547200,"7"]}]}}`))
	}))
	defer prom.Close()
	for _, tt := range []struct {
		name       string
		g          GroupRequests
		want       map[string]float64
		wantSource string
	}{
		{"csv", GroupRequests{File: file}, map[string]float64{"ml": 11.5, "search": 3}, file},
		{"prometheus", GroupRequests{Prometheus: prom.URL, Query: "sum by (team, pod) (requests)"}, map[string]float64{"ml": 120, "search": 7}, prom.URL},
		{"none", GroupRequests{}, nil, ""},
	} {
		got, source, err := tt.g.Read(ctx, "team", from, to)
		if err != nil || !reflect.DeepEqual(got, tt.want) || source != tt.wantSource {
			t.Errorf("%s: Read = %v, %q, %v; want %v, %q", tt.name, got, source, err, tt.want, tt.wantSource)
		}
	}
}
