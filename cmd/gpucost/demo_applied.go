package main

import (
	"context"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/demo"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/present"
)

// applyDemoStep records the step the demo made partway through its days (demo.AppliedStep),
// priced by the plan over the days before it, as gpucost recommend apply would.
func (e *env) applyDemoStep(ctx context.Context, db storeDB, load demo.Load) error {
	at, ok := load.AppliedAt()
	if !ok {
		return nil
	}
	if _, err := db.RemoveAppliedStep(ctx, demo.AppliedStep); err != nil && gpucost.ErrorCode(err) != gpucost.ENotFound {
		return err
	}
	f := recommendFlags{costFlags: costFlags{period: period{at: fleet.Period{Start: load.From().Truncate(24 * time.Hour), End: at}},
		policy: gpucost.PolicyUsed, weight: 0.5}, minSaving: "100", moveDataGB: 1000}
	_, err := e.applyStep(ctx, &f, demo.AppliedStep, at, gpucost.AppliedManual, "the evaluation launcher ends the machine when the job exits")
	return err
}

// printDemoRealized says what the applied steps saved on the demo's bill, beside what the
// plan predicted.
func (e *env) printDemoRealized(ctx context.Context, end time.Time) error {
	f := recommendFlags{costFlags: costFlags{period: period{at: fleet.Period{Start: end.Add(-time.Hour), End: end}}}}
	rep, err := e.realized(ctx, &f)
	if err != nil || len(rep.Steps) == 0 {
		return err
	}
	w := e.stdout
	if e.output != "table" {
		w = e.stderr // stdout stays data
	}
	return present.WriteDemoRealized(w, rep, e.dbPath)
}
