package spotrisk

import (
	"testing"
	"time"

	"github.com/gpucost/gpucost/spot"
)

// TestMeasureRunsAndBill: the runs of TestMeasure with the bill of dailyBill give the pool of
// TestMergeRunsAndBill, 4 interruptions in 191 h; an instance a run recorded is the run's, so
// the bill leaves it out and counts it; without a bill the rates are the runs' alone.
func TestMeasureRunsAndBill(t *testing.T) {
	t0 := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
	var evs []spot.Event
	evs = append(evs, events("a", t0, 4, 3.9, true)...)
	evs = append(evs, events("b", t0.Add(5*time.Hour), 6, 5.9, true)...)
	evs = append(evs, events("c", t0.Add(12*time.Hour), 10, 0, true)...)
	evs = append(evs, events("d", t0.Add(30*time.Hour), 8, 0, false)...)
	for i := range evs {
		evs[i].Cloud = "aws"
	}
	jobs := map[string][]spot.Event{"ft": evs}
	if n := SpotRuns(jobs); n != 3 {
		t.Errorf("SpotRuns = %d, want 3 (d ran on demand)", n)
	}

	alone := MeasureRunsAndBill(jobs, nil, &Zones{})
	if len(alone.Rates) != 1 || alone.Rates[0].Hours != 20 || alone.Rates[0].Interruptions != 2 || alone.BillInstances != 0 {
		t.Errorf("MeasureRunsAndBill(runs, no bill) = %+v; want the runs' 2 in 20 h", alone)
	}

	both := MeasureRunsAndBill(jobs, dailyBill(), &Zones{})
	if len(both.Rates) != 1 || both.Rates[0].Hours != 191 || both.Rates[0].Interruptions != 4 || both.BillInstances != 5 || both.BillCounted != 0 {
		t.Errorf("MeasureRunsAndBill(runs, bill) = %+v; want 4 in 191 h, 5 bill instances", both)
	}

	evs[0].InstanceID = "i-5" // a run recorded the bill's i-5: its 44 h are the run's
	counted := MeasureRunsAndBill(jobs, dailyBill(), &Zones{})
	if len(counted.Rates) != 1 || counted.Rates[0].Hours != 191-44 || counted.BillInstances != 4 || counted.BillCounted != 1 {
		t.Errorf("MeasureRunsAndBill(a run recorded i-5) = %+v; want %v h, 4 bill instances, 1 counted by the runs", counted, 191-44)
	}
}
