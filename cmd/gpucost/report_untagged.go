package main

import (
	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/present"
	"github.com/spf13/cobra"
)

func newReportUntaggedCmd(e *env) *cobra.Command {
	var (
		f     costFlags
		owner string
		limit int
	)
	cmd := &cobra.Command{
		Use:   "untagged",
		Short: "Spend with no owner, largest first, with the resource ids",
		Long: `untagged lists the resources whose spend no owner claims: no tag among --tag-keys names
their team (or --owner project), and, for GPUs split by telemetry, no pod label did either. The
idle time of a GPU held by a series no label or tag owns counts too: nobody owns it. GPU time no
bill line covers is priced at the catalog's on-demand price, its SKU "(catalog)". Largest first, with the
SKUs that cost most and the tag keys the resource does have, so the fix is one tagging rule away.`,
		Example: `  gpucost report untagged --since 30d
  gpucost report untagged --owner project --gpu-only --output csv`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := intAtLeast("limit", limit, 0); err != nil {
				return err
			}
			if owner != "team" && owner != "project" {
				return gpucost.Errorf(gpucost.EInvalid, "--owner %q: use team or project", owner)
			}
			s, err := f.snapshot(cmd.Context(), e)
			if err != nil {
				return err
			}
			list, all, none := s.Untagged(owner, present.CostKeep(s, f.gpuOnly))
			return e.print(present.Untagged(list, limit, owner, all, none))
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&owner, "owner", "team", "the owner tag that must be present: team or project")
	cmd.Flags().IntVar(&limit, "limit", 50, "show at most this many resources (0: all)")
	return cmd
}
