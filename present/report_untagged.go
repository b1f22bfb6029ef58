package present

import (
	"fmt"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/fleet"
)

// Untagged is report untagged's table: at most limit (all where 0) of the resources no owner
// claims, largest first as list holds them, with their top SKUs and the tag keys they have;
// none of all is the untagged share of the effective cost.
func Untagged(list []*fleet.Untagged, limit int, owner string, all, none gpucost.Money) Table {
	total := len(list)
	if limit > 0 && len(list) > limit {
		list = list[:limit]
	}
	t := Table{
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
		t.Rows = append(t.Rows, []string{u.ResourceID, u.Service, u.Account, u.GPU, u.Currency, u.EffectiveCost.Fixed(2),
			u.BilledCost.Fixed(2), strings.Join(skus, "; "), strings.Join(u.TagKeys, " ")})
	}
	if total > len(list) {
		t.Notes = append(t.Notes, fmt.Sprintf("… %d more resources (--limit 0 shows all).", total-len(list)))
	}
	if all.Currency != "" {
		t.Notes = append(t.Notes, fmt.Sprintf("Untagged: %s of %s %s effective cost (%s) in %d resources.",
			none.Fixed(2), all.Fixed(2), all.Currency, ShareOf(none.Nanos, all.Nanos), total))
	}
	return t
}
