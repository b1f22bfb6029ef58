package enforce

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/gpucost/gpucost/budget"
)

// SpotLister lists the spot instances running, which the policies' spot caps count
// (enforce/aws.Client).
type SpotLister interface {
	SpotInstances(ctx context.Context, tags map[string]string) ([]Resource, error)
}

// CheckEstimateSpot is CheckEstimate for gpucost estimate --policies: for a spot job, the spot
// instances spot lists in where (its regions, for the note) become s's resources; with spot nil
// none is counted and only the job's own instances meet each cap. The notes say which.
func CheckEstimateSpot(ctx context.Context, policies []Policy, s Snapshot, est budget.Estimate, checks []budget.JobCheck, spot SpotLister, where []string) ([]Block, []string, error) {
	var notes []string
	switch {
	case est.Job.Pricing != budget.PricingSpot:
	case spot != nil:
		var err error
		if s.Resources, err = spot.SpotInstances(ctx, nil); err != nil {
			return nil, nil, fmt.Errorf("count running spot instances: %w", err)
		}
		notes = append(notes, fmt.Sprintf("Spot caps: %d spot instances running in %v at %s.", len(s.Resources), where, s.Now.UTC().Format(time.RFC3339)))
	case slices.ContainsFunc(policies, Policy.IsSpotCap):
		notes = append(notes, "Spot caps: no --aws-region given, so no running spot instance is counted; the job's own instances are checked against each cap.")
	}
	return CheckEstimate(policies, s, est, checks), notes, nil
}
