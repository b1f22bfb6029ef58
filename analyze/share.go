package analyze

import (
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/gpucost/gpucost"
)

// Time and cost are counted in sevenths of a GPU-minute, so a MIG instance's share of its GPU
// (docs/architecture.md: 7 compute slices) stays an integer and costs stay exact.
const (
	wholeGPU     = 7      // sevenths in a whole GPU
	unitsPerGPUh = 7 * 60 // sevenths of a GPU-minute in a GPU-hour
)

// MIGShare returns the fraction of its GPU that a MIG instance holds, in sevenths: its compute
// slices, read from the profile ("3g.40gb" → 3, "1c.3g.40gb" → 1, "1g.10gb+me" → 1). A whole GPU,
// and a MIG instance whose profile cannot be read, count as 7.
func MIGShare(g gpucost.GPU) int {
	if g.Parent == "" && g.Profile == "" {
		return wholeGPU
	}
	for part := range strings.SplitSeq(g.Profile, ".") {
		digits := strings.TrimRight(part, "cg")
		if len(digits) != len(part)-1 {
			continue
		}
		if n, err := strconv.Atoi(digits); err == nil && n >= 1 && n <= wholeGPU {
			return n
		}
	}
	return wholeGPU
}

// physicalGPU names the physical GPU a series runs on: a MIG instance counts as its parent.
func physicalGPU(g gpucost.GPU) string {
	id := g.UUID
	if g.Parent != "" {
		id = g.Parent
	}
	return g.Host + "\x00" + id
}

// costOf returns price × units / 420, the cost of units sevenths of a GPU-minute at price per
// GPU-hour, rounded half away from zero to the nano-unit: exact up to that last digit. Amounts
// beyond Money's range (±9.2 billion) saturate.
func costOf(price gpucost.Money, units int64) gpucost.Money {
	neg := (price.Nanos < 0) != (units < 0)
	hi, lo := bits.Mul64(absU(price.Nanos), absU(units))
	lo, carry := bits.Add64(lo, unitsPerGPUh/2, 0)
	hi += carry
	n := uint64(math.MaxInt64)
	if hi < unitsPerGPUh {
		if q, _ := bits.Div64(hi, lo, unitsPerGPUh); q < math.MaxInt64 {
			n = q
		}
	}
	out := gpucost.Money{Nanos: int64(n), Currency: price.Currency}
	if neg {
		out.Nanos = -out.Nanos
	}
	return out
}

func absU(n int64) uint64 {
	if n < 0 {
		return uint64(-n)
	}
	return uint64(n)
}

// hours converts sevenths of a GPU-minute to GPU-hours.
func hours(units int64) float64 { return float64(units) / unitsPerGPUh }
