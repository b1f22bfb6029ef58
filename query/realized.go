package query

import (
	"context"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/fleet"
)

// Realized measures the applied steps on st's bill up to end (docs/architecture.md "Realized
// savings"): one fleet snapshot from the earliest step's before window to end. The GPU-hours no
// bill line covers are priced at provider's on-demand prices; they are never a step's cost.
func Realized(ctx context.Context, st fleet.Store, cat *catalog.Catalog, steps []gpucost.AppliedStep, end time.Time, provider string) (fleet.RealizedReport, error) {
	p, ok := fleet.RealizedWindow(steps, end)
	if !ok {
		return fleet.RealizedReport{Steps: []fleet.RealizedStep{}}, nil
	}
	snap, err := fleet.Build(ctx, st, cat, fleet.Options{Period: p, Provider: provider})
	if err != nil {
		return fleet.RealizedReport{}, err
	}
	return snap.Realized(steps, end), nil
}

// DetectChanges finds the changes that p's bill shows (fleet.Snapshot.DetectChanges): changes
// of instance type, moves to spot, commitments that appear and falls in billed GPU-hours.
func DetectChanges(ctx context.Context, st fleet.Store, cat *catalog.Catalog, p fleet.Period, provider string) ([]fleet.DetectedChange, error) {
	snap, err := fleet.Build(ctx, st, cat, fleet.Options{Period: p, Provider: provider})
	if err != nil {
		return nil, err
	}
	return snap.DetectChanges(), nil
}

// PlanLookBack is how far before a change the plan that names its step looks.
const PlanLookBack = 30 * 24 * time.Hour

// PlanBefore is the period whose plan names the step a change made at at: the 30 days before
// it, from no earlier than the midnight of the first day st's bills charge, since the
// recommender prices a month from the period's length and days before any bill would thin it.
func PlanBefore(ctx context.Context, st fleet.Bills, at time.Time) (fleet.Period, error) {
	start := at.Add(-PlanLookBack)
	imports, err := st.CostImports(ctx)
	if err != nil {
		return fleet.Period{}, err
	}
	var first time.Time
	for _, imp := range imports {
		if !imp.ChargeFrom.IsZero() && (first.IsZero() || imp.ChargeFrom.Before(first)) {
			first = imp.ChargeFrom
		}
	}
	if first = first.UTC().Truncate(24 * time.Hour); first.After(start) {
		start = first
	}
	return BillPeriod(start, at)
}
