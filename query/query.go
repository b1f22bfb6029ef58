// Package query reads one period of a gpucost.Store into the fleet core: the telemetry scan,
// the fleet snapshot, the bill split; the CLI's reports and the server's views both call it.
//
// A query takes an opened store, the catalog, a typed fleet.Period and the provider whose
// on-demand prices fill the GPU-hours no bill line covers; it never reads flags, files or the
// clock (docs/architecture.md "Packages and what they import").
package query

import (
	"context"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/fleet"
)

// Store is what a query reads: the fleet core's stores and the settings that keep the store's
// idle threshold (gpucost.Store is one).
type Store interface {
	fleet.Store
	gpucost.SettingStore
}

var _ Store = gpucost.Store(nil)

// DefaultIdleBelow is the utilisation under which a minute counts as idle: an idle GPU reports
// 0%, and a few percent covers monitoring and keep-alive kernels.
const DefaultIdleBelow = 5.0

// IdleBelow returns the store's idle threshold, recording the default on first use: every
// rollup in one store is made with the same threshold.
func IdleBelow(ctx context.Context, st gpucost.SettingStore) (float64, error) {
	v, err := st.Setting(ctx, "idle_below", "")
	if err != nil {
		return 0, err
	}
	if v == "" {
		v = strconv.FormatFloat(DefaultIdleBelow, 'f', -1, 64)
		if err := st.SetSetting(ctx, "idle_below", v); err != nil {
			return 0, err
		}
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, gpucost.Errorf(gpucost.EInvalid, "the store's setting idle_below = %q is not a number: set it to a percentage such as 5", v)
	}
	return f, nil
}

// NormalizeModel maps a driver's model name to the catalog's, leaving unknown names as they are.
func NormalizeModel(name string) string {
	if c, ok := catalog.Normalize(name); ok {
		return c
	}
	return name
}

// Report is one period of a store as the telemetry reports read it: the hourly or minute
// rollups of the period, and the fleet snapshot of the period, built on first use.
type Report struct {
	Store    Store
	Catalog  *catalog.Catalog
	Period   fleet.Period
	Provider string          // prices the GPU-hours no bill line covers
	Options  analyze.Options // the period, the store's idle threshold and NormalizeModel
	// AlertRules are the rules Alerts evaluates; nil: analyze.DefaultRules().
	AlertRules []analyze.Rule

	snap *fleet.Snapshot
}

// Open returns the report of p over st: it reads the store's idle threshold.
func Open(ctx context.Context, st Store, cat *catalog.Catalog, p fleet.Period, provider string) (*Report, error) {
	idle, err := IdleBelow(ctx, st)
	if err != nil {
		return nil, err
	}
	return &Report{Store: st, Catalog: cat, Period: p, Provider: provider,
		Options: analyze.Options{From: p.Start, To: p.End, IdleThreshold: idle, Normalize: NormalizeModel}}, nil
}

// Snapshot returns the fleet snapshot of the report's period, building it on the first call.
func (r *Report) Snapshot(ctx context.Context) (*fleet.Snapshot, error) {
	if r.snap != nil {
		return r.snap, nil
	}
	return r.build(ctx, r.Store)
}

// build builds the report's snapshot from st and keeps it.
func (r *Report) build(ctx context.Context, st fleet.Store) (*fleet.Snapshot, error) {
	s, err := fleet.Build(ctx, st, r.Catalog, fleet.Options{Period: r.Period, Provider: r.Provider})
	if err != nil {
		return nil, err
	}
	r.snap = s
	return s, nil
}

// snapshotAnd returns the fleet snapshot, as Snapshot does, and streams the period's hourly
// rollups through add, as Scan does. Where it builds the snapshot, one scan of the store does
// both (teeHours); add then sees each rollup after the snapshot's builder has.
func (r *Report) snapshotAnd(ctx context.Context, add func(*gpucost.Rollup), addDay func(*gpucost.DayRollup) bool) (*fleet.Snapshot, error) {
	if r.snap != nil {
		return r.snap, r.Scan(ctx, time.Hour, add)
	}
	tee := &teeHours{Store: r.Store, want: r.scanFilter(time.Hour), add: add}
	var st fleet.Store = tee
	if ds, ok := r.Store.(gpucost.DayStore); ok && addDay != nil {
		st = &teeDays{teeHours: tee, days: ds, addDay: addDay}
	}
	s, err := r.build(ctx, st)
	if err != nil {
		return nil, err
	}
	if !tee.done { // the builder read no hourly rollups: read them for add
		return s, r.Scan(ctx, time.Hour, add)
	}
	return s, nil
}

// teeHours is a Store whose first scan of all series' hourly rollups also passes the rollups
// of want (Report.Scan's range) to add, so that one read of the store feeds both the snapshot's
// builder and a report. Each callback sees only the rollups of its own range.
type teeHours struct {
	Store
	want gpucost.RollupFilter
	add  func(*gpucost.Rollup)
	done bool // the tee has scanned: later scans go to the store alone
}

func (t *teeHours) ScanRollups(ctx context.Context, width time.Duration, f gpucost.RollupFilter, fn func(*gpucost.Rollup) error) error {
	if width != time.Hour || t.done || len(f.Hosts)+len(f.GPUs)+len(f.Models)+len(f.Labels) > 0 {
		return t.Store.ScanRollups(ctx, width, f, fn)
	}
	t.done = true
	both := t.union(f)
	in, want := spanOf(f), spanOf(t.want)
	return t.Store.ScanRollups(ctx, width, both, func(r *gpucost.Rollup) error {
		at := r.Start.UnixNano()
		if in.holds(at) {
			if err := fn(r); err != nil {
				return err
			}
		}
		if want.holds(at) {
			t.add(r)
		}
		return nil
	})
}

// union returns asked widened to hold the report's range too.
func (t *teeHours) union(asked gpucost.RollupFilter) gpucost.RollupFilter {
	both := asked
	if !asked.From.IsZero() && (t.want.From.IsZero() || t.want.From.Before(asked.From)) {
		both.From = t.want.From
	}
	if !asked.To.IsZero() && (t.want.To.IsZero() || t.want.To.After(asked.To)) {
		both.To = t.want.To
	}
	return both
}

// span is a filter's [From, To) in Unix nanoseconds, a zero bound open: two comparisons of
// integers a rollup, where comparing times cost 0.06 s of a report's 7.2 M rollups.
type span struct{ from, to int64 }

func spanOf(f gpucost.RollupFilter) span {
	return span{nanos(f.From, math.MinInt64), nanos(f.To, math.MaxInt64)}
}

// nanos is t in Unix nanoseconds, open for the zero time, and clamped to the years UnixNano
// holds (1678 to 2262), which every rollup's start lies within.
func nanos(t time.Time, open int64) int64 {
	switch {
	case t.IsZero():
		return open
	case t.Year() < 1678:
		return math.MinInt64
	case t.Year() > 2261:
		return math.MaxInt64
	}
	return t.UnixNano()
}

// holds reports whether a rollup starting at Unix nanosecond at lies in the span.
func (s span) holds(at int64) bool { return at >= s.from && at < s.to }

// Scan streams the period's rollups of one width through add, from the start of the period's
// first whole width.
func (r *Report) Scan(ctx context.Context, width time.Duration, add func(*gpucost.Rollup)) error {
	return r.Store.ScanRollups(ctx, width, r.scanFilter(width), func(ru *gpucost.Rollup) error {
		add(ru)
		return nil
	})
}

// scanFilter is the range Scan reads: the period, from the start of its first whole width.
func (r *Report) scanFilter(width time.Duration) gpucost.RollupFilter {
	return gpucost.RollupFilter{From: r.Period.Start.Truncate(width), To: r.Period.End}
}

// Pricer returns the catalog's on-demand price of an hour of a series' GPU (its model at the
// report's provider, median region): the on-demand equivalent that gpucost plan commit sizes
// commitments against, not what the fleet paid (fleet.Figures prices that).
func (r *Report) Pricer() func(*gpucost.Series) (gpucost.Money, bool) {
	type price struct {
		m  gpucost.Money
		ok bool
	}
	cache := map[string]price{}
	return func(s *gpucost.Series) (gpucost.Money, bool) {
		model := s.GPU.Model
		if s.GPU.Parent != "" || s.GPU.Profile != "" {
			model, _, _ = strings.Cut(model, " MIG")
		}
		p, seen := cache[model]
		if !seen {
			m, _, ok := r.Catalog.PricePerGPUHour(NormalizeModel(model), r.Provider)
			p = price{m, ok}
			cache[model] = p
		}
		return p.m, p.ok
	}
}
