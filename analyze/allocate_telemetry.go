package analyze

import (
	"cmp"
	"math/bits"
	"reflect"
	"slices"
	"time"

	"github.com/gpucost/gpucost"
)

// Held time is counted in integer units small enough that a MIG instance's share of its GPU
// (sevenths, see MIGShare) split equally between up to ten time-sliced users in a minute stays
// an integer: a whole GPU-minute is 7 × 2520 units (2520 = lcm(1…10)).
const (
	sliceUnitsPerMinute = 2520                           // one seventh of a GPU for one minute
	allocUnitsPerMinute = wholeGPU * sliceUnitsPerMinute // a whole GPU for one minute
	allocUnitsPerHour   = 60 * allocUnitsPerMinute       // a whole GPU for one hour
	allMinutes          = 1<<60 - 1                      // the minutes of an hour as a coverage mask
)

// allocRollup is what an Allocator keeps of one hour of one series: 24 bytes.
type allocRollup struct {
	cov     uint64  // minutes that held samples
	utilSum float32 // sum of the samples' utilisation, percent
	samples uint32
	series  uint32 // index in telemetry.series
	hour    int32  // Unix hour of the start
}

// allocSeries is what an Allocator keeps of one series, once; seriesHot holds the rest.
type allocSeries struct {
	gpu      gpucost.GPU
	key      string        // gpucost.Series.Key: recognises the series and orders series where order matters
	host     uint32        // index in telemetry.hosts
	physical uint32        // the physical GPU, for counting GPUs
	owner    gpucost.Owner // from the labels; Team and Project may be empty, filled from tags per line
	sliced   bool          // one workload's share of a time-sliced GPU (TimeSliced)
}

// seriesHot is the part of a series that is read per rollup, kept apart to stay small.
type seriesHot struct {
	instance uint32 // the GPU or MIG instance: series on one instance share its minutes
	share    int32  // units per minute the series holds alone: MIGShare × sliceUnitsPerMinute
}

// telemetry holds hour rollups compactly, in one bucket per host, with series and hosts
// interned. A bucket is sorted by hour, GPU instance and series, and its rollups of one series
// and hour merged, before the first Allocate after rollups were added to it.
type telemetry struct {
	hosts  []hostRollups
	series []allocSeries
	hot    []seriesHot // per series, what sorting and gathering read: compact

	byPtr   map[*gpucost.Series]seenSeries
	byKey   map[string]uint32
	hostIDs map[string]uint32
	instIDs map[[2]string]uint32
	physIDs map[[2]string]uint32
	lastPtr *gpucost.Series
	last    seenSeries
	dirty   []uint32 // hosts with rollups added since their bucket was sorted
	counts  []int32  // sort's buffers
	tmp     []allocRollup
	owner   ownerLabels // how labels name owners
}

// hostRollups is one host's bucket.
type hostRollups struct {
	rollups []allocRollup
	dirty   bool
}

// seenSeries ties a caller's *Series to the series it was: its index and the labels map it had.
type seenSeries struct {
	id     uint32
	labels gpucost.Labels // the caller's map, held so its identity can be compared
}

func (t *telemetry) reset() {
	owner := t.owner
	*t = telemetry{owner: owner}
}

// add keeps r's coverage and utilisation; minute rollups become one minute of their hour.
func (t *telemetry) add(r *gpucost.Rollup) {
	if r.Series == nil || (r.Width != time.Hour && r.Width != time.Minute) {
		return
	}
	m := unixMinute(r.Start)
	cov := r.Coverage & allMinutes
	if r.Width == time.Minute {
		cov = 0
		if r.Samples > 0 || r.Coverage != 0 {
			cov = 1 << uint(m-floorDiv(m, 60)*60)
		}
	}
	if cov == 0 {
		return
	}
	id := t.intern(r.Series)
	h := t.series[id].host
	b := &t.hosts[h]
	b.rollups = append(b.rollups, allocRollup{cov: cov, utilSum: float32(r.UtilSum), samples: uint32(max(r.Samples, 0)),
		series: id, hour: int32(floorDiv(m, 60))})
	if !b.dirty {
		b.dirty = true
		t.dirty = append(t.dirty, h)
	}
}

// intern returns s's index, adding it if new. A *Series is recognised by pointer while its GPU
// and labels map stay the same, so a caller that reuses one *Series for several series is still
// served right; a series' labels map must not change in place while its rollups are added.
func (t *telemetry) intern(s *gpucost.Series) uint32 {
	if s == t.lastPtr && t.same(t.last, s) {
		return t.last.id
	}
	if t.byPtr == nil {
		t.byPtr, t.byKey, t.hostIDs = map[*gpucost.Series]seenSeries{}, map[string]uint32{}, map[string]uint32{}
		t.instIDs, t.physIDs = map[[2]string]uint32{}, map[[2]string]uint32{}
	}
	seen, ok := t.byPtr[s]
	if !ok || !t.same(seen, s) {
		key := s.Key()
		id, ok := t.byKey[key]
		if !ok {
			id = t.newSeries(s, key)
		}
		seen = seenSeries{id: id, labels: s.Labels}
		t.byPtr[s] = seen
	}
	t.lastPtr, t.last = s, seen
	return seen.id
}

// same reports whether s is still the series seen: the same GPU and the same labels map.
func (t *telemetry) same(seen seenSeries, s *gpucost.Series) bool {
	return t.series[seen.id].gpu == s.GPU && len(seen.labels) == len(s.Labels) &&
		reflect.ValueOf(seen.labels).UnsafePointer() == reflect.ValueOf(s.Labels).UnsafePointer()
}

func (t *telemetry) newSeries(s *gpucost.Series, key string) uint32 {
	id := uint32(len(t.series))
	t.byKey[key] = id
	g := s.GPU
	host, ok := t.hostIDs[g.Host]
	if !ok {
		host = uint32(len(t.hosts))
		t.hostIDs[g.Host] = host
		t.hosts = append(t.hosts, hostRollups{})
	}
	parent := g.UUID
	if g.Parent != "" {
		parent = g.Parent
	}
	t.series = append(t.series, allocSeries{gpu: g, key: key, host: host,
		physical: internID(t.physIDs, [2]string{g.Host, parent}), owner: t.owner.of(s.Labels), sliced: TimeSliced(s)})
	t.hot = append(t.hot, seriesHot{instance: internID(t.instIDs, [2]string{g.Host, g.UUID}),
		share: int32(MIGShare(g) * sliceUnitsPerMinute)})
	return id
}

func internID(ids map[[2]string]uint32, k [2]string) uint32 {
	id, ok := ids[k]
	if !ok {
		id = uint32(len(ids))
		ids[k] = id
	}
	return id
}

// index sorts and merges the buckets that rollups were added to.
func (t *telemetry) index() {
	for _, h := range t.dirty {
		b := &t.hosts[h]
		t.sort(b.rollups)
		b.rollups = mergeRollups(b.rollups)
		b.dirty = false
	}
	t.dirty = t.dirty[:0]
}

// sort orders one host's rollups by hour, instance and series: by counting sort on the hour
// where the hours span not much more than there are rollups, which is the usual case, and then
// each hour's few rollups by compare.
func (t *telemetry) sort(rs []allocRollup) {
	if len(rs) < 2 {
		return
	}
	lo, hi := rs[0].hour, rs[0].hour
	for _, r := range rs {
		lo, hi = min(lo, r.hour), max(hi, r.hour)
	}
	span := int64(hi) - int64(lo) + 1
	if span > 2*int64(len(rs))+64 {
		slices.SortFunc(rs, t.compare)
		return
	}
	counts := slices.Grow(t.counts[:0], int(span)+1)[:span+1]
	clear(counts)
	for _, r := range rs {
		counts[r.hour-lo+1]++
	}
	for i := 1; i < len(counts); i++ {
		counts[i] += counts[i-1]
	}
	tmp := slices.Grow(t.tmp[:0], len(rs))[:len(rs)]
	for _, r := range rs {
		tmp[counts[r.hour-lo]] = r
		counts[r.hour-lo]++
	}
	copy(rs, tmp)
	t.counts, t.tmp = counts, tmp[:0]
	for i := 0; i < len(rs); {
		j := i + 1
		for j < len(rs) && rs[j].hour == rs[i].hour {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(rs[i:j], t.compare)
		}
		i = j
	}
}

// compare orders one host's rollups by hour, instance and series.
func (t *telemetry) compare(a, b allocRollup) int {
	if c := cmp.Compare(a.hour, b.hour); c != 0 {
		return c
	}
	if c := cmp.Compare(t.hot[a.series].instance, t.hot[b.series].instance); c != 0 {
		return c
	}
	if c := cmp.Compare(a.series, b.series); c != 0 {
		return c
	}
	// Rollups of one series and hour: a fixed order, so merging them repeats whatever order they came in.
	if c := cmp.Compare(a.cov, b.cov); c != 0 {
		return c
	}
	if c := cmp.Compare(a.samples, b.samples); c != 0 {
		return c
	}
	return cmp.Compare(a.utilSum, b.utilSum)
}

// mergeRollups merges neighbours of the same series and hour, as the store merges rollups: sums
// add where their minutes are disjoint; where they overlap, the same samples came twice or two
// sources disagree, and the rollup with more samples is kept.
func mergeRollups(rs []allocRollup) []allocRollup {
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 && out[n-1].series == r.series && out[n-1].hour == r.hour {
			last := &out[n-1]
			switch {
			case last.cov&r.cov == 0:
				last.cov |= r.cov
				last.utilSum += r.utilSum
				last.samples += r.samples
			case bits.OnesCount64(r.cov) > bits.OnesCount64(last.cov) ||
				bits.OnesCount64(r.cov) == bits.OnesCount64(last.cov) && r.samples > last.samples:
				*last = r
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

// rollupsOf returns the rollups of host name whose hours lie in [h0, h1), sorted by hour,
// instance and series.
func (t *telemetry) rollupsOf(name string, h0, h1 int64) []allocRollup {
	id, ok := t.hostIDs[name]
	if !ok {
		return nil
	}
	rs := t.hosts[id].rollups
	lo, _ := slices.BinarySearchFunc(rs, h0, func(r allocRollup, h int64) int { return cmp.Compare(int64(r.hour), h) })
	hi := lo
	for hi < len(rs) && int64(rs[hi].hour) < h1 {
		hi++
	}
	return rs[lo:hi]
}
