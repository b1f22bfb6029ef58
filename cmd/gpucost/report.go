package main

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/catalog"
	"github.com/spf13/cobra"
)

func newReportCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Reports over the stored telemetry and bills: utilisation, idle, alerts, cost, KPIs, anomalies",
	}
	cmd.AddCommand(newReportUtilizationCmd(e), newReportIdleCmd(e), newReportAlertsCmd(e),
		newReportCostCmd(e), newReportUntaggedCmd(e), newReportKPICmd(e), newReportAnomaliesCmd(e), newReportSavingsCmd(e))
	cmd.AddCommand(newReportJobsCmd(e))
	return cmd
}

// reportFlags are the flags every report takes.
type reportFlags struct {
	period
	provider string
}

func (f *reportFlags) register(cmd *cobra.Command, since string) {
	cmd.Flags().StringVar(&f.since, "since", since, "how far back: 30d, 7d, 24h, 90m")
	cmd.Flags().StringVar(&f.until, "until", "", "end of the period (RFC 3339; default now)")
	cmd.Flags().StringVar(&f.provider, "provider", "aws", "price GPU-hours at this provider's on-demand prices (others where it has none)")
}

// reportContext is what a report reads: the store, the catalog, and the analysis options.
type reportContext struct {
	db    storeDB
	cat   *catalog.Catalog
	opts  analyze.Options
	basis map[string]string // per model, how its GPU-hour was priced
}

// open opens the store and catalog and resolves the period and pricing.
func (f *reportFlags) open(ctx context.Context, e *env) (*reportContext, error) {
	if err := e.validOutput(); err != nil {
		return nil, err
	}
	from, to, err := f.resolve(e.now())
	if err != nil {
		return nil, err
	}
	db, err := e.openDB(ctx)
	if err != nil {
		return nil, err
	}
	cat, err := catalog.Load(ctx, db)
	if err != nil {
		db.Close()
		return nil, err
	}
	idle, err := idleBelow(ctx, db)
	if err != nil {
		db.Close()
		return nil, err
	}
	rc := &reportContext{db: db, cat: cat, basis: map[string]string{}}
	rc.opts = analyze.Options{From: from, To: to, IdleThreshold: idle, Normalize: normalizeModel,
		Price: rc.pricer(f.provider)}
	return rc, nil
}

func (rc *reportContext) close() { rc.db.Close() }

// normalizeModel maps a driver's model name to the catalog's, leaving unknown names as they are.
func normalizeModel(name string) string {
	if c, ok := catalog.Normalize(name); ok {
		return c
	}
	return name
}

// pricer returns the $/GPU-hour of a series' GPU: the catalog's representative on-demand price
// of its model at provider, remembered per model with the offer it came from.
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
			canon := normalizeModel(model)
			m, offer, ok := rc.cat.PricePerGPUHour(canon, provider)
			p = price{m, ok}
			cache[model] = p
			if ok {
				rc.basis[canon] = fmt.Sprintf("%s/GPU-h (%s %s %s, median region)",
					m.Dollars(), offer.Provider, offer.InstanceType, offer.Region)
			}
		}
		return p.m, p.ok
	}
}

// scan streams the period's rollups of one width through add.
func (rc *reportContext) scan(ctx context.Context, width time.Duration, add func(*gpucost.Rollup)) error {
	f := gpucost.RollupFilter{From: rc.opts.From.Truncate(width), To: rc.opts.To}
	return rc.db.ScanRollups(ctx, width, f, func(r *gpucost.Rollup) error {
		add(r)
		return nil
	})
}

// priceNotes says how GPU-hours were priced.
func (rc *reportContext) priceNotes() []string {
	var notes []string
	for _, m := range sortedKeys(rc.basis) {
		notes = append(notes, fmt.Sprintf("  %s priced at %s", m, rc.basis[m]))
	}
	if len(notes) > 0 {
		notes = append([]string{"Prices: catalog on-demand list prices (see gpucost catalog gpus)."}, notes...)
	}
	return notes
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// pct formats a percentage, "–" when absent.
func pct(v analyze.Stat) string {
	f := float64(v)
	if math.IsNaN(f) {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", f)
}

// hours formats GPU-hours: two decimals below ten, so a few minutes do not show as 0.0.
func hours(h float64) string {
	if h < 10 {
		return fmt.Sprintf("%.2f", h)
	}
	return fmt.Sprintf("%.1f", h)
}
