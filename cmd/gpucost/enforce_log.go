package main

import (
	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/enforce"
	"github.com/gpucost/gpucost/present"
	"github.com/spf13/cobra"
)

func newEnforceLogCmd(e *env) *cobra.Command {
	var (
		since string
		f     gpucost.ActionFilter
	)
	cmd := &cobra.Command{
		Use:   "log",
		Short: "The enforcement action log: every action planned or taken, with its evidence",
		Long: `log lists the store's enforcement action log, oldest first: when each action was planned (a
dry run) or carried out, the policy, the action, the resource, the result (planned, done, failed
with the reason, secrets redacted) and the evidence: the budget's figures or the spot count, and
the tags that put the resource in scope. --output json prints each entry whole.`,
		Example: `  gpucost enforce log
  gpucost enforce log --since 7d --policy research-over-budget --output json
  gpucost enforce log --resource i-0abc123`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if f.Since, err = e.lookBack(since); err != nil {
				return err
			}
			return e.listLog(cmd.Context(), f.Limit, nil, func(db storeDB) (result, error) {
				if db == nil {
					return present.EnforceLog(nil, true), nil
				}
				entries, err := enforce.Log{Store: db}.Actions(cmd.Context(), f)
				return latestNote(present.EnforceLog(entries, false), len(entries), f.Limit), err
			})
		},
	}
	registerSince(cmd, &since, "entries")
	cmd.Flags().StringVar(&f.Policy, "policy", "", "this policy's actions only")
	cmd.Flags().StringVar(&f.Resource, "resource", "", "actions on this resource id only")
	cmd.Flags().IntVar(&f.Limit, "limit", 200, "the latest N entries (0: all)")
	return cmd
}
