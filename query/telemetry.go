package query

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/fleet"
)

// Utilization runs the utilisation analysis by by over the period's hourly rollups of the series
// keep accepts (all where nil), with the fleet snapshot's figures (report utilization).
//
// The rollups are read once: the scan that builds the snapshot feeds the analysis too
// (snapshotAnd), which prices its series only when the snapshot is done.
func (r *Report) Utilization(ctx context.Context, by analyze.GroupBy, keep func(*gpucost.Series) bool) (analyze.Report, *fleet.Snapshot, error) {
	opts := r.Options
	opts.By = by
	var priceOf func(*gpucost.Series) (gpucost.Money, bool)
	// prices the zero-util runs (SustainedIdleCost) as the snapshot does, asked in u.Result
	opts.Price = func(s *gpucost.Series) (gpucost.Money, bool) { return priceOf(s) }
	u := analyze.NewUtilization(opts)
	snap, err := r.snapshotAnd(ctx, OnlySeries(keep, u.Add), OnlySeriesDays(keep, u.AddDay))
	if err != nil {
		return analyze.Report{}, nil, err
	}
	priceOf = snap.PriceOf()
	return snap.Annotate(u.Result(), SeriesCharges(keep)), snap, nil
}

// Idle runs the zero-util analysis over the period's hourly rollups of the series keep accepts
// (all where nil), priced as the snapshot prices their GPUs; the periods come longest first
// (report idle). The snapshot holds the fleet's idle figures.
func (r *Report) Idle(ctx context.Context, minIdle time.Duration, keep func(*gpucost.Series) bool) (analyze.IdleReport, *fleet.Snapshot, error) {
	snap, err := r.Snapshot(ctx)
	if err != nil {
		return analyze.IdleReport{}, nil, err
	}
	opts := r.Options
	opts.MinIdle = minIdle
	opts.Price = snap.PriceOf()
	d := analyze.NewIdle(opts)
	if err := r.Scan(ctx, time.Hour, OnlySeries(keep, d.Add)); err != nil {
		return analyze.IdleReport{}, nil, err
	}
	rep := d.Result()
	slices.SortStableFunc(rep.Periods, func(a, b analyze.IdlePeriod) int { return cmp.Compare(b.Duration, a.Duration) })
	return rep, snap, nil
}

// Alerts evaluates the monitoring rules over the period's minute rollups of the series keep
// accepts (all where nil) (report alerts).
func (r *Report) Alerts(ctx context.Context, keep func(*gpucost.Series) bool) (analyze.AlertReport, error) {
	rules := r.AlertRules
	if rules == nil {
		rules = analyze.DefaultRules()
	}
	ev, err := analyze.EvaluateAlerts(rules, r.Period.End, tdp)
	if err != nil {
		return analyze.AlertReport{}, err
	}
	if err := r.Scan(ctx, time.Minute, OnlySeries(keep, ev.Add)); err != nil {
		return analyze.AlertReport{}, err
	}
	return ev.Result(), nil
}

// Heatmap fills the hourly mean utilisation of each GPU or host (by) of the series keep accepts
// (all where nil) over the period.
func (r *Report) Heatmap(ctx context.Context, by string, keep func(*gpucost.Series) bool) (analyze.Heatmap, error) {
	hm := analyze.NewHeatmap(by, r.Period.Start, r.Period.End, NormalizeModel)
	err := r.Scan(ctx, time.Hour, OnlySeries(keep, hm.Add))
	return hm.Result(), err
}

// tdp returns a model's board power from the catalog's datasheets.
func tdp(model string) (float64, bool) {
	spec, ok := catalog.Spec(model)
	return spec.TDPW, ok && spec.TDPW > 0
}

// OnlySeries passes on the rollups of the series keep accepts (all where nil).
func OnlySeries(keep func(*gpucost.Series) bool, add func(*gpucost.Rollup)) func(*gpucost.Rollup) {
	if keep == nil {
		return add
	}
	return func(r *gpucost.Rollup) {
		if keep(r.Series) {
			add(r)
		}
	}
}

// OnlySeriesDays passes on the days of the series keep accepts (all where nil), as OnlySeries
// their hours; a day keep refuses counts as passed on.
func OnlySeriesDays(keep func(*gpucost.Series) bool, add func(*gpucost.DayRollup) bool) func(*gpucost.DayRollup) bool {
	if keep == nil {
		return add
	}
	return func(d *gpucost.DayRollup) bool {
		return !keep(d.Series) || add(d)
	}
}

// SeriesCharges is the charges of the series keep accepts (all where nil).
func SeriesCharges(keep func(*gpucost.Series) bool) func(*fleet.Charge) bool {
	if keep == nil {
		return nil
	}
	return func(c *fleet.Charge) bool { return c.Series != nil && keep(c.Series) }
}
