package main

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/httpapi"
)

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
	cache       *viewCache
}

var _ httpapi.Views = (*storeViews)(nil)

// newStoreViews returns the views of the server started with o over db.
func (e *env) newStoreViews(db settingStore, o serveOptions, log *slog.Logger) *storeViews {
	ec := *e
	ec.output = "json" // the reports check --output; the views print nothing
	return &storeViews{e: ec, settings: db, budgetsFile: o.budgets, jobsStore: o.jobsStore, natsURL: o.natsURL,
		log: log, cache: newViewCache(o.viewsEvery, e.now)}
}

// env returns a fresh copy of the server's env for one report: opening the store rewrites its
// dbPath.
func (v *storeViews) env() *env {
	ec := v.e
	return &ec
}

// cachedView returns the view under key from the cache, computing it on a miss.
func cachedView[T any](ctx context.Context, v *storeViews, key string, compute func(context.Context) (T, error)) (T, error) {
	val, err := v.cache.get(ctx, key, func(ctx context.Context) (any, error) { return compute(ctx) })
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
	for _, k := range sortedKeys(q.Filter) {
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

// GPUs is gpucost report utilization --by q.By (gpu by default) over q.
func (v *storeViews) GPUs(ctx context.Context, q httpapi.Query) (analyze.Report, error) {
	return cachedView(ctx, v, queryKey("gpus", q), func(ctx context.Context) (analyze.Report, error) {
		g, err := analyze.ParseGroupBy(cmp.Or(q.By, "gpu"))
		if err != nil {
			return analyze.Report{}, gpucost.Errorf(gpucost.EInvalid, "parameter by: %w", err)
		}
		rc, err := v.report(ctx, q, viewTelemetryPeriod)
		if err != nil {
			return analyze.Report{}, err
		}
		defer rc.close()
		rep, _, err := rc.utilization(ctx, g, seriesFilter(q.Filter))
		return rep, err
	})
}

// Heatmap is the hourly mean utilisation of each GPU or host over q.
func (v *storeViews) Heatmap(ctx context.Context, q httpapi.Query) (httpapi.Heatmap, error) {
	return cachedView(ctx, v, queryKey("heatmap", q), func(ctx context.Context) (httpapi.Heatmap, error) {
		by := cmp.Or(q.By, "gpu")
		if by != "gpu" && by != "host" {
			return httpapi.Heatmap{}, gpucost.Errorf(gpucost.EInvalid, "parameter by=%q: the heatmap has a row per gpu or host", by)
		}
		rc, err := v.report(ctx, q, viewTelemetryPeriod)
		if err != nil {
			return httpapi.Heatmap{}, err
		}
		defer rc.close()
		hm := newHeatmap(by, rc.opts.From, rc.opts.To)
		if err := rc.scan(ctx, time.Hour, filterRollups(q.Filter, hm.add)); err != nil {
			return httpapi.Heatmap{}, err
		}
		return hm.result(), nil
	})
}

// heatmap sums each row's hourly utilisation.
type heatmap struct {
	by    string
	from  time.Time // the first hour
	hours int
	rows  map[string]*heatRow
}

type heatRow struct {
	row     httpapi.HeatmapRow
	sum     []float64
	samples []int
}

func newHeatmap(by string, from, to time.Time) *heatmap {
	from = from.UTC().Truncate(time.Hour)
	n := int((to.Sub(from) + time.Hour - 1) / time.Hour)
	return &heatmap{by: by, from: from, hours: max(n, 0), rows: map[string]*heatRow{}}
}

func (h *heatmap) add(r *gpucost.Rollup) {
	i := int(r.Start.Sub(h.from) / time.Hour)
	if i < 0 || i >= h.hours || r.Samples == 0 {
		return
	}
	key := r.Series.GPU.UUID
	if h.by == "host" {
		key = r.Series.GPU.Host
	}
	row := h.rows[key]
	if row == nil {
		row = &heatRow{row: httpapi.HeatmapRow{Key: key, Host: r.Series.GPU.Host, Model: normalizeModel(r.Series.GPU.Model)},
			sum: make([]float64, h.hours), samples: make([]int, h.hours)}
		h.rows[key] = row
	} else if row.row.Model != "" && row.row.Model != normalizeModel(r.Series.GPU.Model) {
		row.row.Model = "" // a host of several models
	}
	row.sum[i] += r.UtilSum
	row.samples[i] += r.Samples
}

// result returns the rows by host, then key, each hour's mean to a tenth of a percent.
func (h *heatmap) result() httpapi.Heatmap {
	out := httpapi.Heatmap{By: h.by, Hours: make([]time.Time, h.hours), Rows: make([]httpapi.HeatmapRow, 0, len(h.rows))}
	for i := range out.Hours {
		out.Hours[i] = h.from.Add(time.Duration(i) * time.Hour)
	}
	for _, row := range h.rows {
		r := row.row
		r.Util = make([]float64, h.hours)
		for i := range r.Util {
			r.Util[i] = -1
			if n := row.samples[i]; n > 0 {
				r.Util[i] = math.Round(row.sum[i]/float64(n)*10) / 10
			}
		}
		out.Rows = append(out.Rows, r)
	}
	slices.SortFunc(out.Rows, func(a, b httpapi.HeatmapRow) int {
		return cmp.Or(cmp.Compare(a.Host, b.Host), cmp.Compare(a.Key, b.Key))
	})
	return out
}

// Idle is gpucost report idle over q: the zero-util periods, longest first, priced as the
// fleet snapshot prices their GPUs.
func (v *storeViews) Idle(ctx context.Context, q httpapi.Query) (analyze.IdleReport, error) {
	return cachedView(ctx, v, queryKey("idle", q), func(ctx context.Context) (analyze.IdleReport, error) {
		rc, err := v.report(ctx, q, viewTelemetryPeriod)
		if err != nil {
			return analyze.IdleReport{}, err
		}
		defer rc.close()
		rep, err := rc.idle(ctx, analyze.DefaultMinIdle, seriesFilter(q.Filter))
		return rep.ZeroUtil, err
	})
}

// Alerts is gpucost report alerts over q (the last 24 hours by default): the monitoring rules
// over the minute rollups.
func (v *storeViews) Alerts(ctx context.Context, q httpapi.Query) (analyze.AlertReport, error) {
	return cachedView(ctx, v, queryKey("alerts", q), func(ctx context.Context) (analyze.AlertReport, error) {
		rc, err := v.report(ctx, q, viewAlertsPeriod)
		if err != nil {
			return analyze.AlertReport{}, err
		}
		defer rc.close()
		ev, err := analyze.EvaluateAlerts(analyze.DefaultRules(), rc.opts.To, tdp)
		if err != nil {
			return analyze.AlertReport{}, err
		}
		if err := rc.scan(ctx, time.Minute, filterRollups(q.Filter, ev.Add)); err != nil {
			return analyze.AlertReport{}, err
		}
		return ev.Result(), nil
	})
}

// filterRollups passes on the rollups whose series match every filter: host, gpu (UUID) and
// model (either name) by the GPU, any other key by the series' labels.
func filterRollups(f map[string]string, add func(*gpucost.Rollup)) func(*gpucost.Rollup) {
	if len(f) == 0 {
		return add
	}
	return func(r *gpucost.Rollup) {
		if seriesMatches(f, r.Series) {
			add(r)
		}
	}
}

// seriesFilter returns whether a series matches every filter (seriesMatches), nil without filters.
func seriesFilter(f map[string]string) func(*gpucost.Series) bool {
	if len(f) == 0 {
		return nil
	}
	return func(s *gpucost.Series) bool { return seriesMatches(f, s) }
}

func seriesMatches(f map[string]string, s *gpucost.Series) bool {
	for k, want := range f {
		var ok bool
		switch k {
		case "host":
			ok = strings.EqualFold(s.GPU.Host, want)
		case "gpu":
			ok = strings.EqualFold(s.GPU.UUID, want) || strings.EqualFold(s.GPU.Parent, want)
		case "model":
			ok = strings.EqualFold(s.GPU.Model, want) || strings.EqualFold(normalizeModel(s.GPU.Model), want)
		default:
			ok = s.Labels[strings.TrimPrefix(k, "label:")] == want
		}
		if !ok {
			return false
		}
	}
	return true
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
func (v *storeViews) forget() { v.cache.forget() }
