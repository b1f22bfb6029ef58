package catalog

import (
	"strings"
	"sync"

	"github.com/gpucost/gpucost"
)

// LineGPU is what a bill line says about GPUs: the model, how many the billed resource has, and
// how the line was recognised.
type LineGPU struct {
	Model        string  // canonical GPUModel.Name
	GPUs         float64 // GPUs per instance; for a GPU SKU billed apart from its VM (GCP), 0
	InstanceType string  // the instance type recognised, as the line wrote it; empty for a GPU SKU
	By           string  // "instance type p4d.24xlarge", "SageMaker ml.g5.xlarge", "GPU SKU …", "Azure NC24ads_A100_v4"
}

// azureSizes are the Azure N-series VM sizes with data-center GPUs, from the Azure virtual
// machine size pages (learn.microsoft.com/azure/virtual-machines/sizes, "GPU accelerated"
// family): size without the Standard_ prefix, lower case → model and GPUs. NVadsA10 v5 sizes
// hold a fraction of an A10.
var azureSizes = map[string]LineGPU{
	"nc6s_v2": {Model: "P100", GPUs: 1}, "nc12s_v2": {Model: "P100", GPUs: 2}, "nc24s_v2": {Model: "P100", GPUs: 4},
	"nc24rs_v2": {Model: "P100", GPUs: 4},
	"nc6s_v3":   {Model: "V100-16GB", GPUs: 1}, "nc12s_v3": {Model: "V100-16GB", GPUs: 2},
	"nc24s_v3": {Model: "V100-16GB", GPUs: 4}, "nc24rs_v3": {Model: "V100-16GB", GPUs: 4},
	"nd40rs_v2":   {Model: "V100-32GB", GPUs: 8},
	"nc4as_t4_v3": {Model: "T4", GPUs: 1}, "nc8as_t4_v3": {Model: "T4", GPUs: 1},
	"nc16as_t4_v3": {Model: "T4", GPUs: 1}, "nc64as_t4_v3": {Model: "T4", GPUs: 4},
	"nv6ads_a10_v5": {Model: "A10", GPUs: 1.0 / 6}, "nv12ads_a10_v5": {Model: "A10", GPUs: 1.0 / 3},
	"nv18ads_a10_v5": {Model: "A10", GPUs: 0.5}, "nv36ads_a10_v5": {Model: "A10", GPUs: 1},
	"nv36adms_a10_v5": {Model: "A10", GPUs: 1}, "nv72ads_a10_v5": {Model: "A10", GPUs: 2},
	"nc24ads_a100_v4": {Model: "A100-80GB", GPUs: 1}, "nc48ads_a100_v4": {Model: "A100-80GB", GPUs: 2},
	"nc96ads_a100_v4": {Model: "A100-80GB", GPUs: 4},
	"nd96asr_v4":      {Model: "A100-40GB", GPUs: 8}, "nd96amsr_a100_v4": {Model: "A100-80GB", GPUs: 8},
	"nc40ads_h100_v5": {Model: "H100-NVL", GPUs: 1}, "nc80adis_h100_v5": {Model: "H100-NVL", GPUs: 2},
	"nd96isr_h100_v5": {Model: "H100-SXM", GPUs: 8},
	"nd96isr_h200_v5": {Model: "H200", GPUs: 8},
}

// gpuIndex maps instance types, lower case, to their GPUs, built from the catalog's offers once.
type gpuIndex struct {
	once  sync.Once
	types map[string]LineGPU

	mu    sync.Mutex
	lines map[[2]string]lineResult // (instance type, description) → result
}

type lineResult struct {
	gpu LineGPU
	ok  bool
}

// LineGPU says whether a bill line pays for GPUs and which: an accelerator instance type of any
// provider the catalog knows (AWS p/g families, GCP a2/a3/g2, Lambda, Nebius), a SageMaker
// ml.p*/ml.g* instance, an Azure N-series VM size, or a GCP GPU SKU ("Nvidia Tesla A100 GPU
// running in Americas", spot and commitment SKUs too). The instance type is taken from the
// line's InstanceType, else from a word of its ChargeDescription or SkuPriceID.
func (c *Catalog) LineGPU(l *gpucost.CostLine) (LineGPU, bool) {
	c.gpus.once.Do(func() { c.gpus.types = c.instanceGPUs() })
	key := [2]string{l.InstanceType, l.ChargeDescription}
	c.gpus.mu.Lock()
	defer c.gpus.mu.Unlock()
	if r, ok := c.gpus.lines[key]; ok {
		return r.gpu, r.ok
	}
	gpu, ok := c.lineGPU(l)
	if c.gpus.lines == nil || len(c.gpus.lines) > 1<<16 {
		c.gpus.lines = map[[2]string]lineResult{}
	}
	c.gpus.lines[key] = lineResult{gpu, ok}
	return gpu, ok
}

func (c *Catalog) lineGPU(l *gpucost.CostLine) (LineGPU, bool) {
	if g, ok := c.instanceGPU(l.InstanceType); ok {
		return g, true
	}
	if g, ok := skuGPU(l.ChargeDescription); ok {
		return g, true
	}
	for _, text := range []string{l.ChargeDescription, l.SkuPriceID} {
		for word := range strings.FieldsSeq(text) {
			if g, ok := c.instanceGPU(strings.Trim(word, ",;()")); ok {
				return g, true
			}
		}
	}
	return LineGPU{}, false
}

func (c *Catalog) instanceGPU(name string) (LineGPU, bool) {
	if name == "" {
		return LineGPU{}, false
	}
	it := strings.ToLower(name)
	if g, ok := c.gpus.types[it]; ok {
		g.By, g.InstanceType = "instance type "+name, name
		return g, true
	}
	if rest, ok := strings.CutPrefix(it, "ml."); ok {
		if g, ok := c.gpus.types[rest]; ok {
			g.By, g.InstanceType = "SageMaker "+name, name
			return g, true
		}
	}
	size := strings.TrimPrefix(it, "standard_")
	if g, ok := azureSizes[size]; ok {
		g.By, g.InstanceType = "Azure "+name, name
		return g, true
	}
	return LineGPU{}, false
}

func (c *Catalog) instanceGPUs() map[string]LineGPU {
	out := map[string]LineGPU{}
	for _, o := range c.offers {
		if o.GPUModel != "" && o.GPUCount > 0 && o.InstanceType != "" {
			out[strings.ToLower(o.InstanceType)] = LineGPU{Model: o.GPUModel, GPUs: o.GPUCount}
		}
	}
	return out
}

// skuGPU reads a GPU SKU description as GCP writes them: "Nvidia Tesla A100 GPU running in
// Americas", "Spot Preemptible Nvidia L4 GPU running in EMEA", "Commitment v1: Nvidia H100 80GB
// GPU in Americas for 1 Year". The words between "Nvidia" and "GPU" name the model; trailing
// words the catalog does not know ("Plus") are dropped.
func skuGPU(desc string) (LineGPU, bool) {
	lower := strings.ToLower(desc)
	i := strings.Index(lower, "nvidia ")
	if i < 0 {
		return LineGPU{}, false
	}
	j := strings.Index(lower[i:], " gpu")
	if j < 0 {
		return LineGPU{}, false
	}
	words := strings.Fields(desc[i+len("nvidia ") : i+j])
	for n := len(words); n > 0; n-- {
		if model, ok := Normalize(strings.Join(words[:n], " ")); ok {
			return LineGPU{Model: model, By: "GPU SKU " + desc}, true
		}
	}
	return LineGPU{}, false
}
