package main

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
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/httpapi"
)

// defaultViewsEvery is how long a computed view is served before it is computed again.
const defaultViewsEvery = time.Minute

// Default periods of the views when a query gives none.
const (
	viewTelemetryPeriod = 7 * 24 * time.Hour  // utilisation, heatmap, idle
	viewAlertsPeriod    = 24 * time.Hour      // alerts read minute rollups, as gpucost report alerts
	viewCostPeriod      = 30 * 24 * time.Hour // costs and recommendations
)

// storeViews are the read API's and the dashboard's views over the server's store, computed with
// the code of gpucost report, recommend and budget status, each at most once per --views-every
// per distinct query.
type storeViews struct {
	e           env          // a copy: each report opens its own connection to the store through it
	settings    settingStore // the server's store, which keeps the budgets PUT /api/v1/budgets stores
	budgetsFile string       // serve --budgets: wins over stored budgets
	jobsStore   string       // serve --jobs-store
	natsURL     string       // serve --nats
	log         *slog.Logger
	cache       *httpapi.ViewCache
}

var _ httpapi.Views = (*storeViews)(nil)

// newStoreViews returns the views of the server started with o over db.
func (e *env) newStoreViews(db settingStore, o serveOptions, log *slog.Logger) *storeViews {
	ec := *e
	ec.output = "json" // the reports check --output; the views print nothing
	return &storeViews{e: ec, settings: db, budgetsFile: o.budgets, jobsStore: o.jobsStore, natsURL: o.natsURL,
		log: log, cache: httpapi.NewViewCache(o.viewsEvery, e.now)}
}

// env returns a fresh copy of the server's env for one report: opening the store rewrites its
// dbPath.
func (v *storeViews) env() *env {
	ec := v.e
	return &ec
}

// cachedView returns the view under key from the cache, computing it on a miss.
func cachedView[T any](ctx context.Context, v *storeViews, key string, compute func(context.Context) (T, error)) (T, error) {
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

// report opens a report over the query's period, def long by default.
func (v *storeViews) report(ctx context.Context, q httpapi.Query, def time.Duration) (*reportContext, error) {
	p, err := q.Period(v.e.now(), def)
	if err != nil {
		return nil, err
	}
	return v.env().openReport(ctx, p, "aws")
}

// reportView is the view name over q, computed by fn on a report over q's period (def long by
// default) at most once per --views-every.
func reportView[T any](ctx context.Context, v *storeViews, name string, q httpapi.Query, def time.Duration, fn func(context.Context, *reportContext) (T, error)) (T, error) {
	return cachedView(ctx, v, queryKey(name, q), func(ctx context.Context) (T, error) {
		rc, err := v.report(ctx, q, def)
		if err != nil {
			var zero T
			return zero, err
		}
		defer rc.close()
		return fn(ctx, rc)
	})
}

// GPUs is gpucost report utilization --by q.By (gpu by default) over q.
func (v *storeViews) GPUs(ctx context.Context, q httpapi.Query) (analyze.Report, error) {
	g, err := analyze.ParseGroupBy(cmp.Or(q.By, "gpu"))
	if err != nil {
		return analyze.Report{}, gpucost.Errorf(gpucost.EInvalid, "parameter by: %w", err)
	}
	return reportView(ctx, v, "gpus", q, viewTelemetryPeriod, func(ctx context.Context, rc *reportContext) (analyze.Report, error) {
		rep, _, err := rc.utilization(ctx, g, fleet.MatchSeries(q.Filter))
		return rep, err
	})
}

// Heatmap is the hourly mean utilisation of each GPU or host over q.
func (v *storeViews) Heatmap(ctx context.Context, q httpapi.Query) (httpapi.Heatmap, error) {
	by := cmp.Or(q.By, "gpu")
	if by != "gpu" && by != "host" {
		return httpapi.Heatmap{}, gpucost.Errorf(gpucost.EInvalid, "parameter by=%q: the heatmap has a row per gpu or host", by)
	}
	return reportView(ctx, v, "heatmap", q, viewTelemetryPeriod, func(ctx context.Context, rc *reportContext) (httpapi.Heatmap, error) {
		hm := analyze.NewHeatmap(by, rc.opts.From, rc.opts.To, normalizeModel)
		err := rc.scan(ctx, time.Hour, onlySeries(fleet.MatchSeries(q.Filter), hm.Add))
		return hm.Result(), err
	})
}

// Idle is gpucost report idle over q: the zero-util periods, longest first, priced as the
// fleet snapshot prices their GPUs.
func (v *storeViews) Idle(ctx context.Context, q httpapi.Query) (analyze.IdleReport, error) {
	return reportView(ctx, v, "idle", q, viewTelemetryPeriod, func(ctx context.Context, rc *reportContext) (analyze.IdleReport, error) {
		rep, err := rc.idle(ctx, analyze.DefaultMinIdle, fleet.MatchSeries(q.Filter))
		return rep.ZeroUtil, err
	})
}

// Alerts is gpucost report alerts over q (the last 24 hours by default): the monitoring rules
// over the minute rollups.
func (v *storeViews) Alerts(ctx context.Context, q httpapi.Query) (analyze.AlertReport, error) {
	return reportView(ctx, v, "alerts", q, viewAlertsPeriod, func(ctx context.Context, rc *reportContext) (analyze.AlertReport, error) {
		return rc.alerts(ctx, fleet.MatchSeries(q.Filter))
	})
}

// Budgets are the statuses of the server's budgets (loadServerBudgets) at now.
func (v *storeViews) Budgets(ctx context.Context, now time.Time) ([]budget.Status, error) {
	return cachedView(ctx, v, "budgets", func(ctx context.Context) ([]budget.Status, error) {
		bs, _, err := v.e.loadServerBudgets(ctx, v.settings, v.budgetsFile)
		if err != nil || len(bs) == 0 {
			return []budget.Status{}, err
		}
		e := v.env()
		e.now = func() time.Time { return now }
		sp, err := e.budgetSpend(ctx, bs)
		if err != nil {
			return nil, err
		}
		return sp.statuses(now), nil
	})
}

// forget drops the computed views, so a change shows at once.
func (v *storeViews) forget() { v.cache.Forget() }
