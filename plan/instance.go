package plan

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gpucost/gpucost"
)

// Mode is what the instance is for: serving the model, training all of it, or training LoRA
// adapters on a frozen base.
type Mode string

// Modes of the instance planner.
const (
	Inference Mode = "inference"
	Training  Mode = "training"
	LoRA      Mode = "lora"
)

// Precision is the number format the model's weights are held in.
type Precision string

// Precisions of the instance planner.
const (
	BF16 Precision = "bf16"
	FP16 Precision = "fp16"
	INT8 Precision = "int8"
	INT4 Precision = "int4"
)

// bytesPerParam is the size of one weight (docs/architecture.md "Memory to hold a model": fp16/bf16 2,
// int8 1, int4 0.5).
var bytesPerParam = map[Precision]float64{BF16: 2, FP16: 2, INT8: 1, INT4: 0.5}

// SpecFunc returns the datasheet of a GPU model by name; catalog.Spec is one. The planner takes
// it as a function so that plan does not import catalog.
type SpecFunc func(name string) (gpucost.GPUModel, bool)

// Instance planner defaults.
const (
	DefaultBatch           = 1
	DefaultSeq             = 4096
	DefaultMFU             = 0.40 // model-FLOPs utilisation commonly reached by large dense training
	DefaultOverhead        = 0.20 // docs/architecture.md: ~10–20% over weights and caches; the upper end
	DefaultAdapterFraction = 0.01 // LoRA adapters of rank ~16 on every linear layer: ~0.5–1% of params
	bytesPerGB             = 1e9  // GB as datasheets and offers state GPU memory
	ruleOfThumbBytes       = 4    // the flawed "4 bytes × params" training rule (reference case R3)
)

// InstanceInput is a request to the instance planner: the model, what it is for, and where it
// may run. Zero values take the defaults above.
type InstanceInput struct {
	Params    float64   // parameter count, e.g. 7e9
	Precision Precision // weight precision; training needs bf16 or fp16
	Mode      Mode
	Batch     int     // sequences per step (training) or concurrent sequences (inference); default 1
	Seq       int     // tokens per sequence; default 4096
	Tokens    float64 // training or fine-tuning tokens; 0 leaves out time and total cost
	MFU       float64 // model-FLOPs utilisation in (0, 1]; default 0.40
	Overhead  float64 // fraction added for CUDA context, allocator and fragmentation; default 0.20

	// Architecture, estimated from Params when zero (see estimateArch). Set KVHeads for
	// grouped-query models (Llama-2-70B and Llama-3 have 8), whose KV cache is smaller.
	Layers, Hidden, KVHeads int

	AdapterFraction     float64 // LoRA adapter parameters as a fraction of Params; default 0.01
	StoreAllActivations bool    // training without activation checkpointing

	Provider string // only this provider's offers; empty for all
	Spot     bool   // rank by spot price and keep only offers with one
	Limit    int    // keep the first Limit options; 0 keeps all
}

// Arch is the transformer shape the memory estimate uses.
type Arch struct {
	Layers    int  `json:"layers"`
	Hidden    int  `json:"hidden"`
	KVHeads   int  `json:"kv_heads"`
	HeadDim   int  `json:"head_dim"`
	Estimated bool `json:"estimated"` // derived from the parameter count, not given
}

// ModelMemory is the GPU memory a request needs, in GB (10⁹ bytes), with its parts.
type ModelMemory struct {
	WeightsGB     float64  `json:"weights_gb"`
	GradientsGB   float64  `json:"gradients_gb"`
	OptimizerGB   float64  `json:"optimizer_gb"`
	ActivationsGB float64  `json:"activations_gb"`
	KVCacheGB     float64  `json:"kv_cache_gb"`
	OverheadGB    float64  `json:"overhead_gb"`
	TotalGB       float64  `json:"total_gb"`
	Formulas      []string `json:"formulas"` // how each part was computed, for people
}

// InstanceOption is one offer that holds the model.
type InstanceOption struct {
	Provider       string  `json:"provider"`
	Region         string  `json:"region"`
	Zone           string  `json:"zone,omitempty"`
	InstanceType   string  `json:"instance_type"`
	GPUModel       string  `json:"gpu_model"`
	GPUCount       int     `json:"gpu_count"`
	GPUMemoryGB    float64 `json:"gpu_memory_gb"` // per GPU
	GPUsNeeded     int     `json:"gpus_needed"`   // fewest of its GPUs that hold the model, sharded
	MemoryPerGPUGB float64 `json:"memory_per_gpu_gb"`
	TFLOPS         float64 `json:"tflops_per_gpu,omitempty"` // dense bf16/fp16 from the datasheet

	OnDemand *gpucost.Money `json:"on_demand_per_hour,omitempty"`
	Spot     *gpucost.Money `json:"spot_per_hour,omitempty"`
	Hours    float64        `json:"hours,omitempty"`      // training time on all the instance's GPUs
	Cost     *gpucost.Money `json:"total_cost,omitempty"` // Hours × the ranked price
}

// RuleOfThumb shows what the common "4 bytes × params" training rule would have picked, and
// why it is wrong (reference case R3: mixed-precision Adam needs ≈ 16 bytes × params plus
// activations, so the rule under-sizes training by 4×).
type RuleOfThumb struct {
	MemoryGB float64         `json:"memory_gb"`
	Pick     *InstanceOption `json:"pick,omitempty"` // the cheapest option by the rule
	Holds    bool            `json:"holds"`          // whether Pick really holds the model
	Warning  string          `json:"warning"`
}

// SkippedOffers counts offers left out for one reason.
type SkippedOffers struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

// InstanceResult is the instance plan: the memory needed and the offers that hold it, cheapest
// first (by total training cost when Tokens is given, else by $/h).
type InstanceResult struct {
	Params        float64              `json:"params"`
	Precision     Precision            `json:"precision"`
	Mode          Mode                 `json:"mode"`
	Batch         int                  `json:"batch"`
	Seq           int                  `json:"seq"`
	Tokens        float64              `json:"tokens,omitempty"`
	MFU           float64              `json:"mfu,omitempty"`
	Pricing       gpucost.PricingModel `json:"pricing"`
	Arch          Arch                 `json:"arch"`
	Memory        ModelMemory          `json:"memory"`
	TrainingFLOPs float64              `json:"training_flops,omitempty"`
	Options       []InstanceOption     `json:"options"`
	RuleOfThumb   *RuleOfThumb         `json:"rule_of_thumb,omitempty"`
	Skipped       []SkippedOffers      `json:"skipped,omitempty"`
	Notes         []string             `json:"notes,omitempty"`
}

// Instance sizes the GPU memory a model needs for in.Mode and lists the offers that hold
// it, sharding over several GPUs of one instance when one GPU is too small. For training it
// estimates time and cost from 6·params·tokens FLOPs at in.MFU. It returns an EInvalid error
// naming the largest option and the memory needed when nothing holds the model.
func Instance(in InstanceInput, offers []gpucost.Offer, spec SpecFunc) (InstanceResult, error) {
	in, err := withDefaults(in)
	if err != nil {
		return InstanceResult{}, err
	}
	r := InstanceResult{Params: in.Params, Precision: in.Precision, Mode: in.Mode, Batch: in.Batch,
		Seq: in.Seq, Tokens: in.Tokens, Pricing: gpucost.OnDemand}
	if in.Spot {
		r.Pricing = gpucost.Spot
	}
	r.Arch = archOf(in)
	r.Memory = memoryNeeded(in, r.Arch)
	if in.Tokens > 0 {
		r.MFU = in.MFU
		r.TrainingFLOPs = flopsPerToken(in.Mode) * in.Params * in.Tokens
	}
	all, skipped := candidates(in, r, offers, spec)
	r.Skipped = skipped
	if len(all) == 0 {
		return r, noOffers(in, skipped)
	}
	r.Options = fitting(all, r.Memory.TotalGB)
	if len(r.Options) == 0 {
		return r, fitsNowhere(in, r.Memory.TotalGB, all)
	}
	if in.Mode == Training {
		r.RuleOfThumb = ruleOfThumb(in, r.Memory.TotalGB, all)
	}
	r.Notes = instanceNotes(in, r)
	if in.Limit > 0 && len(r.Options) > in.Limit {
		r.Notes = append(r.Notes, fmt.Sprintf("Showing %d of %d options that hold it; --limit 0 for all.", in.Limit, len(r.Options)))
		r.Options = r.Options[:in.Limit]
	}
	return r, nil
}

// withDefaults validates in and fills its zero fields.
func withDefaults(in InstanceInput) (InstanceInput, error) {
	bad := func(format string, args ...any) (InstanceInput, error) {
		return in, gpucost.Errorf(gpucost.EInvalid, "plan instance: "+format, args...)
	}
	switch {
	case !(in.Params >= 1e6 && in.Params <= 1e14):
		return bad("--params %g is not a model size; give the parameter count, e.g. 7e9", in.Params)
	case bytesPerParam[in.Precision] == 0:
		return bad("--precision %q is not one of bf16, fp16, int8, int4", in.Precision)
	case in.Mode != Inference && in.Mode != Training && in.Mode != LoRA:
		return bad("--mode %q is not one of inference, training, lora", in.Mode)
	case in.Mode == Training && bytesPerParam[in.Precision] < 2:
		return bad("full training runs in bf16 or fp16, not %s; use --mode lora to fine-tune a %s base (QLoRA)", in.Precision, in.Precision)
	case in.Batch < 0 || in.Seq < 0 || in.Layers < 0 || in.Hidden < 0 || in.KVHeads < 0:
		return bad("--batch, --seq and the architecture must not be negative")
	case !(in.Tokens >= 0 && in.Tokens <= 1e16):
		return bad("--tokens %g must be between 0 and 1e16", in.Tokens)
	case !(in.MFU >= 0 && in.MFU <= 1):
		return bad("model-FLOPs utilisation %g must be in (0, 1], e.g. 0.4", in.MFU)
	case !(in.Overhead >= 0 && in.Overhead <= 1):
		return bad("overhead %g must be a fraction in [0, 1], e.g. 0.2", in.Overhead)
	case !(in.AdapterFraction >= 0 && in.AdapterFraction <= 1):
		return bad("adapter fraction %g must be in (0, 1], e.g. 0.01", in.AdapterFraction)
	case in.Tokens > 0 && in.Mode == Inference:
		return bad("--tokens is for --mode training or lora, not inference")
	}
	in.Batch = cmp.Or(in.Batch, DefaultBatch)
	in.Seq = cmp.Or(in.Seq, DefaultSeq)
	in.MFU = cmp.Or(in.MFU, DefaultMFU)
	in.Overhead = cmp.Or(in.Overhead, DefaultOverhead)
	in.AdapterFraction = cmp.Or(in.AdapterFraction, DefaultAdapterFraction)
	return in, nil
}

// archOf returns the given architecture, estimating what is missing from the parameter count.
// A dense decoder has params ≈ 12·L·h² (attention 4h², MLP 8h² per layer); Llama-style models
// keep L ≈ h/128 with 128-wide heads (Llama-2-7B: h 4096, L 32; 13B: 5120, 40), so
// h ≈ ∛(128·params/12), rounded to a multiple of 128. Without KVHeads the cache is sized for
// full multi-head attention (one KV head per 128 of h): an upper bound for GQA models.
func archOf(in InstanceInput) Arch {
	a := Arch{Layers: in.Layers, Hidden: in.Hidden, KVHeads: in.KVHeads}
	if a.Hidden == 0 {
		a.Estimated = true
		h := math.Cbrt(128 * in.Params / 12)
		if a.Layers > 0 {
			h = math.Sqrt(in.Params / (12 * float64(a.Layers)))
		}
		a.Hidden = max(128, int(math.Round(h/128))*128)
	}
	a.HeadDim = 128
	if a.Hidden < 128 {
		a.HeadDim = a.Hidden
	}
	if a.Layers == 0 {
		a.Estimated = true
		a.Layers = max(1, int(math.Round(in.Params/(12*float64(a.Hidden)*float64(a.Hidden)))))
	}
	if a.KVHeads == 0 {
		a.KVHeads = a.Hidden / a.HeadDim
	}
	return a
}

// flopsPerToken is the training FLOPs per parameter and token: 6 for full training (forward 2,
// backward 4; Kaplan et al. 2020, "Scaling Laws for Neural Language Models"), 4 for LoRA, whose
// backward pass computes activation gradients through the frozen base but no weight gradients.
// Recomputation for activation checkpointing is not counted, as MFU excludes it.
func flopsPerToken(m Mode) float64 {
	if m == LoRA {
		return 4
	}
	return 6
}

// memoryNeeded returns the memory breakdown for in on architecture a.
//
//   - weights: params × bytes/param (docs/architecture.md "Memory to hold a model");
//   - full training, mixed-precision Adam (Rajbhandari et al. 2020, "ZeRO", §3.1: 2Ψ + 2Ψ + 12Ψ
//     = 16Ψ): 2-byte weights, 2-byte gradients, 12 bytes of optimizer state (fp32 master copy,
//     momentum, variance);
//   - LoRA: frozen weights at the precision plus adapters (AdapterFraction × params) trained
//     like full training at 16 bytes each;
//   - activations (training, LoRA): Korthikanti et al. 2022, "Reducing Activation Recomputation
//     in Large Transformer Models", 34·s·b·h bytes per layer in 16-bit with FlashAttention (no
//     stored s² scores); with activation checkpointing, each layer keeps its 2·s·b·h input and
//     one layer is recomputed at a time;
//   - KV cache (inference): 2 (K and V) · layers · kv_heads · head_dim · seq · batch · 2 bytes;
//   - overhead: in.Overhead × the rest (docs/architecture.md: ~10–20%).
func memoryNeeded(in InstanceInput, a Arch) ModelMemory {
	var m ModelMemory
	p, b := in.Params, bytesPerParam[in.Precision]
	add := func(dst *float64, bytes float64, formula string, args ...any) {
		*dst = bytes / bytesPerGB
		m.Formulas = append(m.Formulas, fmt.Sprintf(formula, args...)+fmt.Sprintf(" = %.1f GB", *dst))
	}
	switch in.Mode {
	case Inference:
		add(&m.WeightsGB, p*b, "weights: %.3g params × %g bytes", p, b)
		kv := 2 * float64(a.Layers) * float64(a.KVHeads*a.HeadDim) * float64(in.Seq) * float64(in.Batch) * 2
		add(&m.KVCacheGB, kv, "KV cache: 2 × %d layers × %d kv_heads × %d head_dim × %d seq × %d batch × 2 bytes",
			a.Layers, a.KVHeads, a.HeadDim, in.Seq, in.Batch)
	case Training:
		add(&m.WeightsGB, 2*p, "weights: %.3g params × 2 bytes (%s)", p, in.Precision)
		add(&m.GradientsGB, 2*p, "gradients: %.3g params × 2 bytes", p)
		add(&m.OptimizerGB, 12*p, "Adam state: %.3g params × 12 bytes (fp32 master, momentum, variance)", p)
		addActivations(in, a, add, &m.ActivationsGB)
	case LoRA:
		ad := in.AdapterFraction * p
		add(&m.WeightsGB, p*b+2*ad, "weights: %.3g frozen params × %g bytes + %.3g adapter params × 2 bytes", p, b, ad)
		add(&m.GradientsGB, 2*ad, "adapter gradients: %.3g params × 2 bytes", ad)
		add(&m.OptimizerGB, 12*ad, "adapter Adam state: %.3g params × 12 bytes", ad)
		addActivations(in, a, add, &m.ActivationsGB)
	}
	sum := m.WeightsGB + m.GradientsGB + m.OptimizerGB + m.ActivationsGB + m.KVCacheGB
	add(&m.OverheadGB, in.Overhead*sum*bytesPerGB, "overhead: %g × %.1f GB", in.Overhead, sum)
	m.TotalGB = sum + m.OverheadGB
	return m
}

// addActivations adds the training activations of memoryNeeded.
func addActivations(in InstanceInput, a Arch, add func(*float64, float64, string, ...any), dst *float64) {
	sbh := float64(in.Seq) * float64(in.Batch) * float64(a.Hidden)
	if in.StoreAllActivations {
		add(dst, 34*sbh*float64(a.Layers), "activations: 34 × %d seq × %d batch × %d hidden × %d layers bytes",
			in.Seq, in.Batch, a.Hidden, a.Layers)
		return
	}
	add(dst, 2*sbh*float64(a.Layers)+34*sbh,
		"activations (checkpointed): (2 × %d layers + 34) × %d seq × %d batch × %d hidden bytes",
		a.Layers, in.Seq, in.Batch, a.Hidden)
}

// candidates turns the offers that can be priced and sized into options, sorted cheapest
// first, whether or not they hold the model; it counts the rest by reason.
func candidates(in InstanceInput, r InstanceResult, offers []gpucost.Offer, spec SpecFunc) ([]InstanceOption, []SkippedOffers) {
	skips := map[string]int{}
	var out []InstanceOption
	for _, o := range offers {
		if in.Provider != "" && !strings.EqualFold(o.Provider, in.Provider) {
			continue
		}
		opt, why := offerOption(in, r, o, spec)
		if why != "" {
			skips[why]++
			continue
		}
		out = append(out, opt)
	}
	slices.SortFunc(out, compareOptions(r.Pricing))
	var skipped []SkippedOffers
	for reason, n := range skips {
		skipped = append(skipped, SkippedOffers{Reason: reason, Count: n})
	}
	slices.SortFunc(skipped, func(a, b SkippedOffers) int { return cmp.Compare(a.Reason, b.Reason) })
	return out, skipped
}

// offerOption makes o an option, or says why it cannot be one.
func offerOption(in InstanceInput, r InstanceResult, o gpucost.Offer, spec SpecFunc) (InstanceOption, string) {
	n := int(o.GPUCount)
	if o.GPUCount < 1 || float64(n) != o.GPUCount {
		return InstanceOption{}, "fractional GPU"
	}
	opt := InstanceOption{Provider: o.Provider, Region: o.Region, Zone: o.Zone, InstanceType: o.InstanceType,
		GPUModel: o.GPUModel, GPUCount: n, GPUMemoryGB: o.GPUMemoryGB}
	if o.HasOnDemand {
		opt.OnDemand = &o.OnDemand
	}
	if o.HasSpot {
		opt.Spot = &o.SpotPrice
	}
	if optionPrice(opt, r.Pricing) == nil {
		return opt, "no " + string(r.Pricing) + " price"
	}
	model, known := gpucost.GPUModel{}, false
	if spec != nil {
		model, known = spec(o.GPUModel)
	}
	if opt.GPUMemoryGB <= 0 {
		opt.GPUMemoryGB = model.MemoryGB
	}
	if opt.GPUMemoryGB <= 0 {
		return opt, "GPU memory unknown"
	}
	opt.TFLOPS = model.BF16TFLOPS
	if in.Precision == FP16 || opt.TFLOPS == 0 && in.Mode == Inference {
		opt.TFLOPS = model.FP16TFLOPS
	}
	if in.Mode != Inference && in.Precision == BF16 && known && model.BF16TFLOPS == 0 {
		return opt, "no bf16 tensor cores (use fp16)"
	}
	if r.TrainingFLOPs > 0 {
		if opt.TFLOPS <= 0 {
			return opt, "no datasheet TFLOPS for the GPU"
		}
		opt.Hours = r.TrainingFLOPs / (float64(n) * opt.TFLOPS * 1e12 * in.MFU) / 3600
		cost := optionPrice(opt, r.Pricing).MulFloat(opt.Hours)
		opt.Cost = &cost
	}
	opt.GPUsNeeded = gpusNeeded(r.Memory.TotalGB, opt.GPUMemoryGB)
	opt.MemoryPerGPUGB = r.Memory.TotalGB / float64(opt.GPUsNeeded)
	return opt, ""
}

// gpusNeeded is the fewest GPUs of memGB each that hold needGB sharded evenly (tensor or
// pipeline parallel for inference, ZeRO-3/FSDP for training).
func gpusNeeded(needGB, memGB float64) int {
	return max(1, int(math.Ceil(needGB/memGB-1e-9)))
}

// optionPrice returns the option's price under p, nil if it has none.
func optionPrice(o InstanceOption, p gpucost.PricingModel) *gpucost.Money {
	if p == gpucost.Spot {
		return o.Spot
	}
	return o.OnDemand
}

// compareOptions orders options by total cost when they have one, else by price per hour, then
// by fewer GPUs and by name, so the order is stable.
func compareOptions(p gpucost.PricingModel) func(a, b InstanceOption) int {
	key := func(o InstanceOption) int64 {
		if o.Cost != nil {
			return o.Cost.Nanos
		}
		return optionPrice(o, p).Nanos
	}
	return func(a, b InstanceOption) int {
		if c := cmp.Compare(key(a), key(b)); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(a.GPUCount, b.GPUCount), cmp.Compare(a.Provider, b.Provider),
			cmp.Compare(a.InstanceType, b.InstanceType), cmp.Compare(a.Region, b.Region), cmp.Compare(a.Zone, b.Zone))
	}
}

// fitting returns the options whose GPUs hold needGB, in the order given.
func fitting(all []InstanceOption, needGB float64) []InstanceOption {
	var out []InstanceOption
	for _, o := range all {
		if o.GPUsNeeded <= o.GPUCount {
			out = append(out, o)
		}
	}
	return out
}

// ruleOfThumb sizes training as 4 bytes × params over the whole instance, as the picker of
// reference case R3 does, and says whether its pick holds the model (needGB).
func ruleOfThumb(in InstanceInput, needGB float64, all []InstanceOption) *RuleOfThumb {
	rt := &RuleOfThumb{MemoryGB: ruleOfThumbBytes * in.Params / bytesPerGB}
	for _, o := range all {
		if float64(o.GPUCount)*o.GPUMemoryGB >= rt.MemoryGB {
			rt.Pick = &o
			rt.Holds = o.GPUsNeeded <= o.GPUCount
			break
		}
	}
	why := fmt.Sprintf("the \"4 bytes × params\" training rule sizes this model at %.1f GB, but mixed-precision Adam "+
		"needs 16 bytes × params plus activations: %.1f GB (%.1f× more; reference case R3)", rt.MemoryGB, needGB, needGB/rt.MemoryGB)
	switch {
	case rt.Pick == nil:
		rt.Warning = why + "; no offer holds even the rule's estimate"
	case rt.Holds:
		rt.Warning = fmt.Sprintf("%s; the rule's pick, %s %s, happens to hold it", why, rt.Pick.Provider, rt.Pick.InstanceType)
	default:
		rt.Warning = fmt.Sprintf("%s; the rule would pick %s %s (%d×%s, %.0f GB), which cannot hold it and would run out of memory",
			why, rt.Pick.Provider, rt.Pick.InstanceType, rt.Pick.GPUCount, rt.Pick.GPUModel, float64(rt.Pick.GPUCount)*rt.Pick.GPUMemoryGB)
	}
	return rt
}

// noOffers explains an empty candidate list.
func noOffers(in InstanceInput, skipped []SkippedOffers) error {
	where := "the catalog"
	if in.Provider != "" {
		where = "provider " + in.Provider
	}
	var reasons []string
	for _, s := range skipped {
		reasons = append(reasons, fmt.Sprintf("%d %s", s.Count, s.Reason))
	}
	if len(reasons) == 0 {
		return gpucost.Errorf(gpucost.EInvalid, "plan instance: %s has no GPU offers; try another --provider or none", where)
	}
	return gpucost.Errorf(gpucost.EInvalid, "plan instance: no usable offer in %s (left out: %s); try without --spot or another --provider",
		where, strings.Join(reasons, ", "))
}

// fitsNowhere names the largest option and the memory needed, and says what would work.
func fitsNowhere(in InstanceInput, needGB float64, all []InstanceOption) error {
	big := slices.MaxFunc(all, func(a, b InstanceOption) int {
		return cmp.Compare(float64(a.GPUCount)*a.GPUMemoryGB, float64(b.GPUCount)*b.GPUMemoryGB)
	})
	hint := "a lower --precision, a smaller --batch or --seq, or several instances"
	switch in.Mode {
	case Training:
		hint = "--mode lora, a smaller --batch or --seq, or a multi-node cluster"
	case LoRA:
		hint = "--precision int4 (QLoRA), a smaller --batch or --seq, or several instances"
	}
	return gpucost.Errorf(gpucost.EInvalid,
		"plan instance: %s of a %.3g-parameter model at %s needs %.1f GB of GPU memory; the largest option, %s %s (%d×%s), has %.0f GB; try %s",
		in.Mode, in.Params, in.Precision, needGB, big.Provider, big.InstanceType, big.GPUCount, big.GPUModel,
		float64(big.GPUCount)*big.GPUMemoryGB, hint)
}

// instanceNotes states the assumptions a reader should know.
func instanceNotes(in InstanceInput, r InstanceResult) []string {
	var out []string
	if r.Arch.Estimated {
		out = append(out, fmt.Sprintf("architecture estimated from the parameter count (%d layers, hidden %d, %d KV heads); "+
			"give layers, hidden and KV heads for an exact activation and KV-cache size", r.Arch.Layers, r.Arch.Hidden, r.Arch.KVHeads))
	}
	if r.TrainingFLOPs > 0 {
		out = append(out, fmt.Sprintf("time = %g·params·tokens = %.3g FLOPs ÷ (GPUs × datasheet dense TFLOPS × %.0f%% MFU), on all GPUs of the instance",
			flopsPerToken(in.Mode), r.TrainingFLOPs, in.MFU*100))
	}
	if r.RuleOfThumb != nil {
		out = append(out, r.RuleOfThumb.Warning)
	}
	return out
}
