package spotrisk

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/spot"
)

// Pool is where a spot instance runs: AWS calls each instance type in each zone a capacity pool.
type Pool struct {
	Provider     string `json:"provider"`
	InstanceType string `json:"instance_type"`
	Region       string `json:"region"`
	Zone         string `json:"zone,omitempty"`
}

func (p Pool) String() string {
	s := p.InstanceType + " " + p.Region
	if p.Zone != "" {
		s += "/" + p.Zone
	}
	if p.Provider != "" {
		s = p.Provider + " " + s
	}
	return s
}

func comparePools(a, b Pool) int {
	return cmp.Or(cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.InstanceType, b.InstanceType),
		cmp.Compare(a.Region, b.Region), cmp.Compare(a.Zone, b.Zone))
}

// Exposure is the time spot instances of one pool ran and how often they were interrupted: one
// runner process of gpucost run, or one spot instance of the bill (Source FromBill: no prices,
// productive time or price trend; Ends its ends before the bill stops), or several summed.
type Exposure struct {
	Pool          Pool          `json:"pool"`
	Source        string        `json:"-"` // FromRuns or FromBill
	Hours         float64       `json:"instance_hours"`
	Interruptions int           `json:"interruptions"`
	Ends          int           `json:"-"` // FromBill: the instance's ends the bill shows
	Resources     int           `json:"-"` // FromBill: the instances
	Productive    time.Duration `json:"-"`
	Billable      time.Duration `json:"-"`
	Cost          gpucost.Money `json:"cost"`      // at the prices the runs recorded
	OnDemand      gpucost.Money `json:"on_demand"` // the productive time at the on-demand price
	Priced        bool          `json:"priced"`    // every run had a spot and an on-demand price
	// FirstPrice and LastPrice are the spot price the earliest and the latest run recorded, at
	// FirstAt and LastAt: the pool's price trend.
	FirstPrice gpucost.Money `json:"first_price"`
	LastPrice  gpucost.Money `json:"last_price"`
	FirstAt    time.Time     `json:"first_at"`
	LastAt     time.Time     `json:"last_at"`
}

// Trend is the change of the pool's spot price from its first run to its last, as a fraction of
// the first; false when fewer than two prices are known or they are in different currencies.
func (e Exposure) Trend() (float64, bool) {
	if e.FirstPrice.Nanos == 0 || e.FirstAt.Equal(e.LastAt) || e.FirstPrice.Currency != e.LastPrice.Currency {
		return 0, false
	}
	return float64(e.LastPrice.Nanos-e.FirstPrice.Nanos) / float64(e.FirstPrice.Nanos), true
}

// FromEvents returns the exposure of each spot run in job's events (runs on on-demand machines
// are left out): its billable time, first event to last, and its interruptions as
// spot.Summarize counts them (a terminate notice, or a run that vanished without an exit).
// The cost and on-demand figures are Summarize's, so the saving already pays for the measured
// checkpoint overhead: syncs, lost work and restarts take billable time that is not productive.
func FromEvents(job string, events []spot.Event) []Exposure {
	runs := map[string][]spot.Event{}
	var order []string
	for _, ev := range events {
		if _, ok := runs[ev.Run]; !ok {
			order = append(order, ev.Run)
		}
		runs[ev.Run] = append(runs[ev.Run], ev)
	}
	var out []Exposure
	for _, id := range order {
		run := runs[id]
		pool, isSpot := runPool(run)
		if !isSpot {
			continue
		}
		rep := spot.Summarize(job, run)
		e := Exposure{Pool: pool, Source: FromRuns, Hours: rep.Billable.Hours(), Interruptions: rep.Interruptions,
			Productive: rep.Productive, Billable: rep.Billable, Cost: rep.Cost, OnDemand: rep.OnDemand,
			Priced: rep.Priced && rep.HasOnDemand}
		for _, ev := range run {
			if p, ok, _, _ := ev.Prices(); ok {
				e.FirstPrice, e.LastPrice, e.FirstAt, e.LastAt = p, p, ev.Time, ev.Time
				break
			}
		}
		out = append(out, e)
	}
	return out
}

// runPool returns the pool of a run's machine, from the first event that names an instance type.
func runPool(run []spot.Event) (Pool, bool) {
	for _, ev := range run {
		if ev.InstanceType != "" {
			return Pool{Provider: ev.Cloud, InstanceType: ev.InstanceType, Region: ev.Region, Zone: ev.Zone}, ev.Spot
		}
	}
	return Pool{}, false
}

// Rate is a pool's measured interruption rate: interruptions per instance-hour, with its exact
// Poisson confidence interval (Garwood), over the runs' and the bill's exposure together.
type Rate struct {
	Exposure
	Runs int `json:"runs"`
	// RunHours and RunInterruptions are the runs' part; BillHours, BillInterruptions the
	// bill's, whose BillEnds (every end of a BillResources instance before the bill stops)
	// bound the bill's interruptions from above.
	RunHours          float64 `json:"run_instance_hours"`
	RunInterruptions  int     `json:"run_interruptions"`
	BillHours         float64 `json:"bill_instance_hours"`
	BillInterruptions int     `json:"bill_interruptions"`
	BillEnds          int     `json:"bill_ends"`
	BillResources     int     `json:"bill_instances"`
	PerHour           float64 `json:"per_hour"`
	Low               float64 `json:"low_per_hour"`
	High              float64 `json:"high_per_hour"`
	Confidence        float64 `json:"confidence"`
	// Overhead is (billable − productive) / productive: the extra machine time each hour of kept
	// training cost in checkpoints, restarts and lost work.
	Overhead float64 `json:"overhead"`
	// Saving is OnDemand − Cost, when Priced.
	Saving gpucost.Money `json:"saving"`
}

// Measure sums exposures by pool and returns each pool's rate at confidence conf, pools in
// order of provider, instance type, region and zone. The bill's exposures add instance-hours
// and interruptions only: cost, saving and overhead are the runs', and a pool the bill alone
// shows is not Priced.
func Measure(exps []Exposure, conf float64) []Rate {
	byPool := map[Pool]*Rate{}
	for _, e := range exps {
		r := byPool[e.Pool]
		if r == nil {
			r = &Rate{Exposure: Exposure{Pool: e.Pool, Priced: true}}
			byPool[e.Pool] = r
		}
		r.Hours += e.Hours
		r.Interruptions += e.Interruptions
		if e.Source == FromBill {
			r.BillHours += e.Hours
			r.BillInterruptions += e.Interruptions
			r.BillEnds += e.Ends
			r.BillResources += e.Resources
			continue
		}
		r.Runs++
		r.RunHours += e.Hours
		r.RunInterruptions += e.Interruptions
		r.Productive += e.Productive
		r.Billable += e.Billable
		r.Priced = r.Priced && e.Priced
		if !e.FirstAt.IsZero() && (r.FirstAt.IsZero() || e.FirstAt.Before(r.FirstAt)) {
			r.FirstPrice, r.FirstAt = e.FirstPrice, e.FirstAt
		}
		if !e.LastAt.IsZero() && e.LastAt.After(r.LastAt) {
			r.LastPrice, r.LastAt = e.LastPrice, e.LastAt
		}
		if e.Priced {
			r.Cost = addMoney(r.Cost, e.Cost)
			r.OnDemand = addMoney(r.OnDemand, e.OnDemand)
		}
	}
	out := make([]Rate, 0, len(byPool))
	for _, r := range byPool {
		if r.Hours > 0 {
			r.PerHour = float64(r.Interruptions) / r.Hours
		}
		r.Low, r.High = Garwood(r.Interruptions, r.Hours, conf)
		r.Confidence = conf
		r.Priced = r.Priced && r.Runs > 0
		switch {
		case r.Runs == 0:
			r.Source = FromBill
		case r.BillResources == 0:
			r.Source = FromRuns
		default:
			r.Source = FromRuns + " + " + FromBill
		}
		if r.Productive > 0 {
			r.Overhead = float64(r.Billable-r.Productive) / float64(r.Productive)
		}
		if r.Cost.Currency != "" && r.Cost.Currency == r.OnDemand.Currency {
			r.Saving = r.OnDemand.Sub(r.Cost)
		}
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b Rate) int { return comparePools(a.Pool, b.Pool) })
	return out
}

func addMoney(a, b gpucost.Money) gpucost.Money {
	if a.Currency == "" && a.Nanos == 0 {
		return b
	}
	return a.Add(b)
}

// Sources of a resolved rate.
const (
	SourceMeasured = "measured"
	SourceUpper    = "measured upper bound"
	SourceAdvisor  = "advisor"
)

// Resolved is the interruption rate a planner uses for a pool and where it came from.
type Resolved struct {
	PerHour float64
	Source  string // SourceMeasured, SourceUpper or SourceAdvisor
	Why     string // a sentence for people
}

// Resolve picks the rate of pool: the measured rate where its runs or the bill saw
// interruptions; else the advisor's bucket for the pool's region and instance type; else, where
// they saw none, the upper end of the measured interval (no interruption in a short exposure is
// not a rate of zero). A measured rate matches pool's zone when pool names one (a zone name and
// a zone ID through zones), else the pool's measurement summed over zones; where pool's zone
// and the measured ones are a zone ID and names zones cannot match, the region's measurement is
// used and the sentence says "zone unmatched". It returns false when nothing is known of the
// pool.
func Resolve(pool Pool, rates []Rate, adv *catalog.SpotAdvisor, zones *Zones) (Resolved, bool) {
	m, measured, unmatched := measuredFor(pool, rates, zones)
	where := pool.String()
	if len(unmatched) > 0 {
		where += " (" + unmatchedNote(pool.Zone, unmatched) + "; measured over the region's zones)"
	}
	if measured && m.Interruptions > 0 {
		return Resolved{PerHour: m.PerHour, Source: SourceMeasured,
			Why: fmt.Sprintf("measured on %s: %d interruptions in %.1f instance-hours (%.0f%% interval %s–%s%s)",
				where, m.Interruptions, m.Hours, 100*m.Confidence, FormatRate(m.Low), FormatRate(m.High), sourceNote(m))}, true
	}
	if b, _, ok := adv.Lookup(pool.Region, pool.InstanceType); ok {
		lo, hi := b.RangePerHour()
		rng := FormatRate(lo) + "–" + FormatRate(hi)
		if b.Open {
			rng = "at least " + FormatRate(lo)
		}
		return Resolved{PerHour: b.PerHour(), Source: SourceAdvisor,
			Why: fmt.Sprintf("Spot Instance Advisor bucket %s a month for %s in %s (%s)", b.Label, pool.InstanceType, pool.Region, rng)}, true
	}
	if measured && m.High > 0 {
		return Resolved{PerHour: m.High, Source: SourceUpper,
			Why: fmt.Sprintf("no interruption in %.1f instance-hours on %s: the %.0f%% upper bound%s", m.Hours, where, 100*m.Confidence, sourceNote(m))}, true
	}
	return Resolved{}, false
}

// sourceNote says what of a measurement came from the bill, when some did.
func sourceNote(m Rate) string {
	if m.BillResources == 0 {
		return ""
	}
	return fmt.Sprintf("; from the bill %d of %d interruptions in %.1f instance-hours, at most %d",
		m.BillInterruptions, m.Interruptions, m.BillHours, m.RunInterruptions+m.BillEnds)
}

// measuredFor returns the measurement of pool from rates: the zone's, or all zones' summed when
// pool names no zone. Where pool's zone matches none of the measured zones of its region but
// some cannot be matched (ZoneUnmatched), it returns the region's measurement and those zones.
func measuredFor(pool Pool, rates []Rate, zones *Zones) (Rate, bool, []string) {
	var exps, region []Exposure
	var unmatched []string
	conf := DefaultConfidence
	for _, r := range rates {
		p := r.Pool
		if p.InstanceType != pool.InstanceType || p.Region != pool.Region || (pool.Provider != "" && p.Provider != pool.Provider) {
			continue
		}
		conf = r.Confidence
		for _, part := range splitRate(r) {
			part.Pool = pool
			region = append(region, part)
		}
		if pool.Zone != "" {
			if p.Zone == "" {
				continue
			}
			if m := zones.Match(p.Zone, pool.Zone); m != ZoneSame {
				if m == ZoneUnmatched {
					unmatched = append(unmatched, p.Zone)
				}
				continue
			}
		}
		for _, part := range splitRate(r) {
			part.Pool = pool
			exps = append(exps, part)
		}
	}
	switch {
	case len(exps) > 0:
		return Measure(exps, conf)[0], true, nil
	case len(unmatched) > 0:
		return Measure(region, conf)[0], true, unmatched
	}
	return Rate{}, false, nil
}

// splitRate gives back a measured rate as the exposures it summed, its runs' and its bill's, so
// that Measure can sum it with others.
func splitRate(r Rate) []Exposure {
	var out []Exposure
	if r.Runs > 0 || r.BillResources == 0 {
		e := r.Exposure
		e.Source, e.Hours, e.Interruptions, e.Ends, e.Resources = FromRuns, r.RunHours, r.RunInterruptions, 0, 0
		if r.RunHours == 0 && r.BillHours == 0 { // a Rate built by hand, without its parts
			e.Hours, e.Interruptions = r.Hours, r.Interruptions
		}
		out = append(out, e)
	}
	if r.BillResources > 0 {
		out = append(out, Exposure{Pool: r.Pool, Source: FromBill, Hours: r.BillHours, Interruptions: r.BillInterruptions,
			Ends: r.BillEnds, Resources: r.BillResources})
	}
	return out
}

// FormatRate writes a rate per instance-hour as people read it: "2.5%/h".
func FormatRate(perHour float64) string {
	return fmt.Sprintf("%.3g%%/h", 100*perHour)
}
