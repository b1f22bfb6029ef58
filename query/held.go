package query

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/gpucost/gpucost"
)

// Months returns the months st holds, newest first, as YYYY-MM: its bills' billing periods and
// the months its telemetry spans. A store that cannot say (not a gpucost.PeriodStore) holds
// none; a telemetry span that cannot be read leaves the bills' months.
func Months(ctx context.Context, st any) ([]string, error) {
	ps, ok := st.(gpucost.PeriodStore)
	if !ok {
		return nil, nil
	}
	periods, err := ps.CostPeriods(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range periods {
		out = append(out, p.BillingPeriodStart.UTC().Format("2006-01"))
	}
	if span, err := ps.TelemetrySpan(ctx); err == nil && !span.Start.IsZero() {
		for m := monthStart(span.Start); m.Before(span.End); m = m.AddDate(0, 1, 0) {
			out = append(out, m.Format("2006-01"))
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	slices.Reverse(out)
	return out, nil
}

// monthStart is the midnight UTC that starts t's month.
func monthStart(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// LabelKeys returns the label keys of the last day of st's hourly rollups, sorted (of all its
// rollups where st cannot say when its telemetry ends).
func LabelKeys(ctx context.Context, st gpucost.RollupStore) ([]string, error) {
	var from time.Time
	if ps, ok := st.(gpucost.PeriodStore); ok {
		span, err := ps.TelemetrySpan(ctx)
		if err != nil || span.End.IsZero() {
			return nil, err
		}
		from = span.End.Add(-24 * time.Hour)
	}
	seen := map[string]bool{}
	err := st.ScanRollups(ctx, time.Hour, gpucost.RollupFilter{From: from}, func(r *gpucost.Rollup) error {
		for k := range r.Series.Labels {
			seen[k] = true
		}
		return nil
	})
	return slices.Sorted(maps.Keys(seen)), err
}
