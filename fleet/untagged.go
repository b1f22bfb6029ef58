package fleet

import (
	"cmp"
	"slices"

	"github.com/gpucost/gpucost"
)

// Untagged is the spend of one resource that no owner tag claims.
type Untagged struct {
	ResourceID    string        `json:"resource_id"`
	Service       string        `json:"service"`
	Account       string        `json:"account"`
	GPU           string        `json:"gpu,omitempty"`
	Currency      string        `json:"currency"`
	EffectiveCost gpucost.Money `json:"effective_cost"`
	BilledCost    gpucost.Money `json:"billed_cost"`
	SKUs          []SKUCost     `json:"skus"`
	TagKeys       []string      `json:"tag_keys,omitempty"` // the tags it has, none naming an owner
}

// SKUCost is one SKU's part of an untagged resource's spend.
type SKUCost struct {
	SKU  string        `json:"sku"`
	Cost gpucost.Money `json:"effective_cost"`
}

// Untagged returns the resources whose spend no owner claims — no tag or label names their
// owner ("team" or "project") — largest first, with the spend keep accepts (all where nil) and
// the untagged part of it, in the first currency seen. The idle time of a GPU held by a series
// nobody owns counts too.
func (s *Snapshot) Untagged(owner string, keep func(*Charge) bool) (list []*Untagged, all, none gpucost.Money) {
	byRes := map[[2]string]*Untagged{}
	for c := range s.All() {
		if keep != nil && !keep(c) {
			continue
		}
		all = addMoney(all, c.Cost)
		if c.Owner.Team != "" && owner == "team" || c.Owner.Project != "" && owner == "project" {
			continue
		}
		none = addMoney(none, c.Cost)
		addUntagged(byRes, c)
	}
	for _, u := range byRes {
		slices.SortFunc(u.SKUs, func(a, b SKUCost) int { return cmp.Compare(b.Cost.Nanos, a.Cost.Nanos) })
		slices.Sort(u.TagKeys)
		list = append(list, u)
	}
	slices.SortFunc(list, func(a, b *Untagged) int {
		return cmp.Or(cmp.Compare(a.Currency, b.Currency), cmp.Compare(b.EffectiveCost.Nanos, a.EffectiveCost.Nanos), cmp.Compare(a.ResourceID, b.ResourceID))
	})
	return list, all, none
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

func addUntagged(byRes map[[2]string]*Untagged, c *Charge) {
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
		u = &Untagged{ResourceID: id, Service: service, Account: account, GPU: c.Model, Currency: cur,
			EffectiveCost: zero, BilledCost: zero}
		byRes[[2]string{id, cur}] = u
	}
	u.EffectiveCost.Nanos += c.Cost.Nanos
	u.BilledCost.Nanos += c.Billed.Nanos
	sku := cmp.Or(c.SKU(), "(no SKU)")
	if i := slices.IndexFunc(u.SKUs, func(s SKUCost) bool { return s.SKU == sku }); i >= 0 {
		u.SKUs[i].Cost.Nanos += c.Cost.Nanos
	} else {
		u.SKUs = append(u.SKUs, SKUCost{sku, c.Cost})
	}
	for k := range tags {
		if !slices.Contains(u.TagKeys, k) {
			u.TagKeys = append(u.TagKeys, k)
		}
	}
}
