package server

import (
	"context"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/query"
)

var _ httpapi.ChangeDetector = (*AppliedSteps)(nil)

// DetectedChanges is gpucost recommend applied --detect over q's period (the 30 days to now by
// default), each change named by the plan with gpucost recommend's default options.
func (a *AppliedSteps) DetectedChanges(ctx context.Context, q httpapi.Query) ([]query.DetectedStep, error) {
	p, err := q.Period(a.Now(), httpapi.DetectedPeriod)
	if err != nil {
		return nil, err
	}
	bp, err := query.BillPeriod(p.Start, p.End)
	if err != nil {
		return nil, err
	}
	cat, err := catalog.Load(ctx, a.Store)
	if err != nil {
		return nil, err
	}
	applied, err := a.Store.AppliedSteps(ctx)
	if err != nil {
		return nil, err
	}
	return query.DetectedSteps(ctx, a.Store, cat, bp, "aws", applied, a.planOver(cat))
}

// RecordDetected records step id as gpucost recommend applied --detect --record does: made at
// at, how the bill showed it.
func (a *AppliedSteps) RecordDetected(ctx context.Context, id string, at time.Time, how, actor, note string) (gpucost.AppliedStep, error) {
	if !strings.HasPrefix(how, gpucost.AppliedDetected) {
		return gpucost.AppliedStep{}, gpucost.Errorf(gpucost.EInvalid, "how %q: a detected step's how starts %q, as the detected change gives it", how, gpucost.AppliedDetected)
	}
	return a.apply(ctx, id, at, how, actor, note)
}
