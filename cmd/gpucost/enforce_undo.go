package main

import (
	"fmt"
	"strconv"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/enforce"
	"github.com/gpucost/gpucost/present"
	"github.com/spf13/cobra"
)

func newEnforceUndoCmd(e *env) *cobra.Command {
	var o enforceOpts
	cmd := &cobra.Command{
		Use:   "undo ACTION",
		Short: "Reverse a stop or scale-to-zero of the action log: start the VM, scale back to the recorded size",
		Long: `undo reverses one action of the action log (gpucost enforce log gives the ids): a stopped EC2
instance, GCE VM or Azure VM is started; a Deployment, StatefulSet or SageMaker endpoint scaled to
zero goes back to the size recorded when it was scaled down. The reversal is logged like any
action, and audited. Without --apply it is printed and logged as planned only.`,
		Example: `  gpucost enforce undo 42 --aws-region us-east-1 --apply
  gpucost enforce undo 43 --kube-server https://10.0.0.1:6443 --apply`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || id <= 0 {
				return usageError{fmt.Errorf("ACTION %q: give the id gpucost enforce log prints", args[0])}
			}
			return e.undoAction(cmd.Context(), id, o)
		},
	}
	cmd.Flags().BoolVar(&o.apply, "apply", false, "carry the reversal out (default: print and log it as planned)")
	o.inv.add(cmd)
	return cmd
}

func newEnforceAvoidedCmd(e *env) *cobra.Command {
	var since string
	cmd := &cobra.Command{
		Use:   "avoided",
		Short: "GPU-hours and cost the stops and scale-downs kept from running",
		Long: `avoided counts, for each stop and scale-to-zero carried out (not dry runs), the time from the
action to the start or scale-back that reversed it, or to now while it is in force, × the
resource's GPUs (GPU-hours) and × its hourly cost as the action recorded it.`,
		Example: `  gpucost enforce avoided --since 30d`,
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := e.validOutput(); err != nil {
				return err
			}
			from, err := e.lookBack(since)
			if err != nil {
				return err
			}
			return e.printStored(cmd.Context(), func(db storeDB) (result, error) {
				entries, err := enforce.Log{Store: db}.Actions(cmd.Context(), gpucost.ActionFilter{Since: from})
				return present.EnforceAvoided(enforce.AvoidedHours(entries, e.now())), err
			})
		},
	}
	registerSince(cmd, &since, "actions")
	return cmd
}
