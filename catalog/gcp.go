package catalog

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gpucost/gpucost"
)

// SkyPilot's GCP catalog prices GPU machine types in two parts: the machine type's row has the
// host alone (Price, SpotPrice, vCPUs, MemoryGiB; no accelerator), and rows with an empty
// InstanceType price AcceleratorCount GPUs of AcceleratorName in one zone. gcpJoin adds the two:
// an a2-highgpu-8g in us-central1-a costs its host plus the "A100, 8" row of us-central1-a.
//
// GPU rows of a model no machine family uses (T4, V100, P100, P4) are GPUs attached to N1
// machines: they become offers of their own named "n1+T4:4", priced for the GPUs alone, with the
// N1 host (vCPUs, memory) billed on top; their vCPUs and MemoryGiB are zero.

// gcpFamily is a GCP machine family whose GPUs are priced by separate rows.
type gcpFamily struct {
	prefix string // machine type prefix
	accel  string // SkyPilot AcceleratorName of the rows that price its GPUs
}

// gcpFamilies lists the GPU machine families and their GPUs, as GCP's "GPU machine types"
// page gives them and the rows of the file confirm (each machine type row has a GPU row of
// that name and count in the same zone): A2 Standard = A100 40 GB, A2 Ultra = A100 80 GB,
// A3 High/Edge = H100 80 GB SXM, A3 Mega = H100 80 GB SXM ("H100-MEGA" rows), A3 Ultra = H200,
// A4 = B200, G2 = L4.
var gcpFamilies = []gcpFamily{
	{"a2-highgpu-", "A100"}, {"a2-megagpu-", "A100"}, {"a2-ultragpu-", "A100-80GB"},
	{"a3-highgpu-", "H100"}, {"a3-edgegpu-", "H100"}, {"a3-megagpu-", "H100-MEGA"},
	{"a3-ultragpu-", "H200"}, {"a4-highgpu-", "B200"}, {"g2-standard-", "L4"},
}

// g2GPUs is the number of L4 GPUs of each g2-standard-N machine type.
var g2GPUs = map[string]float64{"4": 1, "8": 1, "12": 1, "16": 1, "32": 1, "24": 2, "48": 4, "96": 8}

func gcpFamilyOf(instance string) (gcpFamily, bool) {
	for _, f := range gcpFamilies {
		if strings.HasPrefix(instance, f.prefix) {
			return f, true
		}
	}
	return gcpFamily{}, false
}

// gcpGPUCount returns the number of GPUs of a machine type: "a3-highgpu-4g" has 4,
// "a3-edgegpu-8g-nolssd" 8, and a g2 type the number in g2GPUs.
func gcpGPUCount(f gcpFamily, instance string) (float64, bool) {
	rest := strings.TrimPrefix(instance, f.prefix)
	if f.prefix == "g2-standard-" {
		n, ok := g2GPUs[rest]
		return n, ok
	}
	tok, _, _ := strings.Cut(rest, "-")
	digits, ok := strings.CutSuffix(tok, "g")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n <= 0 {
		return 0, false
	}
	return float64(n), true
}

type gcpKey struct {
	accel        string
	count        float64
	region, zone string
}

// gcpPrice is one GPU price row.
type gcpPrice struct {
	line          int
	model         string
	memGB         float64
	price, spot   gpucost.Money
	hasP, hasSpot bool
}

// gcpMachine is one machine type row, priced for its host.
type gcpMachine struct {
	r           row
	fam         gcpFamily
	count       float64
	vcpus, mem  float64
	price, spot gpucost.Money
	hasP, hasS  bool
}

type gcpJoin struct {
	gpus     map[gcpKey]*gcpPrice
	order    []gcpKey // GPU rows in file order
	machines []gcpMachine
}

func newGCPJoin() *gcpJoin { return &gcpJoin{gpus: map[gcpKey]*gcpPrice{}} }

func (p *skyReader) gcpMachine(r row, f gcpFamily) {
	if r.region == "" {
		p.issue(r.line, "Region", "", "empty: row left out")
		return
	}
	n, ok := gcpGPUCount(f, r.instance)
	if !ok {
		p.issue(r.line, "InstanceType", r.instance, "cannot tell how many GPUs this machine type has: row left out")
		return
	}
	m := gcpMachine{r: r, fam: f, count: n}
	m.vcpus, _ = p.number(r, p.cols.vcpus, "vCPUs", false)
	m.mem, _ = p.number(r, p.cols.mem, "MemoryGiB", false)
	m.price, m.hasP = p.price(r, p.cols.price, "Price", "on-demand")
	m.spot, m.hasS = p.price(r, p.cols.spot, "SpotPrice", "spot")
	p.spotBelow(r, r.instance+" host", m.price, m.spot, m.hasP && m.hasS)
	m.r.rec = nil // the csv reader reuses it
	p.gcp.machines = append(p.gcp.machines, m)
}

func (p *skyReader) gcpGPU(r row, model string) {
	count, ok := p.number(r, p.cols.count, "AcceleratorCount", true)
	if !ok || count <= 0 {
		if ok {
			p.issue(r.line, "AcceleratorCount", p.field(r.rec, p.cols.count), fmt.Sprintf("a GPU price row needs a positive count (column %d): row left out", p.cols.count+1))
		}
		return
	}
	g := &gcpPrice{line: r.line, model: model, memGB: p.gpuMemoryGB(r, model, count)}
	g.price, g.hasP = p.price(r, p.cols.price, "Price", "on-demand")
	g.spot, g.hasSpot = p.price(r, p.cols.spot, "SpotPrice", "spot")
	p.spotBelow(r, fmt.Sprintf("%g × %s GPU row", count, r.accel), g.price, g.spot, g.hasP && g.hasSpot)
	k := gcpKey{accel: r.accel, count: count, region: r.region, zone: r.zone}
	if old, dup := p.gcp.gpus[k]; dup {
		p.issue(r.line, "AcceleratorName", r.accel, fmt.Sprintf("same GPU, count and zone as line %d: the later row is used", old.line))
	} else {
		p.gcp.order = append(p.gcp.order, k)
	}
	p.gcp.gpus[k] = g
}

// gcpFinish prices each machine type as host + GPUs and makes the N1 GPU offers.
func (p *skyReader) gcpFinish() {
	joined := map[string]bool{}
	for _, f := range gcpFamilies {
		joined[f.accel] = true
	}
	for _, m := range p.gcp.machines {
		k := gcpKey{accel: m.fam.accel, count: m.count, region: m.r.region, zone: m.r.zone}
		g, ok := p.gcp.gpus[k]
		if !ok {
			p.issue(m.r.line, "InstanceType", m.r.instance, fmt.Sprintf(
				"no GPU price row (AcceleratorName %s, AcceleratorCount %g) for zone %s: machine type left out", k.accel, k.count, k.zone))
			continue
		}
		o := gpucost.Offer{Provider: p.im.Provider, Region: m.r.region, Zone: m.r.zone, InstanceType: m.r.instance,
			GPUModel: refineModel(g.model, m.r.instance), GPUCount: m.count, GPUMemoryGB: g.memGB,
			VCPUs: m.vcpus, MemoryGiB: m.mem, Source: p.im.Name}
		o.OnDemand, o.HasOnDemand = p.hostPlusGPUs(m, m.price, g.price, m.hasP && g.hasP)
		o.SpotPrice, o.HasSpot = p.hostPlusGPUs(m, m.spot, g.spot, m.hasS && g.hasSpot)
		p.add(o, m.r.line)
	}
	for _, k := range p.gcp.order {
		if joined[k.accel] {
			p.im.Skipped["GCP GPU price row of a machine family (joined into its machine types)"]++
			continue
		}
		g := p.gcp.gpus[k]
		o := gpucost.Offer{Provider: p.im.Provider, Region: k.region, Zone: k.zone,
			InstanceType: fmt.Sprintf("n1+%s:%g", k.accel, k.count),
			GPUModel:     g.model, GPUCount: k.count, GPUMemoryGB: g.memGB, Source: p.im.Name,
			OnDemand: g.price, HasOnDemand: g.hasP, SpotPrice: g.spot, HasSpot: g.hasSpot}
		p.add(o, g.line)
	}
}

// hostPlusGPUs adds a machine type's host and GPU prices, refusing a sum too large for Money.
func (p *skyReader) hostPlusGPUs(m gcpMachine, host, gpus gpucost.Money, ok bool) (gpucost.Money, bool) {
	if !ok {
		return gpucost.Money{}, false
	}
	if host.Nanos > math.MaxInt64-gpus.Nanos {
		p.issue(m.r.line, "Price", m.r.instance, "host + GPU price is out of range: no price")
		return gpucost.Money{}, false
	}
	return host.Add(gpus), true
}
