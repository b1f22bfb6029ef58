package catalog

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/gpucost/gpucost"
)

// VGPU is an NVIDIA vGPU profile: a share of one physical GPU's framebuffer that a virtual
// machine sees as a GPU of its own. NVIDIA names profiles <GPU>-<framebuffer GB><series>, where
// the series letter is C (compute), Q (workstation), B (virtual PC) or A (virtual apps), and
// drivers report them as "GRID A100-10C" or "NVIDIA A100-10C".
//
// A MIG instance's share is counted in sevenths of its GPU's compute (analyze.MIGShare); a vGPU
// profile's is a fraction of the framebuffer (10 GB of a 40 GB A100 is a quarter), which
// sevenths cannot hold, so the catalog prices a GPU-hour of the profile at that fraction of the
// physical GPU's price instead (PricePerGPUHour), exactly.
type VGPU struct {
	Profile  string // the profile as NVIDIA names it, such as "A100-10C"
	Model    string // the canonical model of the physical GPU, such as "A100-40GB"
	MemoryGB int    // the profile's framebuffer
	OfGB     int    // the physical GPU's memory
	Series   byte   // C, Q, B or A
}

// vgpuGPUs are the GPU parts of profile names that Normalize does not know as such: NVIDIA
// names the 80 GB A100's profiles A100D-… and the H100 SXM's H100XM-….
var vgpuGPUs = map[string]string{"A100D": "A100-80GB", "A100DX": "A100-80GB", "H100XM": "H100-SXM", "H100L": "H100-NVL"}

// ParseVGPU reads a vGPU profile name as drivers report it ("GRID A100-10C", "NVIDIA T4-4Q",
// "A100-4C"). It returns false for a name that is not a profile of a GPU the catalog knows, or
// whose framebuffer is larger than that GPU's memory.
func ParseVGPU(name string) (VGPU, bool) {
	s := strings.TrimSpace(name)
	for _, prefix := range []string{"GRID ", "NVIDIA "} {
		if len(s) > len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
			s = strings.TrimSpace(s[len(prefix):])
			break
		}
	}
	gpu, size, ok := cutLast(s, "-")
	if !ok || len(size) < 2 {
		return VGPU{}, false
	}
	series := size[len(size)-1] &^ 0x20 // upper case
	gb, err := strconv.Atoi(size[:len(size)-1])
	if err != nil || gb <= 0 || !strings.ContainsRune("ABCQ", rune(series)) {
		return VGPU{}, false
	}
	model, ok := vgpuGPUs[strings.ToUpper(gpu)]
	if !ok {
		if model, ok = Normalize(gpu); !ok {
			return VGPU{}, false
		}
	}
	spec, ok := Spec(model)
	if !ok || spec.MemoryGB != math.Trunc(spec.MemoryGB) || gb > int(spec.MemoryGB) {
		return VGPU{}, false
	}
	return VGPU{Profile: strings.ToUpper(gpu) + "-" + strconv.Itoa(gb) + string(series), Model: spec.Name,
		MemoryGB: gb, OfGB: int(spec.MemoryGB), Series: series}, true
}

// cutLast cuts s around the last sep.
func cutLast(s, sep string) (before, after string, ok bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// Fraction is the share of the physical GPU the profile holds: MemoryGB / OfGB.
func (v VGPU) Fraction() float64 { return float64(v.MemoryGB) / float64(v.OfGB) }

// Price returns the price of a GPU-hour of the profile, given that of its physical GPU: whole ×
// MemoryGB / OfGB, rounded half away from zero to the nano-unit.
func (v VGPU) Price(whole gpucost.Money) gpucost.Money {
	num := new(big.Int).Mul(big.NewInt(whole.Nanos), big.NewInt(2*int64(v.MemoryGB)))
	half := big.NewInt(int64(v.OfGB))
	if num.Sign() < 0 {
		half.Neg(half)
	}
	num.Add(num, half)
	num.Quo(num, big.NewInt(2*int64(v.OfGB)))
	return gpucost.Money{Nanos: num.Int64(), Currency: whole.Currency}
}
