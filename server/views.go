package server

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/query"
)

// Default periods of the views when a query gives none.
const (
	viewTelemetryPeriod = 7 * 24 * time.Hour  // utilisation, heatmap, idle
	viewAlertsPeriod    = 24 * time.Hour      // alerts read minute rollups, as gpucost report alerts
	viewCostPeriod      = 30 * 24 * time.Hour // costs and recommendations
)

// provider prices the GPU-hours no bill line covers in every view, as the reports' default.
const provider = "aws"

// Views are the read API's and the dashboard's views over the server's store, computed through
// query with the code of gpucost report, recommend and budget status, each at most once per
// Options.ViewsEvery per distinct query.
type Views struct {
	store           gpucost.Store
	budgetsFile     string
	jobsStore       string
	openObjectStore func(ctx context.Context, url string) (gpucost.ObjectStore, error)
	natsURL         string
	alertRules      []analyze.Rule // nil: analyze.DefaultRules()
	now             func() time.Time
	log             *slog.Logger
	cache           *httpapi.ViewCache
}

var _ httpapi.Views = (*Views)(nil)

// NewViews returns the views over st of a server started with o.
func NewViews(st gpucost.Store, o Options) *Views {
	o.defaults()
	return &Views{store: st, budgetsFile: o.BudgetsFile, jobsStore: o.JobsStore, openObjectStore: o.OpenObjectStore,
		natsURL: o.NATSURL, alertRules: o.AlertRules, now: o.Now, log: o.Log, cache: httpapi.NewViewCache(o.ViewsEvery, o.Now)}
}

// cachedView returns the view under key from the cache, computing it on a miss.
func cachedView[T any](ctx context.Context, v *Views, key string, compute func(context.Context) (T, error)) (T, error) {
	val, err := v.cache.Get(ctx, key, func(ctx context.Context) (any, error) { return compute(ctx) })
	if err != nil {
		var zero T
		return zero, err
	}
	return val.(T), nil
}

// queryKey names a query in the cache.
func queryKey(name string, q httpapi.Query) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s|%d|%d|%s", name, unixOrZero(q.From), unixOrZero(q.To), q.By)
	for _, k := range slices.Sorted(maps.Keys(q.Filter)) {
		fmt.Fprintf(&b, "|%s=%s", k, q.Filter[k])
	}
	return b.String()
}

func unixOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

// reportView is the view name over q, computed by fn on the report of q's period (def long by
// default) at most once per Options.ViewsEvery.
func reportView[T any](ctx context.Context, v *Views, name string, q httpapi.Query, def time.Duration, fn func(context.Context, *query.Report) (T, error)) (T, error) {
	return cachedView(ctx, v, queryKey(name, q), func(ctx context.Context) (T, error) {
		var zero T
		p, err := q.Period(v.now(), def)
		if err != nil {
			return zero, err
		}
		cat, err := catalog.Load(ctx, v.store)
		if err != nil {
			return zero, err
		}
		r, err := query.Open(ctx, v.store, cat, p, provider)
		if err != nil {
			return zero, err
		}
		return fn(ctx, r)
	})
}

// GPUs is gpucost report utilization --by q.By (gpu by default) over q.
func (v *Views) GPUs(ctx context.Context, q httpapi.Query) (analyze.Report, error) {
	g, err := analyze.ParseGroupBy(cmp.Or(q.By, "gpu"))
	if err != nil {
		return analyze.Report{}, gpucost.Errorf(gpucost.EInvalid, "parameter by: %w", err)
	}
	return reportView(ctx, v, "gpus", q, viewTelemetryPeriod, func(ctx context.Context, r *query.Report) (analyze.Report, error) {
		rep, _, err := r.Utilization(ctx, g, fleet.MatchSeries(q.Filter))
		return rep, err
	})
}

// Heatmap is the hourly mean utilisation of each GPU or host over q.
func (v *Views) Heatmap(ctx context.Context, q httpapi.Query) (httpapi.Heatmap, error) {
	by := cmp.Or(q.By, "gpu")
	if by != "gpu" && by != "host" {
		return httpapi.Heatmap{}, gpucost.Errorf(gpucost.EInvalid, "parameter by=%q: the heatmap has a row per gpu or host", by)
	}
	return reportView(ctx, v, "heatmap", q, viewTelemetryPeriod, func(ctx context.Context, r *query.Report) (httpapi.Heatmap, error) {
		return r.Heatmap(ctx, by, fleet.MatchSeries(q.Filter))
	})
}

// Idle is gpucost report idle over q: the zero-util periods, longest first, priced as the
// fleet snapshot prices their GPUs.
func (v *Views) Idle(ctx context.Context, q httpapi.Query) (analyze.IdleReport, error) {
	return reportView(ctx, v, "idle", q, viewTelemetryPeriod, func(ctx context.Context, r *query.Report) (analyze.IdleReport, error) {
		rep, _, err := r.Idle(ctx, analyze.DefaultMinIdle, fleet.MatchSeries(q.Filter))
		return rep, err
	})
}

// Alerts is gpucost report alerts over q (the last 24 hours by default): the monitoring rules
// (Options.AlertRules) over the minute rollups.
func (v *Views) Alerts(ctx context.Context, q httpapi.Query) (analyze.AlertReport, error) {
	return reportView(ctx, v, "alerts", q, viewAlertsPeriod, func(ctx context.Context, r *query.Report) (analyze.AlertReport, error) {
		r.AlertRules = v.alertRules
		return r.Alerts(ctx, fleet.MatchSeries(q.Filter))
	})
}

// Budgets are the statuses of the server's budgets (LoadBudgets) at now.
func (v *Views) Budgets(ctx context.Context, now time.Time) ([]budget.Status, error) {
	return cachedView(ctx, v, "budgets", func(ctx context.Context) ([]budget.Status, error) {
		bs, _, err := LoadBudgets(ctx, v.store, v.budgetsFile)
		if err != nil || len(bs) == 0 {
			return []budget.Status{}, err
		}
		sp, _, err := budget.ReadSpend(ctx, v.store, bs, now.UTC())
		if err != nil {
			return nil, err
		}
		return sp.Statuses(now), nil
	})
}

// Forget drops the computed views, so a change shows at once.
func (v *Views) Forget() { v.cache.Forget() }
