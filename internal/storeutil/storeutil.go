// Package storeutil holds what the SQLite and PostgreSQL stores share: checking what is to be
// stored, preparing a cost import and its totals, counting the entries one call adds or
// replaces, and the WHERE clauses of the log filters (where.go), whose SQL both databases run.
// Both stores call it, so they check and answer alike.
package storeutil

import (
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// PrepareImport checks imp before it is stored and returns it with ImportedAt set to now if it
// was zero, in UTC. An import without a checksum is an EInvalid.
func PrepareImport(imp gpucost.CostImport, now time.Time) (gpucost.CostImport, error) {
	if imp.Checksum == "" {
		return gpucost.CostImport{}, gpucost.Errorf(gpucost.EInvalid, "store cost import %s: it has no checksum", imp.Name)
	}
	if imp.ImportedAt.IsZero() {
		imp.ImportedAt = now
	}
	imp.ImportedAt = imp.ImportedAt.UTC()
	return imp, nil
}

// ImportConflict is the EConflict of storing the import called name when the import id, called
// other, holds the same file (sameFile: the same checksum) or another file of the same bill (the
// same identity key). Both stores answer it, within the transaction that would store the import.
func ImportConflict(name string, id int64, other string, sameFile bool) error {
	if sameFile {
		return gpucost.Errorf(gpucost.EConflict, "store cost import %s: the same file was imported already as %s (import %d); replace it to import it again",
			name, other, id)
	}
	return gpucost.Errorf(gpucost.EConflict, "store cost import %s: a bill with the same identity (format, providers, billing accounts and billing periods) was imported as %s (import %d); replace it to import this one",
		name, other, id)
}

// NoImport is the ENotFound of an import id that is not stored.
func NoImport(id int64) error {
	return gpucost.Errorf(gpucost.ENotFound, "no cost import %d: list the imports with gpucost bills", id)
}

// SettleTotals sets imp.Totals to sums (the sums of its lines, per currency) if it is nil, or
// checks that the totals given equal them (an EInvalid if not), and returns the totals as the
// JSON both stores keep: amounts as decimal text (Money.MarshalText).
func SettleTotals(imp *gpucost.CostImport, sums []gpucost.CostTotal) (string, error) {
	if imp.Totals == nil {
		imp.Totals = sums
	} else if err := CheckTotals(imp.Totals, sums); err != nil {
		return "", gpucost.Errorf(gpucost.EInvalid, "store cost import %s: %w", imp.Name, err)
	}
	totals, err := json.Marshal(imp.Totals)
	if err != nil {
		return "", fmt.Errorf("store cost import %s: totals: %w", imp.Name, err)
	}
	return string(totals), nil
}

// ParseTotals reads totals kept as SettleTotals writes them; each amount takes its total's
// currency.
func ParseTotals(s string) ([]gpucost.CostTotal, error) {
	var raw []struct {
		Currency  string `json:"currency"`
		Billed    string `json:"billed_cost"`
		Effective string `json:"effective_cost"`
	}
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		return nil, err
	}
	if raw == nil {
		return nil, nil
	}
	out := make([]gpucost.CostTotal, len(raw))
	for i, r := range raw {
		billed, err := gpucost.ParseNanos(r.Billed)
		if err != nil {
			return nil, fmt.Errorf("%s billed cost: %w", r.Currency, err)
		}
		effective, err := gpucost.ParseNanos(r.Effective)
		if err != nil {
			return nil, fmt.Errorf("%s effective cost: %w", r.Currency, err)
		}
		out[i] = gpucost.CostTotal{Currency: r.Currency,
			BilledCost:    gpucost.Money{Nanos: billed, Currency: r.Currency},
			EffectiveCost: gpucost.Money{Nanos: effective, Currency: r.Currency}}
	}
	return out, nil
}

// CheckTotals returns an error unless given and sums hold the same amounts per currency (an empty
// currency reads as USD, as Money reads it).
func CheckTotals(given, sums []gpucost.CostTotal) error {
	type pair struct{ billed, effective int64 }
	byCurrency := func(ts []gpucost.CostTotal) map[string]pair {
		m := map[string]pair{}
		for _, t := range ts {
			c := cmp.Or(t.Currency, "USD")
			p := m[c]
			m[c] = pair{p.billed + t.BilledCost.Nanos, p.effective + t.EffectiveCost.Nanos}
		}
		return m
	}
	g, s := byCurrency(given), byCurrency(sums)
	currencies := slices.Collect(maps.Keys(g))
	for c := range s {
		if _, ok := g[c]; !ok {
			currencies = append(currencies, c)
		}
	}
	slices.Sort(currencies)
	for _, c := range currencies {
		if g[c] != s[c] {
			money := func(n int64) string { return gpucost.Money{Nanos: n, Currency: c}.Decimal() }
			return fmt.Errorf("its %s totals (billed %s, effective %s) differ from the sums of its lines (billed %s, effective %s)",
				c, money(g[c].billed), money(g[c].effective), money(s[c].billed), money(s[c].effective))
		}
	}
	return nil
}

// CheckOffers returns an EInvalid naming the first offer that lacks a provider, region,
// instance type or GPU model.
func CheckOffers(offers []gpucost.Offer) error {
	for i, o := range offers {
		if o.Provider == "" || o.Region == "" || o.InstanceType == "" || o.GPUModel == "" {
			return gpucost.Errorf(gpucost.EInvalid,
				"store offer %d (%s %s %s): provider, region, instance type and GPU model are required", i+1, o.Provider, o.Region, o.InstanceType)
		}
	}
	return nil
}

// OfferKey is what identifies a stored offer: a later offer with the same key replaces it.
type OfferKey struct{ Provider, Region, Zone, Instance string }

// KeyOf returns o's key, its provider lower-case as stored.
func KeyOf(o gpucost.Offer) OfferKey {
	return OfferKey{strings.ToLower(o.Provider), o.Region, o.Zone, o.InstanceType}
}

// CheckInventory returns an EInvalid naming the first entry without a resource id or with a
// negative GPU count.
func CheckInventory(entries []gpucost.InventoryEntry) error {
	for i, e := range entries {
		switch {
		case e.ResourceID == "":
			return gpucost.Errorf(gpucost.EInvalid, "store inventory entry %d (host %q): the resource id is required", i+1, e.Host)
		case e.GPUs < 0:
			return gpucost.Errorf(gpucost.EInvalid, "store inventory entry %d (%s): %d GPUs; give 0 when unknown", i+1, e.ResourceID, e.GPUs)
		}
	}
	return nil
}

// Tally counts the keys one call adds and replaces, each key once however often it comes: within
// one call a later entry with the same key replaces an earlier one and is not counted again.
type Tally[K comparable] struct {
	seen            map[K]bool
	Added, Replaced int
}

// First reports whether k comes for the first time in this call, marking it seen.
func (t *Tally[K]) First(k K) bool {
	if t.seen[k] {
		return false
	}
	if t.seen == nil {
		t.seen = map[K]bool{}
	}
	t.seen[k] = true
	return true
}

// Count counts a key that First said was new: added if it was not stored before, replaced if
// it was.
func (t *Tally[K]) Count(added bool) {
	if added {
		t.Added++
	} else {
		t.Replaced++
	}
}

// PrepareToken checks a token about to be stored — a SHA-256 hash, a name, a known role — and
// sets Created (now when zero) in UTC to the second, as both stores keep it; Revoked is cleared.
func PrepareToken(t gpucost.Token, hash []byte, now time.Time) (gpucost.Token, error) {
	if len(hash) != sha256.Size {
		return gpucost.Token{}, gpucost.Errorf(gpucost.EInvalid, "store token %q: hash is %d bytes, want a SHA-256 hash", t.Name, len(hash))
	}
	if strings.TrimSpace(t.Name) == "" {
		return gpucost.Token{}, gpucost.Errorf(gpucost.EInvalid, "store token: a name is required, such as the host or team it is for")
	}
	if _, err := gpucost.ParseRole(string(t.Role)); err != nil {
		return gpucost.Token{}, err
	}
	if t.Created.IsZero() {
		t.Created = now
	}
	t.Created = t.Created.UTC().Truncate(time.Second)
	t.Revoked = time.Time{}
	return t, nil
}
