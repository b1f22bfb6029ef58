package main

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/enforce"
	"github.com/spf13/cobra"
)

// estimatePolicyFlags are estimate's flags for the policy guardrail.
type estimatePolicyFlags struct {
	file string
	inv  inventoryFlags
}

func (f *estimatePolicyFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.file, "policies", "", "policies YAML file (see gpucost enforce): fail when a policy would stop the job")
	cmd.Flags().StringSliceVar(&f.inv.regions, "aws-region", nil, "AWS regions whose running spot instances count toward the policies' spot caps")
	cmd.Flags().StringVar(&f.inv.awsEndpoint, "aws-endpoint", "", "one URL for the EC2 API instead of AWS's (a proxy or a test server)")
}

// policyBlocks returns the policies that would stop the job or scale it to zero once it runs
// (enforce.CheckEstimate), counting the spot instances running in the --aws-region regions
// toward the spot caps, and notes on what was counted.
func (e *env) policyBlocks(ctx context.Context, f estimatePolicyFlags, budgets []budget.Budget, sp *budgetSpend,
	est budget.Estimate, checks []budget.JobCheck) ([]enforce.Block, []string, error) {
	if f.file == "" {
		return nil, nil, nil
	}
	policies, err := readPolicies(f.file, budgets)
	if err != nil {
		return nil, nil, err
	}
	now := e.now()
	snap := enforce.Snapshot{Now: now, Budgets: budgets, Statuses: sp.Statuses(now)}
	var notes []string
	spot := est.Job.Pricing == budget.PricingSpot
	if spot && len(f.inv.regions) > 0 {
		src, err := f.inv.sources(e)
		if err != nil {
			return nil, nil, err
		}
		if snap.Resources, err = src.aws.SpotInstances(ctx, nil); err != nil {
			return nil, nil, fmt.Errorf("count running spot instances: %w", err)
		}
		notes = append(notes, fmt.Sprintf("Spot caps: %d spot instances running in %v at %s.", len(snap.Resources), f.inv.regions, now.UTC().Format(time.RFC3339)))
	} else if spot && slices.ContainsFunc(policies, enforce.Policy.IsSpotCap) {
		notes = append(notes, "Spot caps: no --aws-region given, so no running spot instance is counted; the job's own instances are checked against each cap.")
	}
	return enforce.CheckEstimate(policies, snap, est, checks), notes, nil
}
