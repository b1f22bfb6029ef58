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
	cmd.AddCommand(newPlanCheckpointCmd(e), newPlanCommitCmd(e), newPlanInstanceCmd(e), newPlanMIGCmd(e), newPlanFleetCmd(e), newPlanCapacityCmd(e), newPlanBatchingCmd(e), newPlanAutoscaleCmd(e), newPlanShareCmd(e))
	return cmd
}

// printing returns a command's RunE that checks --output first, then prints the table build
// returns.
func (e *env) printing(build func(cmd *cobra.Command, args []string) (result, error)) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := e.validOutput(); err != nil {
			return err
		}
		t, err := build(cmd, args)
		if err != nil {
			return err
		}
		return e.print(t)
	}
}

// shown turns a planner's (result, error) into a table with build, or passes the error on:
// return shown(present.MIG)(plan.PlanMIG(in)).
func shown[R any](build func(R) result) func(R, error) (result, error) {
	return func(r R, err error) (result, error) {
		if err != nil {
			return result{}, err
		}
		return build(r), nil
	}
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

// parseFlag parses v, the value of --flag, into dst with parse (see flagValue).
func parseFlag[T any](dst *T, flag, v string, parse func(string) (T, error)) error {
	x, err := flagValue(flag, v, parse)
	if err == nil {
		*dst = x
	}
	return err
}

// parseOptional is parseFlag for a flag whose empty value means "not given": dst keeps its
// value.
func parseOptional[T any](dst *T, flag, v string, parse func(string) (T, error)) error {
	if v == "" {
		return nil
	}
	return parseFlag(dst, flag, v, parse)
}
