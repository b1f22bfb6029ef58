package fleet

import (
	"time"

	"github.com/gpucost/gpucost/analyze"
)

// Anomalies judges the days of s's period after its first o.Window days, which are their
// baseline (report anomalies reads that much before the period asked for), with each charge a
// point of its day in the scope d names, its resource and SKU the drivers. It returns the
// report and o with the days judged, From and To, set.
func (s *Snapshot) Anomalies(d Dimension, o analyze.AnomalyOptions) (analyze.AnomalyReport, analyze.AnomalyOptions) {
	lookback := time.Duration(o.Window) * 24 * time.Hour
	o.From, o.To = s.Period.Start.Add(lookback).Truncate(24*time.Hour), s.Period.End
	det := analyze.NewDetector(o)
	for c := range s.All() {
		det.Add(analyze.CostPoint{Day: c.Start.UTC().Truncate(24 * time.Hour), Scope: d.Key(c), ResourceID: c.Resource(),
			SkuID: c.SKU(), Cost: c.Cost})
	}
	return det.Result(), o
}
