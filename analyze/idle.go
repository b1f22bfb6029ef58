package analyze

import (
	"time"

	"github.com/gpucost/gpucost"
)

// IdlePeriod is a stretch of at least Options.MinIdle in which a series' GPU was idle in every
// minute: each minute held samples and its mean utilisation was below the store's idle threshold.
// It runs across hour boundaries and is broken by a busy minute or one without samples.
type IdlePeriod struct {
	Series   *gpucost.Series  `json:"series"` // the GPU (UUID, host, model, MIG parent) and labels; shared by the series' periods
	Start    time.Time        `json:"start"`
	End      time.Time        `json:"end"` // [Start, End), minute-aligned
	Duration gpucost.Duration `json:"duration_s"`
	GPUHours float64          `json:"gpu_hours"` // Duration in hours times the series' share of its GPU (MIGShare)
	Cost     gpucost.Money    `json:"cost"`      // price × GPU-hours, rounded once to the nano-unit; zero when unpriced
	Priced   bool             `json:"priced"`
	Open     bool             `json:"open"` // the period lasted to the end of the series' data, so it may go on
}

// IdleReport is what an Idle analysis found.
type IdleReport struct {
	MinIdle  gpucost.Duration `json:"min_idle_s"`
	Periods  []IdlePeriod     `json:"periods"`  // by series, then start
	Patterns []IdlePattern    `json:"patterns"` // one per series that had idle minutes, in the order series came

	GPUHours float64       `json:"gpu_hours"` // of all periods
	Cost     gpucost.Money `json:"cost"`      // of the priced periods
	Currency string        `json:"currency"`  // of Cost; empty when nothing was priced
	Unpriced int           `json:"unpriced"`  // periods without a price (or in another currency), not in Cost
	Outside  int           `json:"outside"`   // rollups left out because they start outside [From, To)
}

// Idle finds idle periods and the weekly pattern of idle minutes per series from a stream of
// rollups (hourly IdleMask bits give minute resolution). It keeps the periods it found and one
// IdlePattern per series. It is not safe for concurrent use.
type Idle struct {
	opts     Options
	period   period
	minIdle  int
	clock    *localClock
	cur      idleSeries
	run      idleRun
	rep      IdleReport
	patterns []*IdlePattern
}

// idleSeries is what Idle keeps of the series being streamed.
type idleSeries struct {
	ptr        *gpucost.Series
	uuid, host string
	series     *gpucost.Series // a copy, shared by the series' periods
	price      gpucost.Money
	priced     bool
	share      int64
	pattern    *IdlePattern
}

// NewIdle returns an empty idle analysis over opts (By is not used).
func NewIdle(opts Options) *Idle {
	d := &Idle{opts: opts, period: opts.period(), minIdle: int((opts.minIdle() + time.Minute - 1) / time.Minute),
		clock: newLocalClock(opts.Location)}
	d.rep.MinIdle = gpucost.Duration(opts.minIdle())
	d.run.emit, d.run.min = d.addPeriod, d.minIdle
	return d
}

// Add follows one rollup, hourly or minute. Rollups of a series must come together and in time
// order, as RollupStore.ScanRollups gives them; r is read only during the call.
func (d *Idle) Add(r *gpucost.Rollup) {
	if !d.period.contains(r.Start) {
		d.rep.Outside++
		return
	}
	if s := r.Series; s != d.cur.ptr || s.GPU.UUID != d.cur.uuid || s.GPU.Host != d.cur.host {
		d.startSeries(s)
	}
	covered, idle, n := slots(r)
	if TimeSliced(r.Series) {
		idle = 0 // a workload's small share of a GPU says nothing of whether the GPU sat idle
	}
	at := unixMinute(r.Start)
	d.cur.pattern.add(d.clock.local(at), covered, idle, n)
	d.run.feed(at, idle, n)
}

func (d *Idle) startSeries(s *gpucost.Series) {
	d.run.reset()
	d.cur = idleSeries{ptr: s, uuid: s.GPU.UUID, host: s.GPU.Host, share: int64(MIGShare(s.GPU))}
	copied := *s
	d.cur.series = &copied
	if d.opts.Price != nil {
		d.cur.price, d.cur.priced = d.opts.Price(s)
		if d.cur.priced && d.cur.price.Currency == "" {
			d.cur.price.Currency = "USD"
		}
	}
	d.cur.pattern = &IdlePattern{Series: d.cur.series}
	d.patterns = append(d.patterns, d.cur.pattern)
}

// addPeriod records a finished idle run of the current series when it is long enough.
func (d *Idle) addPeriod(start time.Time, minutes int, open bool) {
	if minutes < d.minIdle {
		return
	}
	units := int64(minutes) * d.cur.share
	p := IdlePeriod{Series: d.cur.series, Start: start, End: start.Add(time.Duration(minutes) * time.Minute),
		Duration: gpucost.Duration(time.Duration(minutes) * time.Minute), GPUHours: hours(units), Open: open}
	d.rep.GPUHours += p.GPUHours
	if d.cur.priced && (d.rep.Currency == "" || d.rep.Currency == d.cur.price.Currency) {
		if d.rep.Currency == "" {
			d.rep.Currency = d.cur.price.Currency
			d.rep.Cost.Currency = d.rep.Currency
		}
		p.Cost, p.Priced = costOf(d.cur.price, units), true
		d.rep.Cost = d.rep.Cost.Add(p.Cost)
	} else {
		d.rep.Unpriced++
	}
	d.rep.Periods = append(d.rep.Periods, p)
}

// Result ends the stream and returns the periods and patterns found.
func (d *Idle) Result() IdleReport {
	d.run.reset()
	d.cur = idleSeries{}
	rep := d.rep
	rep.Periods = append([]IdlePeriod(nil), d.rep.Periods...)
	rep.Patterns = nil
	for _, p := range d.patterns {
		if p.IdleMinutes() > 0 {
			rep.Patterns = append(rep.Patterns, *p)
		}
	}
	return rep
}
