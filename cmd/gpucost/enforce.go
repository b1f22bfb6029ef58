package main

import (
	"context"
	"fmt"
	"time"

	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/enforce"
	"github.com/gpucost/gpucost/present"
	"github.com/spf13/cobra"
)

type enforceOpts struct {
	policies, budgets, targets string
	apply, replay              bool
	at                         string
	inv                        inventoryFlags
}

// enforceHelp is enforce's --help.
var enforceHelp = `enforce evaluates policies against the budgets (spend and forecast from the bills in the
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
    - name: idle-notebooks
      idle: {below: 5%, for: 60m}     # every GPU of the resource below 5% in every minute of 60m
      min_age: 2h                     # leave machines launched in the last 2h alone
      scope: {namespace: notebooks}
      actions: [notify, stop, scale-to-zero]
      notify: [ops-slack]
    - name: dev-off-hours
      schedule: {off: ["Mon-Fri 20:00-08:00", "Sat-Sun 00:00-24:00"], zone: Europe/Berlin,
                 holidays: [2026-12-25]}
      scope: {tags: {env: dev}}
      actions: [stop, scale-to-zero]  # and start again at the recorded size when the window ends

Idle policies judge each resource's GPUs from the store's minute telemetry, joined to it by
host name (the store's inventory ties bill ids to hosts) or, for Kubernetes workloads, by the
pod and namespace labels: a resource is idle only when every GPU reported in at least 90% of the
window's minutes and no minute reached the threshold; a source that stopped reporting is "no
data", never idle. Resources tagged or labelled gpucost/keep: "true" are exempt, as are those
younger than min_age. Every stop and scale-to-zero records the size it found:
"gpucost enforce undo ID" starts the VM or scales the workload back to it, and
"gpucost enforce avoided" counts the GPU-hours and cost each kept from running. Without
--aws-region, --kube-server, --kube, --kubeconfig, --gce-project or --azure-subscription, idle
and off-hours policies are rehearsed on the store's inventory (nothing is acted on), and
--replay prints what they would have saved over the last 30 days beside recommend's
idle-schedule lever.

Actions: notify alerts the targets once per budget period (once a day for a spot cap); tag sets
EC2 and SageMaker tags or Deployment annotations; stop stops EC2 instances (StopInstances: a
one-time spot instance cannot be stopped and the action fails with EC2's reason); scale-to-zero
sets a SageMaker endpoint's inference components to zero copies (SageMaker scales only endpoints
hosting inference components to zero; others are reported as skipped) and a Deployment's or
StatefulSet's replicas (a Kubeflow Notebook's) to 0 through its scale subresource. Idle and
off-hours policies also stop GCE VMs (instances.stop) and Azure VMs (deallocate).

Credentials, as the clouds' own tools find them (docs/architecture.md "Credentials"): AWS from
--aws-profile or AWS_PROFILE (static keys, a role to assume, SSO after aws sso login,
credential_process), else AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, else web identity
(AWS_WEB_IDENTITY_TOKEN_FILE, as on EKS), else the default profile, else the ECS container's or
the EC2 instance's role. Kubernetes from --kube-server with --kube-token-file or
GPUCOST_KUBE_TOKEN; else --kubeconfig and --context (token, client certificate or exec plugin);
with --kube, the pod's service account when run in a cluster, else kubectl's current context.
GCE from GPUCOST_GCE_TOKEN, else Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS,
gcloud auth application-default login, the metadata server). Azure from GPUCOST_AZURE_TOKEN, else
AZURE_TENANT_ID, AZURE_CLIENT_ID and AZURE_CLIENT_SECRET, workload identity, the managed
identity, or az login. Secrets are never printed or logged.

Exit codes: 0 no policy triggered; 7 a policy triggered and its actions were planned (dry run) or
all carried out; 4 an action failed or a cloud API could not be reached; 2 the policies, budgets or
targets file or a flag is invalid.`

func newEnforceCmd(e *env) *cobra.Command {
	var o enforceOpts
	cmd := &cobra.Command{
		Use:   "enforce",
		Short: "Apply spend policies: notify, tag, stop instances, scale endpoints to zero (dry run by default)",
		Long:  enforceHelp,
		Example: `  gpucost enforce --policies policies.yaml --budgets budgets.yaml --aws-region us-east-1
  gpucost enforce --policies policies.yaml --budgets budgets.yaml --aws-region us-east-1 \
      --kube-server https://10.0.0.1:6443 --kube-token-file /var/run/secrets/kubernetes.io/serviceaccount/token \
      --targets targets.yaml --apply
  gpucost enforce --policies policies.yaml --budgets budgets.yaml --aws-region us-east-1 --aws-profile gpu-admin \
      --kubeconfig ~/.kube/prod --context prod
  gpucost enforce log --since 7d --policy spot-cap`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return e.enforce(cmd.Context(), o) },
	}
	cmd.Flags().StringVar(&o.policies, "policies", "", "policies YAML file")
	cmd.Flags().StringVar(&o.budgets, "budgets", "", "budgets YAML file the policies name")
	cmd.Flags().StringVar(&o.targets, "targets", "", "notification targets YAML file, for the notify action")
	cmd.Flags().BoolVar(&o.apply, "apply", false, "carry out the actions of policies with dry_run: false (default: print and log them only)")
	cmd.Flags().StringVar(&o.at, "at", "", "without a live inventory: rehearse the idle and off-hours policies at this RFC 3339 time of the stored telemetry (default: now, or where the telemetry ends)")
	cmd.Flags().BoolVar(&o.replay, "replay", true, "with idle or off-hours policies: also replay them on the last 30 days of the store's telemetry and bill and print the monthly saving beside recommend's idle-schedule lever")
	o.inv.add(cmd)
	cmd.AddCommand(newEnforceLogCmd(e), newEnforceUndoCmd(e), newEnforceAvoidedCmd(e))
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
	if o.at != "" {
		if len(sources.inventories) > 0 {
			return usageError{fmt.Errorf("--at rehearses on the stored telemetry; it cannot go with a live inventory (--aws-region, --kube-server, …)")}
		}
		if snap.Now, err = time.Parse(time.RFC3339, o.at); err != nil {
			return usageError{fmt.Errorf("--at %q: give an RFC 3339 time such as 2026-11-27T03:00:00Z", o.at)}
		}
	}
	more, err := e.usageSnapshot(ctx, policies, &snap, len(sources.inventories) > 0)
	if err != nil {
		return err
	}
	notes = append(notes, more...)
	plan := enforce.Evaluate(policies, snap, o.apply)
	failed, err := fromStore(ctx, e, func(db storeDB) (int, error) { return sources.runner(e, db, targets).Run(ctx, &plan) })
	if err != nil {
		return err
	}
	var savings *result
	if o.replay {
		if savings, err = e.usageSavings(ctx, policies, snap.Resources); err != nil {
			return err
		}
	}
	if err := e.printEnforcement(present.Enforcement(plan, notes), savings); err != nil {
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

// printEnforcement prints the plan and, where the policies were replayed, their savings: two
// tables, or with --output json one document, the plan's with the savings under "replay", or
// with --output csv the plan's rows only, so that a script reads one document either way.
func (e *env) printEnforcement(t result, savings *result) error {
	if savings == nil {
		return e.print(t)
	}
	switch e.output {
	case "json":
		if p, ok := t.JSON.(enforce.Plan); ok {
			t.JSON = struct {
				enforce.Plan
				Replay any `json:"replay"`
			}{p, savings.JSON}
		}
		return e.print(t)
	case "csv":
		t.Notes = append(t.Notes, "The replay of the policies over the stored telemetry is left out of CSV: see it with --output table or json.")
		return e.print(t)
	}
	if err := e.print(t); err != nil {
		return err
	}
	return e.print(*savings)
}
