package fleet

import (
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
)

// TestSnapshotAnomalies checks that a day far above its scope's baseline is found, with the
// resource that drove it, and that the baseline days are not judged themselves.
func TestSnapshotAnomalies(t *testing.T) {
	start := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	s := &Snapshot{Period: Period{Start: start, End: start.AddDate(0, 0, 21)}}
	for day := range 21 {
		cost := gpucost.USD(100e9 + int64(day%3)*1e9)
		id := "i-steady"
		if day == 18 {
			cost, id = gpucost.USD(900e9), "i-runaway"
		}
		l := &Line{LineResource: &LineResource{ResourceID: id, SKU: "BoxUsage:p5.48xlarge", Owner: gpucost.Owner{Team: "ml"}}}
		s.Charges = append(s.Charges, Charge{Kind: Other, Start: start.AddDate(0, 0, day).Add(5 * time.Hour), Line: l, Owner: l.Owner, Cost: cost})
	}
	d, err := ParseDimension("team")
	if err != nil {
		t.Fatal(err)
	}
	rep, o := s.Anomalies(d, analyze.AnomalyOptions{Window: 14, MinDays: 7, K: 3, Quantile: 0.95})
	if want := start.AddDate(0, 0, 14); !o.From.Equal(want) || !o.To.Equal(s.Period.End) {
		t.Errorf("Anomalies judged [%v, %v); want [%v, %v): the first 14 days are the baseline", o.From, o.To, want, s.Period.End)
	}
	if len(rep.Anomalies) != 1 {
		t.Fatalf("Anomalies = %+v; want the one runaway day", rep.Anomalies)
	}
	a := rep.Anomalies[0]
	if a.Scope != "ml" || !a.Day.Equal(start.AddDate(0, 0, 18)) || len(a.Drivers) == 0 || a.Drivers[0].ResourceID != "i-runaway" {
		t.Errorf("Anomalies[0] = %+v; want team ml on 2026-10-19, driven by i-runaway", a)
	}
}
