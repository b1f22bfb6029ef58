package dcgmfields

import (
	"time"

	"github.com/gpucost/gpucost"
)

// Builder assembles the readings of one GPU at one instant into a Sample.
type Builder struct {
	s                           gpucost.Sample
	fbFree, fbReserved, fbTotal float64
}

// NewBuilder starts a sample of g at t with every reading absent.
func NewBuilder(t time.Time, g gpucost.GPU, labels gpucost.Labels) Builder {
	s := gpucost.NewSample(t, g)
	s.Labels = labels
	return Builder{s: s, fbFree: gpucost.Absent, fbReserved: gpucost.Absent, fbTotal: gpucost.Absent}
}

// Set stores a reading of f, which must be one that Read reports. It returns false, keeping the
// first, if the sample has that reading already.
func (b *Builder) Set(f Field, v float64) bool {
	dst := b.field(f)
	if !gpucost.IsAbsent(*dst) {
		return false
	}
	*dst = v
	return true
}

func (b *Builder) field(f Field) *float64 {
	switch f {
	case Util:
		return &b.s.Util
	case FBUsed:
		return &b.s.MemUsedMiB
	case FBFree:
		return &b.fbFree
	case FBReserved:
		return &b.fbReserved
	case FBTotal:
		return &b.fbTotal
	case Power:
		return &b.s.PowerW
	case Temp:
		return &b.s.TempC
	case SMActive:
		return &b.s.SMActive
	case SMOccupancy:
		return &b.s.SMOccupancy
	case GrEngineActive:
		return &b.s.GrEngineActive
	}
	panic("dcgmfields: Set of a metric that fills no reading")
}

// Sample returns the sample. DCGM's framebuffer total is used + free + reserved, or FB_TOTAL
// where it is exported.
func (b *Builder) Sample() gpucost.Sample {
	s := b.s
	switch {
	case !gpucost.IsAbsent(b.fbTotal):
		s.MemTotalMiB = b.fbTotal
	case !gpucost.IsAbsent(s.MemUsedMiB) && !gpucost.IsAbsent(b.fbFree):
		s.MemTotalMiB = s.MemUsedMiB + b.fbFree
		if !gpucost.IsAbsent(b.fbReserved) {
			s.MemTotalMiB += b.fbReserved
		}
	}
	return s
}
