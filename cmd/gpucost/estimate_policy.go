package main

import (
	"context"

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
	cmd.Flags().StringVar(&f.inv.awsEndpoint, "aws-endpoint", "", "one URL for the EC2 API instead of AWS's (a proxy or a test server); default $AWS_ENDPOINT_URL")
}

// policyBlocks returns the policies that would stop the job or scale it to zero once it runs
// (enforce.CheckEstimateSpot), counting the spot instances running in the --aws-region regions
// toward the spot caps, and notes on what was counted.
func (e *env) policyBlocks(ctx context.Context, f estimatePolicyFlags, budgets []budget.Budget, sp *budgetSpend,
	est budget.Estimate, checks []budget.JobCheck) ([]enforce.Block, []string, error) {
	if f.file == "" {
		return nil, nil, nil
	}
	policies, err := enforce.ReadFile(f.file, budgets)
	if err != nil {
		return nil, nil, err
	}
	now := e.now()
	snap := enforce.Snapshot{Now: now, Budgets: budgets, Statuses: sp.Statuses(now)}
	var spot enforce.SpotLister
	if est.Job.Pricing == budget.PricingSpot && len(f.inv.regions) > 0 {
		src, err := f.inv.sources(e)
		if err != nil {
			return nil, nil, err
		}
		spot = src.aws
	}
	return enforce.CheckEstimateSpot(ctx, policies, snap, est, checks, spot, f.inv.regions)
}
