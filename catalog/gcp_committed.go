package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
)

// SettingGCPCommitted is the store setting that keeps the committed-use prices of the GCP
// pricing YAML imported last (gpucost catalog import --format gcp-pricing-yml): Load puts them
// in place of the bundled file's, so plan commit --gcp-cud prices a commitment from the newest
// file the team imported. The offers the file holds (on-demand, spot) are stored as offers.
const SettingGCPCommitted = "catalog.gcp_committed"

// committedDoc is what SettingGCPCommitted holds: the file, its date, and its machine types'
// committed-use prices beside their on-demand ones, in nano-dollars per hour.
type committedDoc struct {
	Source    string           `json:"source"`
	Generated time.Time        `json:"generated,omitzero"`
	Prices    []committedPrice `json:"prices"`
}

type committedPrice struct {
	Machine  string `json:"machine"`
	Region   string `json:"region"`
	OnDemand int64  `json:"on_demand_nanos"`
	Commit1y int64  `json:"commit_1y_nanos,omitempty"` // 0: no 1-year price
	Commit3y int64  `json:"commit_3y_nanos,omitempty"` // 0: no 3-year price
}

// EncodeCommitted returns the committed-use prices of g as SettingGCPCommitted keeps them, and
// how many there are; none when the file has no committed-use price.
func (g *GCPPricing) EncodeCommitted() (string, int, error) {
	doc := committedDoc{Source: g.Name, Generated: g.Generated}
	for _, p := range g.Prices {
		if !p.Has1y && !p.Has3y {
			continue
		}
		c := committedPrice{Machine: p.InstanceType, Region: p.Region, OnDemand: p.OnDemand.Nanos}
		if p.Has1y {
			c.Commit1y = p.Commit1y.Nanos
		}
		if p.Has3y {
			c.Commit3y = p.Commit3y.Nanos
		}
		doc.Prices = append(doc.Prices, c)
	}
	if len(doc.Prices) == 0 {
		return "", 0, nil
	}
	b, err := json.Marshal(doc)
	return string(b), len(doc.Prices), err
}

// Committed returns the committed-use prices of the newest GCP pricing YAML among imports (by
// its about.generated; the later file on a tie) as SettingGCPCommitted keeps them, how many
// there are and the file's name; none when no import is a pricing YAML with such prices.
func Committed(imports []*Import) (doc string, n int, name string, err error) {
	var newest *GCPPricing
	for _, im := range imports {
		if p := im.Pricing; p != nil && (newest == nil || !p.Generated.Before(newest.Generated)) {
			newest = p
		}
	}
	if newest == nil {
		return "", 0, "", nil
	}
	doc, n, err = newest.EncodeCommitted()
	return doc, n, newest.Name, err
}

// decodeCommitted reads what EncodeCommitted wrote into a GCPPricing of committed-use prices.
func decodeCommitted(s string) (*GCPPricing, error) {
	var doc committedDoc
	if err := json.Unmarshal([]byte(s), &doc); err != nil {
		return nil, fmt.Errorf("setting %s: %w", SettingGCPCommitted, err)
	}
	g := &GCPPricing{Import: Import{Name: doc.Source, Provider: "gcp"}, Generated: doc.Generated,
		index: map[[2]string]int{}, types: map[string]bool{}}
	usd := func(n int64) gpucost.Money { return gpucost.Money{Nanos: n, Currency: "USD"} }
	for _, c := range doc.Prices {
		g.index[[2]string{c.Machine, c.Region}] = len(g.Prices)
		g.types[c.Machine] = true
		g.Prices = append(g.Prices, GCPPrice{InstanceType: c.Machine, Region: c.Region, OnDemand: usd(c.OnDemand),
			Commit1y: usd(c.Commit1y), Has1y: c.Commit1y > 0, Commit3y: usd(c.Commit3y), Has3y: c.Commit3y > 0})
	}
	return g, nil
}

// settings is the part of a store Load reads the stored committed-use prices from.
type settings interface {
	Setting(ctx context.Context, key, def string) (string, error)
}

// withStoredCommitted returns c with the committed-use prices store keeps
// (SettingGCPCommitted) in place of the bundled file's, or c where it keeps none.
func (c *Catalog) withStoredCommitted(ctx context.Context, store any) (*Catalog, error) {
	st, ok := store.(settings)
	if !ok {
		return c, nil
	}
	s, err := st.Setting(ctx, SettingGCPCommitted, "")
	if err != nil || s == "" {
		return c, err
	}
	g, err := decodeCommitted(s)
	if err != nil {
		return nil, err
	}
	return &Catalog{offers: c.offers, issues: c.issues, sources: c.sources, imported: c.imported, gcpPricing: g}, nil
}

// CommittedSource names where the catalog's GCP committed-use prices come from, for messages.
func (c *Catalog) CommittedSource() string {
	if c.gcpPricing == nil {
		return "none"
	}
	if c.gcpPricing.Name == gcpPricingFile {
		return "bundled pricing.yml generated " + c.gcpPricing.Generated.Format(time.DateOnly)
	}
	s := c.gcpPricing.Name + ", imported"
	if !c.gcpPricing.Generated.IsZero() {
		s += ", generated " + c.gcpPricing.Generated.Format(time.DateOnly)
	}
	return s
}
