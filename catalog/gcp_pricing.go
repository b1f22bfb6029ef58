package catalog

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/gpucost/gpucost"
)

// The GCP pricing YAML is the pricing.yml of Cyclenerd/google-cloud-pricing-cost-calculator: for
// each machine type, under compute.instance.<type>.cost.<region>, the on-demand price of the whole
// machine ("hour", vCPUs + memory + GPUs + bundled local SSD, as Google prices GPU machine types),
// the spot price ("hour_spot") and the monthly price under a 1- and 3-year committed-use discount
// ("month_1y", "month_3y"), at 730 hours a month ("month" = "hour" × 730). The machine type's GPUs
// are a key of their own: "a100: 8", "h100-80gb: 8", "l4: 1". about.generated is when it was made.

// HoursPerMonth is the month the GCP pricing YAML prices commitments in: "month" is "hour" × 730.
const HoursPerMonth = 730

// gcpYAMLGPUs maps the YAML's GPU keys to the accelerator names the SkyPilot file uses, so that
// both sources give a machine type the same canonical model.
var gcpYAMLGPUs = map[string]string{
	"a100": "A100", "a100-80gb": "A100-80GB", "h100-80gb": "H100", "h100-80gb-mega": "H100-MEGA",
	"h200-141gb": "H200", "b200": "B200", "l4": "L4", "t4": "T4", "v100": "V100", "p100": "P100", "p4": "P4",
	"rtx6000": "RTX PRO 6000",
}

// GCPPrice is one machine type's prices in one region, per hour, as the pricing YAML gives them.
type GCPPrice struct {
	InstanceType string
	Region       string
	Line         int // the line of the region's entry
	GPUModel     string
	GPUCount     float64
	VCPUs        float64
	MemoryGiB    float64

	OnDemand, Spot        gpucost.Money
	Commit1y, Commit3y    gpucost.Money // month_1y and month_3y ÷ HoursPerMonth
	HasSpot, Has1y, Has3y bool
}

// GCPPricing is what one pricing YAML holds: its prices, its offers (on-demand and spot) and
// the wrong or missing facts found in it.
type GCPPricing struct {
	Import
	Generated time.Time // about.generated; zero when the file does not say
	Prices    []GCPPrice
	index     map[[2]string]int // instance type, region → index in Prices
	types     map[string]bool   // instance types with a price
}

// Price returns the prices of instance in region, if the file has them.
func (g *GCPPricing) Price(instance, region string) (GCPPrice, bool) {
	i, ok := g.index[[2]string{instance, region}]
	if !ok {
		return GCPPrice{}, false
	}
	return g.Prices[i], true
}

// has reports whether the file prices instance in any region.
func (g *GCPPricing) has(instance string) bool {
	return g.types[instance]
}

// ParseGCPPricingYAML reads a GCP pricing YAML (see HoursPerMonth) of GPU machine types. Machine
// types without a GPU key are left out by design. A price that is missing, not a decimal or not
// positive is an issue naming file, line and field, and the region's entry is left out (a bad
// spot or committed price costs only that price). Spot ≥ on-demand is reported, and the spot
// price kept. An error is returned only when the file is not YAML or has no compute.instance map.
func ParseGCPPricingYAML(r io.Reader, name string) (*GCPPricing, error) {
	var doc yaml.Node
	if err := yaml.NewDecoder(r).Decode(&doc); err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "read GCP pricing YAML %s: %w; want Cyclenerd's pricing.yml", name, err)
	}
	g := &GCPPricing{Import: Import{Name: name, Provider: "gcp", Skipped: map[string]int{}},
		index: map[[2]string]int{}, types: map[string]bool{}}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if gen := lookup(lookup(root, "about"), "generated"); gen != nil {
		if t, err := time.Parse("Mon Jan _2 15:04:05 2006", gen.Value); err == nil {
			g.Generated = t.UTC()
		} else {
			g.issue(gen.Line, "about.generated", gen.Value, "not a date like \"Thu Jul  2 06:56:58 2026\": the file's date is unknown")
		}
	}
	instances := lookup(lookup(root, "compute"), "instance")
	if instances == nil || instances.Kind != yaml.MappingNode {
		return nil, gpucost.Errorf(gpucost.EInvalid, "read GCP pricing YAML %s: no compute.instance map of machine types; want Cyclenerd's pricing.yml", name)
	}
	for i := 0; i+1 < len(instances.Content); i += 2 {
		g.machine(instances.Content[i].Value, instances.Content[i+1])
	}
	return g, nil
}

func (g *GCPPricing) issue(line int, field, value, reason string) {
	g.Issues = append(g.Issues, gpucost.CatalogIssue{Source: g.Name, Line: line, Field: field, Value: value, Reason: reason})
}

// lookup returns the value of key in a mapping node, or nil.
func lookup(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// machine reads one machine type's entry.
func (g *GCPPricing) machine(instance string, n *yaml.Node) {
	g.Rows++
	base := GCPPrice{InstanceType: instance}
	for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		accel, isGPU := gcpYAMLGPUs[k]
		switch {
		case k == "cpu":
			base.VCPUs = g.number(v, instance+".cpu")
		case k == "ram":
			base.MemoryGiB = g.number(v, instance+".ram")
		case isGPU:
			base.GPUCount = g.number(v, instance+"."+k)
			base.GPUModel = accel
			if m, ok := Normalize(accel); ok {
				base.GPUModel = refineModel(m, instance)
			}
		}
	}
	if base.GPUModel == "" || base.GPUCount <= 0 {
		g.Skipped["machine type without a GPU"]++
		return
	}
	cost := lookup(n, "cost")
	if cost == nil || cost.Kind != yaml.MappingNode {
		g.issue(n.Line, instance+".cost", "", "no cost map of regions: machine type left out")
		return
	}
	for i := 0; i+1 < len(cost.Content); i += 2 {
		p := base
		p.Region, p.Line = cost.Content[i].Value, cost.Content[i].Line
		if g.region(&p, cost.Content[i+1]) {
			g.index[[2]string{instance, p.Region}] = len(g.Prices)
			g.types[instance] = true
			g.Prices = append(g.Prices, p)
			g.Offers = append(g.Offers, p.offer(g.Name))
		}
	}
}

// region reads the prices of one region's entry; false when it has no on-demand price.
func (g *GCPPricing) region(p *GCPPrice, n *yaml.Node) bool {
	field := p.InstanceType + ".cost." + p.Region + "."
	price := func(key string, required bool) (gpucost.Money, bool) {
		v := lookup(n, key)
		if v == nil {
			if required {
				g.issue(p.Line, field+key, "", "missing: no price for this machine type and region")
			}
			return gpucost.Money{}, false
		}
		m, err := gpucost.Money{}, errNotDecimal
		if isDecimal(v.Value) {
			m, err = gpucost.ParseMoney(v.Value, "USD")
		}
		if err != nil || m.Nanos <= 0 {
			g.issue(v.Line, field+key, v.Value, "not a positive decimal amount: price left out; fix the file or take a fresh pricing.yml")
			return gpucost.Money{}, false
		}
		return m, true
	}
	var ok bool
	if p.OnDemand, ok = price("hour", true); !ok {
		return false
	}
	p.Spot, p.HasSpot = price("hour_spot", false)
	var m gpucost.Money
	if m, p.Has1y = price("month_1y", false); p.Has1y {
		p.Commit1y = m.DivInt(HoursPerMonth)
	}
	if m, p.Has3y = price("month_3y", false); p.Has3y {
		p.Commit3y = m.DivInt(HoursPerMonth)
	}
	if p.HasSpot && !p.Spot.Less(p.OnDemand) {
		g.issue(lookup(n, "hour_spot").Line, field+"hour_spot", p.Spot.Decimal(),
			fmt.Sprintf("spot price is not below the on-demand price %s", p.OnDemand.Decimal()))
	}
	return true
}

// number parses a count (GPUs, vCPUs, GiB); a bad one is an issue and zero.
func (g *GCPPricing) number(v *yaml.Node, field string) float64 {
	var f float64
	if err := v.Decode(&f); err != nil || f < 0 {
		g.issue(v.Line, field, v.Value, "not a non-negative number: taken as unknown")
		return 0
	}
	return f
}

// offer returns the region's on-demand and spot offer.
func (p GCPPrice) offer(source string) gpucost.Offer {
	o := gpucost.Offer{Provider: "gcp", Region: p.Region, InstanceType: p.InstanceType, GPUModel: p.GPUModel,
		GPUCount: p.GPUCount, VCPUs: p.VCPUs, MemoryGiB: p.MemoryGiB, Source: source,
		OnDemand: p.OnDemand, HasOnDemand: true, SpotPrice: p.Spot, HasSpot: p.HasSpot}
	if s, ok := lookupSpec(p.GPUModel); ok {
		o.GPUMemoryGB = s.MemoryGB
	}
	return o
}

// Committed returns the hourly price of instance in region under a GCP committed-use discount of
// term ("1y" or "3y"), with its on-demand price, from the bundled pricing YAML.
func (c *Catalog) Committed(instance, region, term string) (commit, onDemand gpucost.Money, err error) {
	if c.gcpPricing == nil {
		return commit, onDemand, gpucost.Errorf(gpucost.ENotFound, "the catalog has no GCP committed-use prices")
	}
	p, ok := c.gcpPricing.Price(instance, region)
	if !ok {
		var types []string
		for _, q := range c.gcpPricing.Prices {
			if !slices.Contains(types, q.InstanceType) {
				types = append(types, q.InstanceType)
			}
		}
		return commit, onDemand, gpucost.Errorf(gpucost.ENotFound, "no GCP committed-use price of %s in %s: the pricing file has %s",
			instance, region, strings.Join(types, ", "))
	}
	switch {
	case term == "1y" && p.Has1y:
		return p.Commit1y, p.OnDemand, nil
	case term == "3y" && p.Has3y:
		return p.Commit3y, p.OnDemand, nil
	}
	return commit, onDemand, gpucost.Errorf(gpucost.ENotFound, "no %s committed-use price of %s in %s: use --term 1y or 3y, or give --discount", term, instance, region)
}

// Import formats ReadImportsAs reads.
const (
	FormatSkyPilot      = "skypilot"
	FormatGCPPricingYML = "gcp-pricing-yml"
)

// ReadImportsAs reads files of format: SkyPilot vms.csv files (ReadImports) or GCP pricing YAML
// files (ParseGCPPricingYAML, provider gcp, prices as of the file's about.generated, else asOf).
// Every file is read before any is returned, so one bad file stops an import whole.
func ReadImportsAs(format string, paths []string, provider string, asOf time.Time) ([]*Import, error) {
	switch format {
	case FormatSkyPilot:
		return ReadImports(paths, provider, asOf)
	case FormatGCPPricingYML:
		if provider != "" && !strings.EqualFold(provider, "gcp") {
			return nil, gpucost.Errorf(gpucost.EInvalid, "--provider %q: a GCP pricing YAML holds gcp prices; leave --provider out", provider)
		}
	default:
		return nil, gpucost.Errorf(gpucost.EInvalid, "--format %q: use %s, %s or %s", format, FormatSkyPilot, FormatGCPPricingYML, FormatAWSSpotAdvisor)
	}
	var out []*Import
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			return nil, gpucost.Errorf(gpucost.EInvalid, "import %s: %w", path, err)
		}
		g, err := ParseGCPPricingYAML(f, path)
		f.Close()
		if err != nil {
			return nil, err
		}
		when := asOf
		if !g.Generated.IsZero() {
			when = g.Generated
		}
		for i := range g.Offers {
			g.Offers[i].AsOf = when
		}
		g.Import.Pricing = g
		out = append(out, &g.Import)
	}
	return out, nil
}
