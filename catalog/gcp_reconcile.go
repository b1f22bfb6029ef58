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

// gcpTwins are machine types the pricing YAML lacks that are the same machine as one it has,
// with what the offer's Source says about it. a3-edgegpu-8g has a3-highgpu-8g's 208 vCPUs,
// 1,872 GiB, 8 H100 80 GB and 6 TB of local SSD (data/gcp_vms_gpu.csv, data/gcp_pricing_gpu.yml)
// and is billed with the same A3 core, RAM and GPU SKUs (pricing/gcpprices/doc.go). The -nolssd
// variant lacks the SSD, which SkyPilot's file does not price apart either (its rows for the
// three machine types are equal): a3-highgpu-8g's price is an upper bound for it, by the SSD.
var gcpTwins = map[string]struct{ twin, note string }{
	"a3-edgegpu-8g":        {"a3-highgpu-8g", " (priced as a3-highgpu-8g, the same machine)"},
	"a3-edgegpu-8g-nolssd": {"a3-highgpu-8g", " (priced as a3-highgpu-8g, the same machine with 6 TB local SSD: an upper bound)"},
}

// reconcileGCP checks the GCP offers of im, read from SkyPilot's file (origin), against the
// bundled pricing YAML: it reports prices that disagree by more than reportAbove, takes the
// YAML's on-demand and spot prices where they disagree by more than replaceAbove, and keeps the
// YAML for committed-use prices (Committed). It returns the YAML's Source, whose Offers are
// the offers that took its prices.
func (c *Catalog) reconcileGCP(im *Import, origin string) (Source, error) {
	body, err := readBundled(gcpPricingFile)
	if err != nil {
		return Source{}, gpucost.Errorf(gpucost.EInternal, "read bundled catalog %s: %w", gcpPricingFile, err)
	}
	y, err := ParseGCPPricingYAML(bytes.NewReader(body), gcpPricingFile)
	if err != nil {
		return Source{}, gpucost.Errorf(gpucost.EInternal, "read bundled catalog: %w", err)
	}
	c.gcpPricing = y
	taken := 0
	unchecked := map[string]int{} // machine type → index of its first offer the YAML cannot check
	var order []string
	for i := range im.Offers {
		if reconcileOffer(im, i, y, origin) {
			taken++
		}
		if o := im.Offers[i]; !checkable(o, y) {
			if _, seen := unchecked[o.InstanceType]; !seen {
				order = append(order, o.InstanceType)
				unchecked[o.InstanceType] = i
			}
		}
	}
	for _, it := range order {
		i := unchecked[it]
		im.Issues = append(im.Issues, gpucost.CatalogIssue{Source: im.Name, Line: lineOf(im, i), Field: "InstanceType", Value: it,
			Reason: fmt.Sprintf("%s has no price of this machine type: its offers keep this file's host + GPU price, which no second source checks", gcpPricingFile)})
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
	source := gcpPricingOrigin
	if t, has := gcpTwins[o.InstanceType]; !ok && has {
		p, ok = y.Price(t.twin, o.Region)
		source += t.note
	}
	if !ok {
		return false
	}
	line := lineOf(im, i)
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
		o.Source = source
	} else {
		o.Source = source + " (on-demand); " + origin + " (spot)"
	}
	return true
}

// checkable reports whether the YAML prices o's machine type, or its twin, anywhere: N1 + GPU
// offers price GPUs alone and are not machine types.
func checkable(o gpucost.Offer, y *GCPPricing) bool {
	if strings.HasPrefix(o.InstanceType, "n1+") {
		return true
	}
	name := o.InstanceType
	if t, ok := gcpTwins[name]; ok {
		name = t.twin
	}
	return y.has(name)
}

// lineOf returns the line offer i of im was read from, 0 if unknown.
func lineOf(im *Import, i int) int {
	if i < len(im.Lines) {
		return im.Lines[i]
	}
	return 0
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
