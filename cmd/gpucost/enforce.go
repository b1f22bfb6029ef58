package main

import (
	"context"
	"fmt"

	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/enforce"
	"github.com/gpucost/gpucost/present"
	"github.com/spf13/cobra"
)

type enforceOpts struct {
	policies, budgets, targets string
	apply                      bool
	inv                        inventoryFlags
}

func newEnforceCmd(e *env) *cobra.Command {
	var o enforceOpts
	cmd := &cobra.Command{
		Use:   "enforce",
		Short: "Apply spend policies: notify, tag, stop instances, scale endpoints to zero (dry run by default)",
		Long: `enforce evaluates policies against the budgets (spend and forecast from the bills in the
store, as budget status shows them) and the live inventory: EC2 instances and SageMaker endpoints
in the --aws-region regions, and the GPU Deployments of a Kubernetes cluster (--kube-server). It
prints every action with the policy, the resource and the evidence, and logs every action in the
store, dry runs included (gpucost enforce log).

Enforcement is opt-in and dry-run by default: an action changes a resource only when its policy
says dry_run: false AND --apply is given. Otherwise it is printed and logged as planned.

A policies file:

  policies:
    - name: research-over-budget
      budget: research-monthly        # a budget of the --budgets file, by name
      over: 100%                      # of the spend so far; forecast: true compares the forecast
      unless_tags: {approved: "true"} # resources carrying all of these tags are exempt
      scope: {tags: {team: research}} # what it acts on (budget scope syntax); default: the budget's
      actions: [notify, tag, stop, scale-to-zero]
      notify: [ops-slack]             # targets of the --targets file
      tags: {gpucost-policy: over}    # what tag sets; default gpucost-policy: NAME
      dry_run: false
    - name: spot-cap
      max_spot_instances: 40          # running spot instances in scope; the newest beyond the cap
      actions: [stop]                 # that are not exempt are acted on

Actions: notify alerts the targets once per budget period (once a day for a spot cap); tag sets
EC2 and SageMaker tags or Deployment annotations; stop stops EC2 instances (StopInstances: a
one-time spot instance cannot be stopped and the action fails with EC2's reason); scale-to-zero
sets a SageMaker endpoint's inference components to zero copies (SageMaker scales only endpoints
hosting inference components to zero; others are reported as skipped) and a Deployment's replicas
to 0 through its scale subresource.

Credentials: AWS from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN; the
Kubernetes bearer token from --kube-token-file or GPUCOST_KUBE_TOKEN. Secrets are never printed
or logged.

Exit codes: 0 no policy triggered; 7 a policy triggered and its actions were planned (dry run) or
all carried out; 4 an action failed or a cloud API could not be reached; 2 the policies, budgets or
targets file or a flag is invalid.`,
		Example: `  gpucost enforce --policies policies.yaml --budgets budgets.yaml --aws-region us-east-1
  gpucost enforce --policies policies.yaml --budgets budgets.yaml --aws-region us-east-1 \
      --kube-server https://10.0.0.1:6443 --kube-token-file /var/run/secrets/kubernetes.io/serviceaccount/token \
      --targets targets.yaml --apply
  gpucost enforce log --since 7d --policy spot-cap`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return e.enforce(cmd.Context(), o) },
	}
	cmd.Flags().StringVar(&o.policies, "policies", "", "policies YAML file")
	cmd.Flags().StringVar(&o.budgets, "budgets", "", "budgets YAML file the policies name")
	cmd.Flags().StringVar(&o.targets, "targets", "", "notification targets YAML file, for the notify action")
	cmd.Flags().BoolVar(&o.apply, "apply", false, "carry out the actions of policies with dry_run: false (default: print and log them only)")
	o.inv.add(cmd)
	cmd.AddCommand(newEnforceLogCmd(e))
	return cmd
}

// enforce evaluates the policies, runs the plan and prints it.
func (e *env) enforce(ctx context.Context, o enforceOpts) error {
	if err := e.validOutput(); err != nil {
		return err
	}
	if o.policies == "" {
		return usageError{fmt.Errorf("--policies is required: the policies YAML file")}
	}
	budgets, err := budget.ReadFile(o.budgets)
	if err != nil {
		return err
	}
	policies, err := enforce.ReadFile(o.policies, budgets)
	if err != nil {
		return err
	}
	targets, err := e.loadTargets(o.targets)
	if err != nil {
		return err
	}
	if err := enforce.CheckTargets(policies, targets, o.targets, o.apply); err != nil {
		return err
	}
	sources, err := o.inv.sources(e)
	if err != nil {
		return err
	}
	snap, notes, err := e.enforceSnapshot(ctx, budgets, sources)
	if err != nil {
		return err
	}
	plan := enforce.Evaluate(policies, snap, o.apply)
	failed, err := fromStore(ctx, e, func(db storeDB) (int, error) { return sources.runner(e, db, targets).Run(ctx, &plan) })
	if err != nil {
		return err
	}
	if err := e.print(present.Enforcement(plan, notes)); err != nil {
		return err
	}
	switch {
	case failed > 0:
		fmt.Fprintf(e.stderr, "gpucost: %d enforcement actions failed (see gpucost enforce log)\n", failed)
		return exitError{exitUnavailable}
	case plan.Triggered():
		return exitError{exitPolicy}
	}
	return nil
}

// enforceSnapshot evaluates the budgets now and lists the inventory (enforce.Snapshot.List),
// with the notes about the spend and the inventory.
func (e *env) enforceSnapshot(ctx context.Context, budgets []budget.Budget, src *enforceSources) (enforce.Snapshot, []string, error) {
	now := e.now()
	snap := enforce.Snapshot{Now: now, Budgets: budgets}
	var notes []string
	if len(budgets) > 0 {
		sp, err := e.budgetSpend(ctx, budgets)
		if err != nil {
			return snap, nil, err
		}
		snap.Statuses, notes = sp.Statuses(now), sp.notes()
	}
	more, err := snap.List(ctx, src.inventories)
	return snap, append(notes, more...), err
}
