package main

import (
	"context"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/fleet"
	"github.com/spf13/cobra"
)

func newReportCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Reports over the stored telemetry and bills: utilisation, idle, alerts, cost, KPIs, anomalies",
	}
	cmd.AddCommand(newReportUtilizationCmd(e), newReportIdleCmd(e), newReportAlertsCmd(e),
		newReportCostCmd(e), newReportUntaggedCmd(e), newReportKPICmd(e), newReportAnomaliesCmd(e), newReportSavingsCmd(e),
		newReportJobsCmd(e))
	return cmd
}

// reportFlags are the flags every report takes.
type reportFlags struct {
	period
	provider string
}

func (f *reportFlags) register(cmd *cobra.Command, since string) {
	f.period.register(cmd, since)
	cmd.Flags().StringVar(&f.provider, "provider", "aws", "price GPU-hours at this provider's on-demand prices (others where it has none)")
}

// reportContext is what a report reads: the store, the catalog, the analysis options and the
// fleet snapshot of the period, built on first use.
type reportContext struct {
	db       storeDB
	cat      *catalog.Catalog
	opts     analyze.Options
	period   fleet.Period
	provider string
	snap     *fleet.Snapshot
}

// open opens the store and catalog and resolves the period.
func (f *reportFlags) open(ctx context.Context, e *env) (*reportContext, error) {
	if err := e.validOutput(); err != nil {
		return nil, err
	}
	from, to, err := f.resolve(e.now())
	if err != nil {
		return nil, err
	}
	p, err := fleet.NewPeriod(from, to) // by time: a month's telemetry, priced by the lines charged in it
	if err != nil {
		return nil, err
	}
	return e.openReport(ctx, p, f.provider)
}

// openReport opens the store and catalog for a report over p; provider prices the GPU-hours no
// bill line covers.
func (e *env) openReport(ctx context.Context, p fleet.Period, provider string) (*reportContext, error) {
	db, cat, err := e.openCatalog(ctx)
	if err != nil {
		return nil, err
	}
	idle, err := idleBelow(ctx, db)
	if err != nil {
		db.Close()
		return nil, err
	}
	rc := &reportContext{db: db, cat: cat, period: p, provider: provider}
	rc.opts = analyze.Options{From: p.Start, To: p.End, IdleThreshold: idle, Normalize: normalizeModel}
	return rc, nil
}

// openCatalog opens the store and its catalog of prices.
func (e *env) openCatalog(ctx context.Context) (storeDB, *catalog.Catalog, error) {
	db, err := e.openDB(ctx)
	if err != nil {
		return nil, nil, err
	}
	cat, err := catalog.Load(ctx, db)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return db, cat, nil
}

func (rc *reportContext) close() { rc.db.Close() }

// snapshot returns the fleet snapshot of the report's period, building it on the first call.
func (rc *reportContext) snapshot(ctx context.Context) (*fleet.Snapshot, error) {
	if rc.snap != nil {
		return rc.snap, nil
	}
	s, err := fleet.Build(ctx, rc.db, rc.cat, fleet.Options{Period: rc.period, Provider: rc.provider})
	if err != nil {
		return nil, err
	}
	rc.snap = s
	return s, nil
}

// normalizeModel maps a driver's model name to the catalog's, leaving unknown names as they are.
func normalizeModel(name string) string {
	if c, ok := catalog.Normalize(name); ok {
		return c
	}
	return name
}

// scan streams the period's rollups of one width through add.
func (rc *reportContext) scan(ctx context.Context, width time.Duration, add func(*gpucost.Rollup)) error {
	f := gpucost.RollupFilter{From: rc.opts.From.Truncate(width), To: rc.opts.To}
	return rc.db.ScanRollups(ctx, width, f, func(r *gpucost.Rollup) error {
		add(r)
		return nil
	})
}

// pricer returns the catalog's on-demand price of an hour of a series' GPU (its model at
// provider, median region): the on-demand equivalent that gpucost plan commit sizes
// commitments against, not what the fleet paid (fleet.Figures prices that).
func (rc *reportContext) pricer(provider string) func(*gpucost.Series) (gpucost.Money, bool) {
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
			m, _, ok := rc.cat.PricePerGPUHour(normalizeModel(model), provider)
			p = price{m, ok}
			cache[model] = p
		}
		return p.m, p.ok
	}
}
