package analyze

import (
	"cmp"
	"math"
	"math/bits"
	"slices"

	"github.com/gpucost/gpucost"
)

// scratch is what Allocate reuses from one cost line to the next.
type scratch struct {
	gen       uint32   // this line's stamp
	stamp     []uint32 // per series: gen when slot holds its place in users
	slot      []int32
	physSeen  []uint32 // per physical GPU: gen when counted
	users     []seriesTime
	group     []member
	slicer    slicer
	sliceHeld []int64
	sliceUsed []int64
	owners    []ownerTime
	weights   []int64
	billed    []int64
	effective []int64
	ham       hamilton
	out       gpucost.Allocation
}

// seriesTime is one series' time in a line's period, in allocation units.
type seriesTime struct {
	series     uint32
	held, used int64
}

// ownerTime is one owner's time in a line's period and what the policy charges it for.
type ownerTime struct {
	owner               gpucost.Owner
	held, used, charged int64
}

// member is one series' hour on a GPU or MIG instance that other series may share.
type member struct {
	r     *allocRollup
	mask  uint64 // minutes covered in the period
	share int64  // units per minute held alone
	held  int64
	used  int64 // of a time-sliced series: what it used of held, counted per minute
}

// gather collects the held and used time of every series on hosts in w, one entry per series.
func (a *Allocator) gather(hosts []string, w window) {
	sc := &a.sc
	sc.gen++
	if sc.gen == 0 { // wrapped: old stamps could match again
		clear(sc.stamp)
		clear(sc.physSeen)
		sc.gen = 1
	}
	if n := len(a.tel.series); len(sc.stamp) < n {
		sc.stamp = slices.Grow(sc.stamp, n-len(sc.stamp))[:n]
		sc.slot = slices.Grow(sc.slot, n-len(sc.slot))[:n]
	}
	sc.users = sc.users[:0]
	if w.m1 <= w.m0 {
		return
	}
	h0, h1 := w.span()
	hot := a.tel.hot
	for i, host := range hosts {
		if slices.Contains(hosts[:i], host) {
			continue
		}
		rs := a.tel.rollupsOf(host, h0, h1)
		hour, inPeriod, started := int32(0), uint64(0), false
		for len(rs) > 0 {
			r := &rs[0]
			if r.hour != hour || !started {
				hour, inPeriod, started = r.hour, w.mask(int64(r.hour)), true
			}
			inst, n := hot[r.series].instance, 1
			for n < len(rs) && rs[n].hour == hour && hot[rs[n].series].instance == inst {
				n++
			}
			if n > 1 {
				a.addShared(rs[:n], inPeriod)
			} else if m := r.cov & inPeriod; m != 0 {
				held := int64(bits.OnesCount64(m)) * int64(hot[r.series].share)
				a.addUser(r.series, held, usedOf(held, r))
			}
			rs = rs[n:]
		}
	}
}

// usedOf returns the part of held that r's mean utilisation says was used.
func usedOf(held int64, r *allocRollup) int64 {
	if r.samples == 0 {
		return 0
	}
	util := min(max(float64(r.utilSum)/float64(r.samples)/100, 0), 1)
	return int64(math.Round(float64(held) * util))
}

// addShared counts one hour of several series on one GPU or MIG instance, minutes outside the
// period masked out.
func (a *Allocator) addShared(rs []allocRollup, inPeriod uint64) {
	g := a.sc.group[:0]
	for i := range rs {
		if m := rs[i].cov & inPeriod; m != 0 {
			g = append(g, member{r: &rs[i], mask: m, share: int64(a.tel.hot[rs[i].series].share)})
		}
	}
	a.sc.group = g
	a.shareMinutes(g)
	for _, m := range g {
		used := usedOf(m.held, m.r)
		if a.tel.series[m.r.series].sliced {
			used = m.used
		}
		a.addUser(m.r.series, m.held, used)
	}
}

// shareMinutes splits each minute of one GPU or MIG instance equally between the series that
// cover it. A minute's units that do not divide evenly go one each to the first series in key
// order, so the parts add up to the minute and repeat whatever order rollups came in.
func (a *Allocator) shareMinutes(g []member) {
	slices.SortFunc(g, func(x, y member) int { return cmp.Compare(a.tel.series[x.r.series].key, a.tel.series[y.r.series].key) })
	var union uint64
	for _, m := range g {
		union |= m.mask
	}
	for union != 0 {
		bit := union & -union
		union &^= bit
		k, share, sliced := int64(0), int64(0), true
		for _, m := range g {
			if m.mask&bit != 0 {
				k++
				share = max(share, m.share) // one instance has one share; should profiles disagree, the largest
				sliced = sliced && a.tel.series[m.r.series].sliced
			}
		}
		if sliced {
			a.shareSliced(g, bit, share)
			continue
		}
		part, left := share/k, share%k
		for i := range g {
			if g[i].mask&bit != 0 {
				p := part
				if left > 0 {
					p++
					left--
				}
				g[i].held += p
				if a.tel.series[g[i].r.series].sliced { // beside a whole-GPU series: its share of its part
					g[i].used += int64(math.Round(float64(p) * min(utilOf(g[i].r), 100) / 100))
				}
			}
		}
	}
}

// shareSliced splits one minute between the time-sliced series covering it, in proportion to
// their utilisation (ShareSlices).
func (a *Allocator) shareSliced(g []member, bit uint64, share int64) {
	sl := &a.sc.slicer
	sl.reset()
	for i, m := range g {
		if m.mask&bit != 0 {
			sl.add(i, utilOf(m.r))
		}
	}
	a.sc.sliceHeld, a.sc.sliceUsed = resize(a.sc.sliceHeld, len(g)), resize(a.sc.sliceUsed, len(g))
	sl.split(share, a.sc.sliceHeld, a.sc.sliceUsed)
	for _, i := range sl.idx {
		g[i].held += a.sc.sliceHeld[i]
		g[i].used += a.sc.sliceUsed[i]
	}
}

// utilOf returns r's mean utilisation, percent; 0 without samples.
func utilOf(r *allocRollup) float64 {
	if r.samples == 0 {
		return 0
	}
	return float64(r.utilSum) / float64(r.samples)
}

// addUser adds one series' time to the line's users.
func (a *Allocator) addUser(series uint32, held, used int64) {
	sc := &a.sc
	if sc.stamp[series] == sc.gen {
		u := &sc.users[sc.slot[series]]
		u.held += held
		u.used += used
		return
	}
	sc.stamp[series], sc.slot[series] = sc.gen, int32(len(sc.users))
	sc.users = append(sc.users, seriesTime{series: series, held: held, used: used})
}

// hamilton divides amounts in proportion to weights by largest remainder (Hamilton's method),
// reusing its buffers from one call to the next.
type hamilton struct {
	parts, rems []uint64
	order       []int
}

// split divides total in proportion to weights, which must be non-negative: each part is rounded
// down, and the nano-units left over go one each to the parts with the largest remainders, the
// earlier first where remainders tie. The parts add up to total exactly; a negative total is
// split as its magnitude and negated, so a credit splits like a charge. With all weights zero the
// whole total goes to the last part. It returns out, resized, holding the parts.
func (h *hamilton) split(total int64, weights []int64, out []int64) []int64 {
	out = slices.Grow(out[:0], len(weights))[:len(weights)]
	clear(out)
	var sum uint64
	for _, w := range weights {
		sum += uint64(w)
	}
	if len(weights) == 0 {
		return out
	}
	if sum == 0 {
		out[len(out)-1] = total
		return out
	}
	mag := absU(total)
	h.parts, h.rems, h.order = h.parts[:0], h.rems[:0], h.order[:0]
	left := mag
	for i, w := range weights {
		hi, lo := bits.Mul64(mag, uint64(w))
		q, r := bits.Div64(hi, lo, sum) // w ≤ sum, so hi < sum: the quotient fits
		h.parts, h.rems, h.order = append(h.parts, q), append(h.rems, r), append(h.order, i)
		left -= q
	}
	// Σ⌊mag·w/sum⌋ > mag − len(weights), so fewer units are left than there are parts.
	h.giveLeft(left)
	for i, p := range h.parts {
		out[i] = int64(p)
		if total < 0 {
			out[i] = -out[i]
		}
	}
	return out
}

// giveLeft adds one to each of the left parts with the largest remainders, the earlier first
// where remainders tie. Up to 64 parts (a bill line's GPUs, most often 8) it picks them one by
// one, where a stable sort of the parts cost a fleet snapshot more than the rest of the split.
func (h *hamilton) giveLeft(left uint64) {
	if left == 0 {
		return
	}
	if len(h.rems) > 64 {
		slices.SortStableFunc(h.order, func(i, j int) int { return cmp.Compare(h.rems[j], h.rems[i]) })
		for _, i := range h.order[:left] {
			h.parts[i]++
		}
		return
	}
	var given uint64 // bit i: part i has its unit
	for range left {
		best := -1
		for i, r := range h.rems {
			if given&(1<<uint(i)) == 0 && (best < 0 || r > h.rems[best]) {
				best = i
			}
		}
		given |= 1 << uint(best)
		h.parts[best]++
	}
}

// Apportion divides total in proportion to weights, which must be non-negative, by largest
// remainder, as Allocate splits a line's cost: the parts add up to total exactly. With all weights
// zero the whole total goes to the last part.
func Apportion(total int64, weights []int64) []int64 {
	var h hamilton
	return h.split(total, weights, nil)
}

// Apportioner divides totals as Apportion does, keeping its buffers from one call to the next:
// a fleet snapshot splits each of tens of thousands of bill lines twice.
type Apportioner struct{ h hamilton }

// Split returns Apportion(total, weights) in out, resized; the next call may reuse out.
func (a *Apportioner) Split(total int64, weights, out []int64) []int64 {
	return a.h.split(total, weights, out)
}
