package enforce

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/budget"
)

type spotLister struct {
	rs    []Resource
	err   error
	asked *int
}

func (l spotLister) SpotInstances(context.Context, map[string]string) ([]Resource, error) {
	*l.asked++
	return l.rs, l.err
}

// TestCheckEstimateSpot checks that a spot job's estimate counts the spot instances listed, says
// how many, says when none could be listed, and lists none for an on-demand job.
func TestCheckEstimateSpot(t *testing.T) {
	ctx := context.Background()
	full := testSnapshot(t)
	var running []Resource
	for _, r := range full.Resources {
		if r.Spot {
			running = append(running, r)
		}
	}
	bare := full
	bare.Resources = nil
	ps := testPolicies(t)
	est := budget.Estimate{Job: budget.Job{Kind: budget.KindJob, Provider: "aws", InstanceType: "g5.xlarge", Pricing: budget.PricingSpot,
		Start: time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC), Span: time.Hour, Scope: budget.Scope{Team: "infra"}},
		Instances: 1, Cost: gpucost.USD(5e9)}
	asked := 0
	blocks, notes, err := CheckEstimateSpot(ctx, ps, bare, est, nil, spotLister{rs: running, asked: &asked}, []string{"us-east-1", "us-west-2"})
	withRunning := bare
	withRunning.Resources = running
	if want := CheckEstimate(ps, withRunning, est, nil); err != nil || !reflect.DeepEqual(blocks, want) || len(want) == 0 {
		t.Errorf("CheckEstimateSpot(spot job, %d running) = %+v, %v; want %+v", len(running), blocks, err, want)
	}
	if len(notes) != 1 || !strings.HasPrefix(notes[0], "Spot caps: 3 spot instances running in [us-east-1 us-west-2] at 2026-") {
		t.Errorf("CheckEstimateSpot(spot job, 3 running) notes = %q", notes)
	}
	if _, notes, _ := CheckEstimateSpot(ctx, ps, bare, est, nil, nil, nil); len(notes) != 1 || !strings.Contains(notes[0], "no --aws-region given") {
		t.Errorf("CheckEstimateSpot(spot job, no lister) notes = %q; want one saying none was counted", notes)
	}
	if _, _, err := CheckEstimateSpot(ctx, ps, bare, est, nil, spotLister{err: errors.New("403"), asked: &asked}, nil); err == nil || err.Error() != "count running spot instances: 403" {
		t.Errorf("CheckEstimateSpot(failing lister) = %v; want the lister's error", err)
	}
	est.Job.Pricing = budget.PricingOnDemand
	before := asked
	if _, notes, err := CheckEstimateSpot(ctx, ps, bare, est, nil, spotLister{rs: running, asked: &asked}, nil); err != nil || len(notes) != 0 || asked != before {
		t.Errorf("CheckEstimateSpot(on-demand job) = notes %q, %v, %d listings; want none", notes, err, asked-before)
	}
}
