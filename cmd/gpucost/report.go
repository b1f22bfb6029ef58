package main

import (
	"context"

	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/query"
	"github.com/spf13/cobra"
)

func newReportCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Reports over the stored telemetry and bills: utilisation, idle, alerts, cost, KPIs, anomalies",
	}
	cmd.AddCommand(newReportUtilizationCmd(e), newReportIdleCmd(e), newReportAlertsCmd(e),
		newReportCostCmd(e), newReportUntaggedCmd(e), newReportKPICmd(e), newReportAnomaliesCmd(e), newReportSavingsCmd(e),
		newReportJobsCmd(e), newReportSpotCmd(e))
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

// reportContext is a report's period of the store it opened (query.Report): the telemetry
// scan and the fleet snapshot.
type reportContext struct {
	*query.Report
	db storeDB
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
	rc, err := e.openReport(ctx, p, f.provider)
	if err == nil {
		if err = knownProvider(rc.Catalog, f.provider); err != nil {
			rc.close()
		}
	}
	return rc, err
}

// openReport opens the store and catalog for a report over p; provider prices the GPU-hours no
// bill line covers.
func (e *env) openReport(ctx context.Context, p fleet.Period, provider string) (*reportContext, error) {
	db, cat, err := e.openCatalog(ctx)
	if err != nil {
		return nil, err
	}
	r, err := query.Open(ctx, db, cat, p, provider)
	if err != nil {
		db.Close()
		return nil, err
	}
	return &reportContext{Report: r, db: db}, nil
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
