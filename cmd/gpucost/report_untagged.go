package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/fleet"
	"github.com/spf13/cobra"
)

// untagged is the spend of one resource that no owner tag claims.
type untagged struct {
	ResourceID    string        `json:"resource_id"`
	Service       string        `json:"service"`
	Account       string        `json:"account"`
	GPU           string        `json:"gpu,omitempty"`
	Currency      string        `json:"currency"`
	EffectiveCost gpucost.Money `json:"effective_cost"`
	BilledCost    gpucost.Money `json:"billed_cost"`
	SKUs          []skuCost     `json:"skus"`
	TagKeys       []string      `json:"tag_keys,omitempty"` // the tags it has, none naming an owner
}

type skuCost struct {
	SKU  string        `json:"sku"`
	Cost gpucost.Money `json:"effective_cost"`
}

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
			byRes := map[[2]string]*untagged{}
			var all, none gpucost.Money
			keep := costKeep(s, f.gpuOnly)
			for i := range s.Charges {
				c := &s.Charges[i]
				if keep != nil && !keep(c) {
					continue
				}
				all = addMoney(all, c.Cost)
				if c.Owner.Team != "" && owner == "team" || c.Owner.Project != "" && owner == "project" {
					continue // idle time counts as its holder's; a resource nobody owns is listed whole
				}
				none = addMoney(none, c.Cost)
				addUntagged(byRes, c)
			}
			return e.print(untaggedResult(byRes, limit, owner, all, none))
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&owner, "owner", "team", "the owner tag that must be present: team or project")
	cmd.Flags().IntVar(&limit, "limit", 50, "show at most this many resources (0: all)")
	return cmd
}

// addMoney adds amounts of one currency; the report notes name the first currency only.
func addMoney(sum, m gpucost.Money) gpucost.Money {
	if sum.Currency == "" {
		return m
	}
	if sum.Currency != m.Currency {
		return sum
	}
	sum.Nanos += m.Nanos
	return sum
}

func addUntagged(byRes map[[2]string]*untagged, c *fleet.Charge) {
	id := c.Resource()
	var service, account string
	var tags gpucost.Labels
	if l := c.Line; l != nil {
		service, account, tags = l.Service, l.Account, l.Tags
	}
	if id == "" {
		id = "(no resource id) " + service
	}
	cur := c.Cost.Currency
	u := byRes[[2]string{id, cur}]
	if u == nil {
		zero := gpucost.Money{Currency: cur}
		u = &untagged{ResourceID: id, Service: service, Account: account, GPU: c.Model, Currency: cur,
			EffectiveCost: zero, BilledCost: zero}
		byRes[[2]string{id, cur}] = u
	}
	u.EffectiveCost.Nanos += c.Cost.Nanos
	u.BilledCost.Nanos += c.Billed.Nanos
	sku := cmp.Or(c.SKU(), "(no SKU)")
	if i := slices.IndexFunc(u.SKUs, func(s skuCost) bool { return s.SKU == sku }); i >= 0 {
		u.SKUs[i].Cost.Nanos += c.Cost.Nanos
	} else {
		u.SKUs = append(u.SKUs, skuCost{sku, c.Cost})
	}
	for k := range tags {
		if !slices.Contains(u.TagKeys, k) {
			u.TagKeys = append(u.TagKeys, k)
		}
	}
}

func untaggedResult(byRes map[[2]string]*untagged, limit int, owner string, all, none gpucost.Money) result {
	list := make([]*untagged, 0, len(byRes))
	for _, u := range byRes {
		slices.SortFunc(u.SKUs, func(a, b skuCost) int { return cmp.Compare(b.Cost.Nanos, a.Cost.Nanos) })
		slices.Sort(u.TagKeys)
		list = append(list, u)
	}
	slices.SortFunc(list, func(a, b *untagged) int {
		return cmp.Or(cmp.Compare(a.Currency, b.Currency), cmp.Compare(b.EffectiveCost.Nanos, a.EffectiveCost.Nanos), cmp.Compare(a.ResourceID, b.ResourceID))
	})
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
