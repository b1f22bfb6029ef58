package serving

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/recommend"
)

// TestLoad reads a serving file whose pool's requests, a rate file beside it, cover one whole
// day at 10/s, and sums the pool up; Section counts the pool's serving machines in the bill.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	day := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	var rates strings.Builder
	rates.WriteString("timestamp,rate\n")
	for h := range 24 {
		fmt.Fprintf(&rates, "%s,10\n", day.Add(time.Duration(h)*time.Hour).Format(time.RFC3339))
	}
	if err := os.WriteFile(filepath.Join(dir, "requests.csv"), []byte(rates.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "serving.yaml")
	yaml := "pools:\n  - namespace: chat\n    slo: p99=200ms\n    service_time: 30ms\n    requests: requests.csv\n"
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	pools, err := ReadFile(file)
	if err != nil || len(pools) != 1 || pools[0].Requests != filepath.Join(dir, "requests.csv") || pools[0].Line != 2 {
		t.Fatalf("ReadFile = %+v, %v; want one pool on line 2 reading requests.csv beside the file", pools, err)
	}
	in, err := Load(context.Background(), file, pools, day.Add(5*time.Hour), day.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	s := in.Pools[0]
	if len(in.Traffic) != 1 || s.Namespace != "chat" || s.SLO != "p99 ≤ 200ms" || s.PeakHour != 36000 || s.MeanHour != 36000 ||
		!strings.Contains(s.Source, "864000 requests over 24 hours") {
		t.Errorf("Load = %+v; want chat at 36,000 requests every hour, read from midnight", s)
	}
	cat, err := catalog.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	v := recommend.FleetView{From: day, To: day.Add(24 * time.Hour), Resources: []recommend.Resource{{ID: "i-1", Namespace: "chat", Kind: recommend.KindServing}, {ID: "i-2", Namespace: "chat", Kind: recommend.KindTraining}}}
	sec, err := in.Section(v, recommend.FromCatalog(cat), recommend.Options{MinSaving: gpucost.USD(0)})
	if err != nil || sec.Pools[0].Machines != 1 || sec.Recommendations == nil || sec.Note == "" {
		t.Errorf("Section = %+v, %v; want 1 serving machine of chat and a non-nil list", sec, err)
	}

	if _, err := ReadFile(filepath.Join(dir, "none.yaml")); gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.HasPrefix(err.Error(), "--serving: ") {
		t.Errorf("ReadFile(missing) = %v; want an EInvalid error naming --serving", err)
	}
}
