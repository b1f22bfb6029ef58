package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/enforce"
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
			return e.enforceLog(cmd.Context(), f)
		},
	}
	cmd.Flags().StringVar(&since, "since", "", "entries in this look-back only, such as 7d or 24h")
	cmd.Flags().StringVar(&f.Policy, "policy", "", "this policy's actions only")
	cmd.Flags().StringVar(&f.Resource, "resource", "", "actions on this resource id only")
	cmd.Flags().IntVar(&f.Limit, "limit", 200, "the latest N entries (0: all)")
	return cmd
}

func (e *env) enforceLog(ctx context.Context, f gpucost.ActionFilter) error {
	r := result{
		Title:   "Enforcement actions",
		Columns: []string{"Time", "Policy", "Action", "Resource", "Kind", "Result", "Dry run", "Evidence", "Error"},
		JSON:    []enforce.LogEntry{},
	}
	return e.listLog(ctx, f.Limit, nil, r, "No store file: no action has been logged yet (gpucost enforce logs them).", func(db storeDB, r *result) error {
		entries, err := enforce.Log{Store: db}.Actions(ctx, f)
		if err != nil {
			return err
		}
		for _, en := range entries {
			a := en.Action
			id, kind := strings.Join(a.Targets, ", "), "targets"
			if a.Resource != nil {
				id, kind = a.Resource.ID, a.Resource.Kind
			}
			r.Rows = append(r.Rows, []string{en.At.UTC().Format(time.RFC3339), a.Policy, a.Action, id, kind, a.Result,
				fmt.Sprint(a.DryRun), a.Summary(), a.Error})
		}
		if len(entries) > 0 {
			r.JSON = entries
		} else {
			r.Notes = append(r.Notes, "No action matches.")
		}
		return nil
	})
}
