package spotrisk

import (
	"maps"
	"slices"

	"github.com/gpucost/gpucost/spot"
)

// Measured is each pool's rate over gpucost run's spot runs and the bill's spot instances,
// and what the bill gave to it.
type Measured struct {
	Rates         []Rate
	BillInstances int // the bill's instances the rates took
	BillCounted   int // the bill's instances left to the runs, whose events count them
}

// MeasureRunsAndBill measures each pool's rate (Measure, at DefaultConfidence) over the spot
// runs of every job's events and, where bill is not nil, the bill's spot instances, without
// counting an instance twice: a bill resource whose ID a run recorded is the run's. It adds
// the zone names and IDs the runs recorded to zones.
func MeasureRunsAndBill(jobs map[string][]spot.Event, bill *Bill, zones *Zones) Measured {
	var exps []Exposure
	counted := map[string]bool{}
	for _, job := range slices.Sorted(maps.Keys(jobs)) {
		zones.AddEvents(jobs[job])
		exps = append(exps, FromEvents(job, jobs[job])...)
		for _, ev := range jobs[job] {
			if ev.InstanceID != "" {
				counted[ev.InstanceID] = true
			}
		}
	}
	var m Measured
	if bill != nil {
		billExps, left := bill.Exposures(counted)
		exps = append(exps, billExps...)
		m.BillInstances, m.BillCounted = len(billExps), left
	}
	m.Rates = Measure(exps, DefaultConfidence)
	return m
}

// SpotRuns counts the runs on spot machines in every job's events.
func SpotRuns(jobs map[string][]spot.Event) int {
	n := 0
	for job, events := range jobs {
		n += len(FromEvents(job, events))
	}
	return n
}
