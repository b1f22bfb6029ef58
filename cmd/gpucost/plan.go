package main

import (
	"github.com/gpucost/gpucost"
	"github.com/spf13/cobra"
)

func newPlanCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Planners: instance sizing, commitments, MIG packing, checkpoint intervals, spot fleets",
	}
	cmd.AddCommand(newPlanCheckpointCmd(e), newPlanCommitCmd(e), newPlanInstanceCmd(e), newPlanMIGCmd(e), newPlanFleetCmd(e), newPlanCapacityCmd(e), newPlanBatchingCmd(e), newPlanAutoscaleCmd(e))
	return cmd
}

// flagValue parses the value of --flag with parse, one of plan's parsers, whose errors start
// with the value: the error then names the flag too.
func flagValue[T any](flag, v string, parse func(string) (T, error)) (T, error) {
	x, err := parse(v)
	if err != nil {
		return x, gpucost.Errorf(gpucost.EInvalid, "--%s %w", flag, err)
	}
	return x, nil
}
