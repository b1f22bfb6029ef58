package analyze

import (
	"maps"
	"math"
	"math/bits"
	"slices"
	"time"

	"github.com/gpucost/gpucost"
)

// DefaultMinIdle is the shortest idle period reported when Options.MinIdle is zero: docs/architecture.md's
// monitoring guides call a GPU idle or overprovisioned after 30 minutes of low utilisation.
const DefaultMinIdle = 30 * time.Minute

// Options configure a utilisation report or an idle analysis.
type Options struct {
	By GroupBy

	// Normalize maps a driver's model name to the catalog's ("NVIDIA A100-SXM4-80GB" →
	// "A100-80GB"); nil keeps driver names.
	Normalize func(model string) string

	// Price returns the on-demand price of one hour of the series' whole GPU. For a MIG instance
	// the analysis charges its share (see MIGShare). False leaves the series unpriced. A
	// Utilization asks it only in Result, once per series, so it may be set up while the rollups
	// stream (query.Report.Utilization prices by the snapshot built from the same scan).
	Price func(s *gpucost.Series) (gpucost.Money, bool)

	IdleThreshold float64       // the util % below which the store counted a minute idle; shown only
	MinIdle       time.Duration // the shortest idle period counted; DefaultMinIdle when zero
	From, To      time.Time     // the period [From, To): rollups starting outside are left out; zero is open

	// Location is where hours of the day and weekdays of idle patterns are counted; UTC when nil.
	Location *time.Location
}

func (o Options) minIdle() time.Duration {
	if o.MinIdle <= 0 {
		return DefaultMinIdle
	}
	return o.MinIdle
}

// period is [From, To) in Unix nanoseconds, for a cheap test per rollup.
type period struct{ from, to int64 }

func (o Options) period() period {
	p := period{from: math.MinInt64, to: math.MaxInt64}
	if !o.From.IsZero() {
		p.from = o.From.UnixNano()
	}
	if !o.To.IsZero() {
		p.to = o.To.UnixNano()
	}
	return p
}

// contains reports whether t lies in the period; t is a rollup's start, within UnixNano's range
// (the years 1678 to 2262).
func (p period) contains(t time.Time) bool {
	n := t.UnixNano()
	return n >= p.from && n < p.to
}

// Utilization accumulates utilisation statistics, idle time and cost per group from a stream of
// rollups. It keeps state per group (a 101-bin histogram, sums and maxima, the set of GPUs and
// one counter set per price), never per rollup, so memory is bounded by the number of groups and
// GPUs. It is not safe for concurrent use.
type Utilization struct {
	opts    Options
	period  period
	minIdle int // minutes
	groups  map[string]*groupAcc
	gpus    map[string]struct{} // the fleet's physical GPUs
	cur     current
	rollups int
	outside int
	run     idleRun
	first   int64 // the Unix minute the earliest rollup starts
	last    int64 // the Unix minute after the latest rollup ends

	series []*unpricedSeries // the time of each series streamed, in order, priced in Result

	currency string // of the first priced series; the report's
	foreign  int    // series priced in another currency, left unpriced
}

// unpricedSeries is one series' time, waiting for its price.
type unpricedSeries struct {
	series *gpucost.Series
	group  *groupAcc
	time   costBucket
}

// current caches what Add needs of the series being streamed, looked up once per series.
type current struct {
	ptr        *gpucost.Series
	uuid, host string
	group      *groupAcc
	bucket     *costBucket
	share      int64 // sevenths of a GPU
	sliced     bool  // one workload's share of a time-sliced GPU (TimeSliced)

	day    int64 // the UTC day of dayAcc; rollups of a series come in time order
	dayAcc *daySum
}

// NewUtilization returns an empty accumulator for a report over opts.
func NewUtilization(opts Options) *Utilization {
	u := &Utilization{
		opts:    opts,
		period:  opts.period(),
		minIdle: int((opts.minIdle() + time.Minute - 1) / time.Minute),
		groups:  map[string]*groupAcc{},
		gpus:    map[string]struct{}{},
		first:   math.MaxInt64,
		last:    math.MinInt64,
	}
	u.run.emit, u.run.min = u.idleRunEnded, u.minIdle
	return u
}

// Add counts one rollup, hourly or minute. Rollups of a series must come together and in time
// order, as RollupStore.ScanRollups gives them; r and its series are read only during the call.
func (u *Utilization) Add(r *gpucost.Rollup) {
	if !u.period.contains(r.Start) {
		u.outside++
		return
	}
	if s := r.Series; s != u.cur.ptr || s.GPU.UUID != u.cur.uuid || s.GPU.Host != u.cur.host {
		u.startSeries(s)
	}
	u.rollups++
	g := u.cur.group
	g.add(r)
	if d := dayOf(r.Start.Unix()); u.cur.dayAcc == nil || d != u.cur.day {
		u.cur.day, u.cur.dayAcc = d, g.day(d)
	}
	u.cur.dayAcc.utilSum += r.UtilSum
	u.cur.dayAcc.samples += int64(r.Samples)
	covered, idle, n := slots(r)
	if u.cur.sliced {
		idle = 0 // a workload's small share of a GPU says nothing of whether the GPU sat idle
	}
	b, share := u.cur.bucket, u.cur.share
	b.covered += int64(bits.OnesCount64(covered)) * share
	b.idle += int64(bits.OnesCount64(idle)) * share
	at := unixMinute(r.Start)
	u.first = min(u.first, at)
	u.last = max(u.last, at+int64(n))
	u.run.feed(at, idle, n)
}

// startSeries looks up the group, GPU and price of a new series.
func (u *Utilization) startSeries(s *gpucost.Series) {
	u.run.reset()
	key := u.opts.By.Key(s, u.opts.Normalize)
	g := u.groups[key]
	if g == nil {
		g = newGroupAcc(key)
		u.groups[key] = g
	}
	model := s.GPU.Model
	if u.opts.Normalize != nil && model != "" {
		model = u.opts.Normalize(model)
	}
	gpu := physicalGPU(s.GPU)
	g.addSeries(s, gpu, model)
	u.gpus[gpu] = struct{}{}
	st := &unpricedSeries{series: s, group: g}
	u.series = append(u.series, st)
	u.cur = current{ptr: s, uuid: s.GPU.UUID, host: s.GPU.Host, group: g,
		bucket: &st.time, share: int64(MIGShare(s.GPU)), sliced: TimeSliced(s)}
}

// price adds each series' time to its group's counters at its price (Options.Price), in the
// order the series came: the first priced one names the report's currency.
func (u *Utilization) price() {
	for _, st := range u.series {
		b := &st.group.unpriced
		if p, ok := u.priceOf(st.series); ok {
			b = st.group.bucket(p)
		}
		b.covered += st.time.covered
		b.idle += st.time.idle
		b.sustained += st.time.sustained
	}
	u.series = nil
}

// priceOf returns the price of a series' GPU-hour in the report's currency.
func (u *Utilization) priceOf(s *gpucost.Series) (gpucost.Money, bool) {
	if u.opts.Price == nil {
		return gpucost.Money{}, false
	}
	p, ok := u.opts.Price(s)
	if !ok {
		return p, false
	}
	if p.Currency == "" {
		p.Currency = "USD"
	}
	if u.currency == "" {
		u.currency = p.Currency
	}
	if p.Currency != u.currency {
		u.foreign++ // Money never adds currencies together: left unpriced, and counted
		return p, false
	}
	return p, true
}

// idleRunEnded counts a finished idle run of the current series when it is long enough.
func (u *Utilization) idleRunEnded(_ time.Time, minutes int, _ bool) {
	if minutes >= u.minIdle {
		u.cur.bucket.sustained += int64(minutes) * u.cur.share
	}
}

// Result ends the stream and returns the report: groups by idle cost, highest first, and the
// fleet's totals.
func (u *Utilization) Result() Report {
	u.run.reset()
	u.cur = current{}
	u.price()
	rep := Report{By: u.opts.By, From: u.opts.From, To: u.opts.To, IdleThreshold: u.opts.IdleThreshold,
		MinIdle: gpucost.Duration(u.opts.minIdle()), Rollups: u.rollups, Outside: u.outside}
	fleet := newGroupAcc(FleetGroup)
	if len(u.groups) > 0 { // none stays nil, as JSON shows it
		rep.Groups = make([]GroupStats, 0, len(u.groups))
	}
	// The groups merge in order of their keys: the fleet's float sums then come out the same
	// on every run, whatever order the map gives.
	for _, k := range slices.Sorted(maps.Keys(u.groups)) {
		g := u.groups[k]
		rep.Groups = append(rep.Groups, g.stats())
		fleet.merge(g)
	}
	sortGroups(rep.Groups)
	rep.Fleet = fleet.stats()
	rep.Fleet.GPUs = len(u.gpus)
	if u.rollups > 0 {
		rep.DataFrom, rep.DataTo = minuteTime(u.first), minuteTime(u.last)
	}
	rep.Currency = u.currency
	rep.ForeignCurrency = u.foreign
	return rep
}

// nanMax returns the larger of m and v, ignoring a NaN v; m may be NaN, meaning none yet.
func nanMax(m, v float64) float64 {
	if v > m || (m != m && v == v) {
		return v
	}
	return m
}

var nan = math.NaN()
