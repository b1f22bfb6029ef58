package demo

import (
	"math/rand/v2"
	"time"
)

// AppliedStep is the plan step the demo applies partway through its days, as reference case
// R1 did: the weekly evaluation job's machine, held 24 hours for 8 hours of work, is released
// when the job ends. Its bill and telemetry stop at 08:00 on the Mondays after.
const AppliedStep = "eval-p4d.24xlarge/right-sizing/release-on-exit"

// minAfter is how many evaluation Mondays a load must hold after the step for its saving to
// be measured on the bill (docs/architecture.md "Realized savings": three days with lines).
const minAfter = 3

// AppliedAt returns when the demo applies AppliedStep: the midnight ending the load's first
// whole Monday, when the load holds minAfter Mondays after it; ok is false otherwise, and the
// load's fleet is the fleet unchanged.
func (l Load) AppliedAt() (at time.Time, ok bool) {
	day := l.From().Truncate(24 * time.Hour)
	if day.Before(l.From()) {
		day = day.Add(24 * time.Hour) // a whole Monday: the load starts at l.From
	}
	for day.Weekday() != time.Monday {
		day = day.Add(24 * time.Hour)
	}
	at = day.Add(24 * time.Hour)
	mondays := 0
	for d := at; !d.Add(24 * time.Hour).After(l.End); d = d.Add(24 * time.Hour) {
		if d.Weekday() == time.Monday {
			mondays++
		}
	}
	return at, mondays >= minAfter
}

// Applied returns the fleet as the load runs it: with AppliedStep made at AppliedAt where the
// load applies it, else fleet itself.
func (l Load) Applied(fleet []Instance) []Instance {
	at, ok := l.AppliedAt()
	if !ok {
		return fleet
	}
	out := append([]Instance{}, fleet...)
	for i, in := range out {
		if in.Namespace != "eval" {
			continue
		}
		held := in.Workload
		out[i].Workload = func(gpu int, t time.Time, r *rand.Rand) (float64, float64, bool) {
			util, mem, ok := held(gpu, t, r)
			if ok && !t.Before(at) && t.Hour() >= 8 {
				return 0, 0, false // released when the job ends at 08:00
			}
			return util, mem, ok
		}
	}
	return out
}
