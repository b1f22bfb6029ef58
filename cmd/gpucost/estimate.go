package main

import (
	"context"
	"fmt"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/present"
	"github.com/spf13/cobra"
)

func newEstimateCmd(e *env) *cobra.Command {
	var (
		budgetsFile string
		against     string
		policies    estimatePolicyFlags
	)
	cmd := &cobra.Command{
		Use:   "estimate JOB.yaml",
		Short: "Price a GPU job or endpoint before launch and check it against the budgets",
		Long: `estimate prices a job before it runs, from the catalog (bundled prices overlaid by the
offers imported into the store), shows the arithmetic and the price's source, and with --budgets
checks it against every budget whose scope the job falls in: the budget left after it is the
amount less the period's spend (--against forecast, the default: the forecast for the whole
period; --against actual: the spend so far) less the part of the job's cost in that period.
Use it as a CI check before a launch, like Infracost for GPU jobs and inference endpoints.

A job spec:

  name: llama-finetune
  instance_type: p4d.24xlarge     # or gpu: A100-80GB with count: GPUs
  count: 2                        # instances
  hours: 48
  pricing: spot                   # on-demand (default), spot, or committed + commitment_discount: 0.4
  provider: aws                   # optional: the cheapest matching offer is priced
  region: us-east-1               # optional
  start: 2026-12-01               # optional: the period it falls in (default now)
  price_per_hour: 32.77           # optional: your own price of one instance-hour
  scope: {team: research, project: llm, tags: {env: prod}}

or an inference endpoint:

  kind: sagemaker-endpoint
  instance_type: ml.g5.xlarge
  instance_count: 2
  hours_per_day: 24
  days: 30

With --policies (a gpucost enforce policies file) it also fails when a policy would stop the job
or scale the endpoint to zero once it runs: a budget policy whose scope covers the job, unless
the job carries its unless_tags, and whose budget with the job's cost added reaches its share; or
a spot cap that the job's spot instances, added to those running (--aws-region), would exceed.

Exit codes: 0 the job fits every budget it falls in, 6 it would break a budget, 7 a policy
would stop it (checked first: 7 when both), 2 the job spec, budgets, policies file or flags are
invalid (or the job cannot be priced), 4 the running spot instances could not be counted.`,
		Example: `  gpucost estimate job.yaml
  gpucost estimate job.yaml --budgets budgets.yaml --db gpucost.db
  gpucost estimate endpoint.yaml --budgets budgets.yaml --against actual --output json
  gpucost estimate job.yaml --budgets budgets.yaml --policies policies.yaml --aws-region us-east-1`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.estimate(cmd.Context(), args[0], budgetsFile, against, policies)
		},
	}
	cmd.Flags().StringVar(&budgetsFile, "budgets", "", "budgets YAML file to check the job against")
	cmd.Flags().StringVar(&against, "against", "forecast", "what the job adds to: forecast (the period's projected spend) or actual (spend so far)")
	policies.add(cmd)
	return cmd
}

// estimate prices the job spec at path, checks it against the budgets in budgetsFile (if any)
// and the policies (if any), and prints them; it returns exitError{exitPolicy} when a policy
// would stop the job, else exitError{exitBudget} when the job would break a budget.
func (e *env) estimate(ctx context.Context, path, budgetsFile, against string, policies estimatePolicyFlags) error {
	if err := e.validOutput(); err != nil {
		return err
	}
	if against != "forecast" && against != "actual" {
		return gpucost.Errorf(gpucost.EInvalid, "--against %q: use forecast or actual", against)
	}
	job, err := budget.ReadJobFile(path)
	if err != nil {
		return err
	}
	budgets, err := budget.ReadFile(budgetsFile)
	if err != nil {
		return err
	}
	sp, err := e.budgetSpend(ctx, budgets)
	if err != nil {
		return err
	}
	est, err := job.Price(sp.cat.Offers())
	if err != nil {
		return err
	}
	checks := sp.CheckJob(est, e.now(), against == "forecast")
	blocks, notes, err := e.policyBlocks(ctx, policies, budgets, sp, est, checks)
	if err != nil {
		return err
	}
	r := present.Estimate(est, checks, budgetsFile != "", sp.notes())
	if policies.file != "" {
		r = present.EstimatePolicies(r, blocks, notes)
	}
	if err := e.print(r); err != nil {
		return err
	}
	lines, broken := present.EstimateRefusals(blocks, checks)
	for _, l := range lines {
		fmt.Fprintln(e.stderr, "gpucost:", l)
	}
	if len(blocks) > 0 {
		return exitError{exitPolicy}
	}
	if broken {
		return exitError{exitBudget}
	}
	return nil
}
