// Package query reads one period of a gpucost.Store into the fleet core: the telemetry scan,
// the fleet snapshot, the bill split; the CLI's reports and the server's views both call it.
//
// A query takes an opened store, the catalog, a typed fleet.Period and the provider whose
// on-demand prices fill the GPU-hours no bill line covers; it never reads flags, files or the
// clock (docs/architecture.md "Packages and what they import").
package query

import (
	"context"
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
	s, err := fleet.Build(ctx, r.Store, r.Catalog, fleet.Options{Period: r.Period, Provider: r.Provider})
	if err != nil {
		return nil, err
	}
	r.snap = s
	return s, nil
}

// Scan streams the period's rollups of one width through add, from the start of the period's
// first whole width.
func (r *Report) Scan(ctx context.Context, width time.Duration, add func(*gpucost.Rollup)) error {
	f := gpucost.RollupFilter{From: r.Period.Start.Truncate(width), To: r.Period.End}
	return r.Store.ScanRollups(ctx, width, f, func(ru *gpucost.Rollup) error {
		add(ru)
		return nil
	})
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
