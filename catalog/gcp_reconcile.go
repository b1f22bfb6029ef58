package catalog

import (
	"bytes"
	"fmt"
	"math"
	"strings"

	"github.com/gpucost/gpucost"
)

// gcpPricingFile is the bundled GCP pricing YAML, the second source of GCP prices.
const gcpPricingFile = "data/gcp_pricing_gpu.yml"

// gcpPricingOrigin says where the bundled pricing YAML comes from.
const gcpPricingOrigin = "Cyclenerd/google-cloud-pricing-cost-calculator:pricing.yml generated 2026-07-02 (GPU machine types)"

const gcpPricingAsOfNote = "pricing.yml's date is its about.generated field."

// Thresholds of the GCP price check. SkyPilot's GCP file prices a GPU machine type as host +
// GPU rows (gcp.go); the pricing YAML prices it as a whole, as Google's price list does. Where
// the two differ by more than replaceAbove the bundled offer takes the YAML's price and names
// it as its Source; where they differ by more than reportAbove the difference is an issue.
const (
	replaceAbove = 0.01
	reportAbove  = 0.05
)

// reconcileGCP checks the GCP offers of im, read from SkyPilot's file (origin), against the
// bundled pricing YAML: it reports prices that disagree by more than reportAbove, takes the
// YAML's on-demand and spot prices where they disagree by more than replaceAbove, and keeps the
// YAML for committed-use prices (Committed). It returns the YAML's Source, whose Offers are
// the offers that took its prices.
func (c *Catalog) reconcileGCP(im *Import, origin string) (Source, error) {
	body, err := bundledFS.ReadFile(gcpPricingFile)
	if err != nil {
		return Source{}, gpucost.Errorf(gpucost.EInternal, "read bundled catalog %s: %w", gcpPricingFile, err)
	}
	y, err := ParseGCPPricingYAML(bytes.NewReader(body), gcpPricingFile)
	if err != nil {
		return Source{}, gpucost.Errorf(gpucost.EInternal, "read bundled catalog: %w", err)
	}
	c.gcpPricing = y
	taken := 0
	for i := range im.Offers {
		if reconcileOffer(im, i, y, origin) {
			taken++
		}
	}
	c.issues = append(c.issues, y.Issues...)
	return Source{Provider: "gcp", File: gcpPricingFile, Origin: gcpPricingOrigin, AsOf: y.Generated,
		AsOfNote: gcpPricingAsOfNote, Offers: taken, Issues: len(y.Issues), Skipped: y.SkippedRows()}, nil
}

// reconcileOffer checks offer i of im against the YAML and reports whether it took the YAML's
// prices.
func reconcileOffer(im *Import, i int, y *GCPPricing, origin string) bool {
	o := &im.Offers[i]
	if strings.HasPrefix(o.InstanceType, "n1+") {
		return false // N1 + GPU offers price the GPUs alone; the YAML prices whole machines
	}
	p, ok := y.Price(o.InstanceType, o.Region)
	if !ok {
		return false
	}
	line := 0
	if i < len(im.Lines) {
		line = im.Lines[i]
	}
	report := func(field string, sky, yml gpucost.Money, what string) bool {
		d := relDiff(sky, yml)
		if d > reportAbove {
			im.Issues = append(im.Issues, gpucost.CatalogIssue{Source: im.Name, Line: line, Field: field, Value: sky.Decimal(),
				Reason: fmt.Sprintf("%s in %s: %s %s/h here, %s/h in %s:%d (%+.0f%%): the catalog uses %s, which prices the machine type as a whole",
					o.InstanceType, Place(*o), what, sky.Decimal(), yml.Decimal(), y.Name, p.Line, 100*d*sign(sky, yml), gcpPricingFile)})
		}
		return d > replaceAbove
	}
	odOff := o.HasOnDemand && report("Price", o.OnDemand, p.OnDemand, "on-demand")
	spotOff := o.HasSpot && p.HasSpot && report("SpotPrice", o.SpotPrice, p.Spot, "spot")
	if !odOff && !spotOff && o.HasOnDemand && (o.HasSpot || !p.HasSpot) {
		return false
	}
	o.OnDemand, o.HasOnDemand, o.AsOf = p.OnDemand, true, y.Generated
	if p.HasSpot {
		o.SpotPrice, o.HasSpot = p.Spot, true
		o.Source = gcpPricingOrigin
	} else {
		o.Source = gcpPricingOrigin + " (on-demand); " + origin + " (spot)"
	}
	return true
}

// relDiff returns |a − b| ÷ b.
func relDiff(a, b gpucost.Money) float64 {
	if b.Nanos == 0 {
		return math.Inf(1)
	}
	return math.Abs(float64(a.Nanos-b.Nanos)) / float64(b.Nanos)
}

func sign(a, b gpucost.Money) float64 {
	if a.Less(b) {
		return -1
	}
	return 1
}
