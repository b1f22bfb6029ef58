package spotrisk

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/spot"
)

// InterruptionRule is the alert rule on a pool's interruptions over a recent window: it fires
// when, over the Window before now, the pool's spot runs were interrupted at least
// MinInterruptions times at a rate whose expected interruptions per instance over a Window
// (rate × Window) reach Threshold: 25% in 6 hours by default (docs/architecture.md "Spot risk").
type InterruptionRule struct {
	Window           time.Duration
	Threshold        float64 // expected interruptions per instance over Window, 0.25 for 25%
	MinInterruptions int     // fewer never fire, however short the exposure
}

// DefaultInterruptionRule is 25% in 6 hours, at least 2 interruptions.
var DefaultInterruptionRule = InterruptionRule{Window: 6 * time.Hour, Threshold: 0.25, MinInterruptions: 2}

// InterruptionAlert is a pool whose interruptions crossed the rule, the jobs it hit, and where
// to move: pools of the same instance type measured or rated lower.
type InterruptionAlert struct {
	Pool          Pool
	Jobs          []string
	From, To      time.Time
	Interruptions int
	Since         time.Time // the episode's first interruption (EpisodeStart): what Key names
	Hours         float64   // instance-hours in the window
	PerHour       float64
	Low, High     float64 // Garwood interval of PerHour
	MoveTo        []Move
}

// Move is a pool to move to: its rate and where it came from, and its spot price where known.
type Move struct {
	Pool    Pool
	PerHour float64
	Why     string
}

// Key names the alert for the delivery log: the pool and its episode's first interruption, so
// one episode is sent once per target however often it is checked while it lasts.
func (a InterruptionAlert) Key() string {
	return "spot-interruptions:" + a.Pool.String() + ":" + a.Since.UTC().Format(time.RFC3339)
}

// CheckInterruptions evaluates rule at now over the events of each job (job name → events):
// each spot run's instance-hours inside the window and its interruption (its terminate notice,
// or the last event of a run that vanished without an exit) when that falls inside it. Pools
// that fire come back worst rate first, each with the pools of its instance type to move to:
// measured over all the events at a lower rate, or in the advisor's two lowest buckets.
func CheckInterruptions(jobs map[string][]spot.Event, now time.Time, rule InterruptionRule, adv *catalog.SpotAdvisor) []InterruptionAlert {
	from := now.Add(-rule.Window)
	type acc struct {
		hours float64
		k     int
		jobs  []string
	}
	byPool := map[Pool]*acc{}
	hits := map[Pool][]time.Time{} // every interruption up to now, for the episode's start
	var all []Exposure
	for _, job := range slices.Sorted(maps.Keys(jobs)) {
		all = append(all, FromEvents(job, jobs[job])...)
		for _, run := range groupRuns(jobs[job]) {
			pool, isSpot := runPool(run)
			if !isSpot {
				continue
			}
			start, end := run[0].Time, run[len(run)-1].Time
			hours := max(0, minTime(end, now).Sub(maxTime(start, from)).Hours())
			at, interrupted := interruption(run)
			if interrupted && !at.After(now) {
				hits[pool] = append(hits[pool], at)
			}
			hit := interrupted && !at.Before(from) && !at.After(now)
			if hours == 0 && !hit {
				continue
			}
			a := byPool[pool]
			if a == nil {
				a = &acc{}
				byPool[pool] = a
			}
			a.hours += hours
			if hit {
				a.k++
			}
			if !slices.Contains(a.jobs, job) {
				a.jobs = append(a.jobs, job)
			}
		}
	}
	rates := Measure(all, DefaultConfidence)
	var out []InterruptionAlert
	for pool, a := range byPool {
		if a.k < rule.MinInterruptions || a.hours <= 0 {
			continue
		}
		rate := float64(a.k) / a.hours
		if rate*rule.Window.Hours() < rule.Threshold {
			continue
		}
		lo, hi := Garwood(a.k, a.hours, DefaultConfidence)
		out = append(out, InterruptionAlert{Pool: pool, Jobs: a.jobs, From: from, To: now, Interruptions: a.k,
			Since: EpisodeStart(hits[pool], now, rule.Window), Hours: a.hours,
			PerHour: rate, Low: lo, High: hi, MoveTo: movesFrom(pool, rate, rates, adv)})
	}
	slices.SortFunc(out, func(a, b InterruptionAlert) int {
		return cmp.Or(cmp.Compare(b.PerHour, a.PerHour), comparePools(a.Pool, b.Pool))
	})
	return out
}

// movesFrom lists the pools of pool's instance type to move to: measured with the upper bound of
// their rate below rate, or in the advisor's two lowest buckets; lowest rate first (a pool
// without interruptions by its upper bound), at most 3.
func movesFrom(pool Pool, rate float64, rates []Rate, adv *catalog.SpotAdvisor) []Move {
	var moves []Move
	seen := map[Pool]bool{pool: true}
	for _, r := range rates {
		if r.Pool.InstanceType != pool.InstanceType || seen[r.Pool] || r.High >= rate {
			continue
		}
		seen[r.Pool] = true
		m := Move{Pool: r.Pool, PerHour: r.PerHour, Why: fmt.Sprintf("measured %d interruptions in %.1f instance-hours", r.Interruptions, r.Hours)}
		if r.Interruptions == 0 { // no interruption is not a rate of zero: rank by the upper bound
			m.PerHour, m.Why = r.High, m.Why+fmt.Sprintf(", at most %s", FormatRate(r.High))
		}
		moves = append(moves, m)
	}
	if adv != nil {
		for _, region := range slices.Sorted(maps.Keys(adv.Regions)) {
			b, s, ok := adv.Lookup(region, pool.InstanceType)
			p := Pool{Provider: pool.Provider, InstanceType: pool.InstanceType, Region: region}
			if !ok || b.Open || slices.Index(adv.Buckets, b) > 1 || seen[p] || b.PerHour() >= rate {
				continue
			}
			moves = append(moves, Move{Pool: p, PerHour: b.PerHour(), Why: fmt.Sprintf("advisor bucket %s, spot −%d%%", b.Label, s)})
		}
	}
	slices.SortStableFunc(moves, func(a, b Move) int { return cmp.Compare(a.PerHour, b.PerHour) })
	return moves[:min(len(moves), 3)]
}

// interruption returns when a run was interrupted: its first terminate notice, or, for a run
// that vanished without an exit, its last event.
func interruption(run []spot.Event) (time.Time, bool) {
	exited := false
	for _, ev := range run {
		if ev.Kind == spot.EventNotice && ev.NoticeKind == "terminate" {
			return ev.Time, true
		}
		exited = exited || ev.Kind == spot.EventExit
	}
	if !exited {
		return run[len(run)-1].Time, true
	}
	return time.Time{}, false
}

// groupRuns splits a job's events by run, each run in time order, runs in the order they began.
func groupRuns(events []spot.Event) [][]spot.Event {
	events = slices.Clone(events)
	slices.SortStableFunc(events, func(a, b spot.Event) int { return a.Time.Compare(b.Time) })
	index := map[string]int{}
	var runs [][]spot.Event
	for _, ev := range events {
		i, ok := index[ev.Run]
		if !ok {
			i = len(runs)
			index[ev.Run] = i
			runs = append(runs, nil)
		}
		runs[i] = append(runs[i], ev)
	}
	return runs
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
