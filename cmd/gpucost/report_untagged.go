package main

import (
	"fmt"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/fleet"
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
			if owner != "team" && owner != "project" {
				return gpucost.Errorf(gpucost.EInvalid, "--owner %q: use team or project", owner)
			}
			s, err := f.snapshot(cmd.Context(), e)
			if err != nil {
				return err
			}
			list, all, none := s.Untagged(owner, costKeep(s, f.gpuOnly))
			return e.print(untaggedResult(list, limit, owner, all, none))
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&owner, "owner", "team", "the owner tag that must be present: team or project")
	cmd.Flags().IntVar(&limit, "limit", 50, "show at most this many resources (0: all)")
	return cmd
}

func untaggedResult(list []*fleet.Untagged, limit int, owner string, all, none gpucost.Money) result {
	total := len(list)
	if limit > 0 && len(list) > limit {
		list = list[:limit]
	}
	r := result{
		Title:   "Spend with no " + owner + " owner, largest first",
		Columns: []string{"Resource", "Service", "Account", "GPU", "Currency", "Cost", "Billed", "Top SKUs", "Tag keys"},
		Right:   []int{5, 6},
		JSON:    list,
	}
	for _, u := range list {
		var skus []string
		for i, s := range u.SKUs {
			if i == 3 {
				skus = append(skus, fmt.Sprintf("+%d", len(u.SKUs)-3))
				break
			}
			skus = append(skus, s.SKU+" "+s.Cost.Fixed(2))
		}
		r.Rows = append(r.Rows, []string{u.ResourceID, u.Service, u.Account, u.GPU, u.Currency, u.EffectiveCost.Fixed(2),
			u.BilledCost.Fixed(2), strings.Join(skus, "; "), strings.Join(u.TagKeys, " ")})
	}
	if total > len(list) {
		r.Notes = append(r.Notes, fmt.Sprintf("… %d more resources (--limit 0 shows all).", total-len(list)))
	}
	if all.Currency != "" {
		r.Notes = append(r.Notes, fmt.Sprintf("Untagged: %s of %s %s effective cost (%s) in %d resources.",
			none.Fixed(2), all.Fixed(2), all.Currency, percentOf(none.Nanos, all.Nanos), total))
	}
	return r
}
