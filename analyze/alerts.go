package analyze

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/gpucost/gpucost"
)

// AlertState is whether an alert's condition still held at the end of the data.
type AlertState string

// Alert states. Pending conditions, not yet true for the rule's duration, are not reported.
const (
	Firing   AlertState = "firing"
	Resolved AlertState = "resolved"
)

// Staleness is how long after a series' last minute its alerts still count as firing at now:
// Prometheus' default lookback delta. A series silent for longer has its alerts resolved.
const Staleness = 5 * time.Minute

// Alert is one episode of a rule's condition holding on one series for at least the rule's For.
type Alert struct {
	Rule     Rule
	Series   gpucost.Series
	State    AlertState
	Start    time.Time // the start of the first minute the condition held (Prometheus' activeAt)
	FiredAt  time.Time // Start + Rule.For: when the alert began to fire
	End      time.Time // the end of the last minute the condition held
	Duration time.Duration
	Worst    float64 // the value furthest past the threshold, in the metric's unit
	Mean     float64 // the mean value over the episode
	Evidence string  // what was seen, in a sentence
}

// AlertReport is what an alert evaluation found.
type AlertReport struct {
	Now     time.Time
	Rules   []Rule
	Alerts  []Alert  // firing first, then most severe, then earliest
	Series  int      // series evaluated
	Minutes int      // minute rollups evaluated
	Skipped int      // rollups left out: not one minute wide, or starting at or after now
	NoTDP   []string // models without a known TDP, on which power rules were not evaluated
}

// AlertEvaluator evaluates alert rules over a stream of minute rollups with Prometheus-like `for`
// semantics. A rule's condition is checked on every minute; it becomes pending on the first
// minute it holds and fires once it has held for For, counted over whole minutes: a 30m rule
// fires after 30 consecutive minutes (Prometheus, which measures from the first to the latest
// evaluation, would need a 31st 1-minute evaluation). A minute where it fails, where the metric
// is absent, or a gap in the minutes ends the episode: a pending condition is forgotten and a
// firing alert is resolved. It keeps state for the current series only. Not safe for concurrent use.
type AlertEvaluator struct {
	rules  []Rule
	kinds  []metricKind // rules[i].Metric, resolved once
	now    time.Time
	tdp    func(model string) (float64, bool)
	cur    alertSeries
	states []ruleState
	rep    AlertReport
	noTDP  map[string]bool
}

// alertSeries is what the evaluator keeps of the series being streamed.
type alertSeries struct {
	ptr        *gpucost.Series
	uuid, host string
	series     gpucost.Series
	tdpW       float64 // 0 when unknown
	next       int64   // the Unix minute after the last one seen
}

// ruleState is one rule's episode on the current series; times are Unix minutes.
type ruleState struct {
	active, fired bool
	start, end    int64
	worst, sum    float64
	n             int
}

// EvaluateAlerts returns an evaluator of rules at time now: rollups that start at or after now
// are left out, and a condition still true at the end of a series' data fires if that data
// reaches within Staleness of now. tdp returns a model's board power in watts; power rules are
// not evaluated where it is nil or does not know the model. It fails if a rule is malformed.
func EvaluateAlerts(rules []Rule, now time.Time, tdp func(model string) (float64, bool)) (*AlertEvaluator, error) {
	seen := map[string]bool{}
	for _, r := range rules {
		if err := r.check(); err != nil {
			return nil, fmt.Errorf("evaluate alerts: %w", err)
		}
		if seen[r.Name] {
			return nil, gpucost.Errorf(gpucost.EInvalid, "evaluate alerts: rule %s is given twice", r.Name)
		}
		seen[r.Name] = true
	}
	e := &AlertEvaluator{rules: slices.Clone(rules), now: now, tdp: tdp,
		states: make([]ruleState, len(rules)), noTDP: map[string]bool{}}
	for _, r := range rules {
		e.kinds = append(e.kinds, metricKinds[r.Metric])
	}
	e.rep.Now, e.rep.Rules = now, e.rules
	return e, nil
}

// Add evaluates the rules on one minute rollup. Rollups of a series must come together and in
// time order, as RollupStore.ScanRollups gives them; r is read only during the call.
func (e *AlertEvaluator) Add(r *gpucost.Rollup) {
	if r.Width != time.Minute || !r.Start.Before(e.now) {
		e.rep.Skipped++
		return
	}
	if s := r.Series; s != e.cur.ptr || s.GPU.UUID != e.cur.uuid || s.GPU.Host != e.cur.host {
		e.endSeries()
		e.startSeries(s)
	}
	at := unixMinute(r.Start)
	if at != e.cur.next {
		e.closeAll(func() string { return "a gap in the data at " + clock(minuteTime(e.cur.next)) })
	}
	e.cur.next = at + 1
	e.rep.Minutes++
	util := r.UtilMean()
	for i := range e.rules {
		rule, st := &e.rules[i], &e.states[i]
		v, ok := e.value(e.kinds[i], r)
		switch {
		case !ok:
			e.close(i, func() string { return "no " + metricInfo[rule.Metric].label + " at " + clock(r.Start) })
		case !rule.holds(v, util):
			e.close(i, nil)
		default:
			st.observe(rule, at, v)
			if !st.fired && time.Duration(st.end-st.start)*time.Minute >= rule.For {
				st.fired = true
			}
		}
	}
}

func (e *AlertEvaluator) startSeries(s *gpucost.Series) {
	e.rep.Series++
	e.cur = alertSeries{ptr: s, uuid: s.GPU.UUID, host: s.GPU.Host, series: *s, next: noMinute}
	if e.tdp != nil {
		if w, ok := e.tdp(s.GPU.Model); ok && w > 0 {
			e.cur.tdpW = w
			return
		}
	}
	for _, r := range e.rules {
		if r.Metric == MetricPower {
			e.noTDP[s.GPU.Model] = true
		}
	}
}

// metricKind is a Metric resolved to a number, so the per-minute switch compares no strings.
type metricKind int

const (
	kindUnknown metricKind = iota
	kindUtil
	kindUtilMax
	kindMemUsed
	kindTemp
	kindPower
	kindSMOccupancy
)

var metricKinds = map[Metric]metricKind{MetricUtil: kindUtil, MetricUtilMax: kindUtilMax, MetricMemUsed: kindMemUsed,
	MetricTemp: kindTemp, MetricPower: kindPower, MetricSMOccupancy: kindSMOccupancy}

// value reads a metric from minute rollup r; false when r lacks it.
func (e *AlertEvaluator) value(k metricKind, r *gpucost.Rollup) (float64, bool) {
	var v float64
	switch k {
	case kindUtil:
		v = r.UtilMean()
	case kindUtilMax:
		v = nanIf(r.Samples == 0, r.UtilMax)
	case kindMemUsed:
		v = nanIf(!(r.MemTotalMiB > 0), r.MemMaxMiB/r.MemTotalMiB*100)
	case kindTemp:
		v = r.TempMaxC
	case kindPower:
		v = nanIf(e.cur.tdpW == 0, r.PowerMean()/e.cur.tdpW*100)
	case kindSMOccupancy:
		v = r.SMOccupancyMean() * 100
	default:
		return 0, false
	}
	return v, v == v
}

func nanIf(absent bool, v float64) float64 {
	if absent {
		return nan
	}
	return v
}

// observe extends the episode with the minute starting at Unix minute at and value v.
func (st *ruleState) observe(rule *Rule, at int64, v float64) {
	if !st.active {
		*st = ruleState{active: true, start: at, worst: v}
	}
	st.end = at + 1
	st.sum += v
	st.n++
	if rule.worse(v, st.worst) {
		st.worst = v
	}
}

// close ends rule i's episode; a fired one becomes a resolved alert, why saying what ended it
// when not the condition itself (it is called only then, so the message costs nothing otherwise).
func (e *AlertEvaluator) close(i int, why func() string) {
	st := &e.states[i]
	if !st.active {
		return
	}
	if st.fired {
		reason := ""
		if why != nil {
			reason = why()
		}
		e.emit(i, Resolved, reason)
	}
	*st = ruleState{}
}

func (e *AlertEvaluator) closeAll(why func() string) {
	for i := range e.states {
		e.close(i, why)
	}
}

// endSeries reports the current series' alerts that still hold: firing if its data reaches
// within Staleness of now, else resolved where the data stopped.
func (e *AlertEvaluator) endSeries() {
	if e.cur.ptr == nil {
		return
	}
	for i := range e.states {
		st := &e.states[i]
		if !st.fired {
			*st = ruleState{}
			continue
		}
		if end := minuteTime(e.cur.next); e.now.Sub(end) <= Staleness {
			e.emit(i, Firing, "")
		} else {
			e.emit(i, Resolved, "the data stopped at "+clock(end))
		}
		*st = ruleState{}
	}
	e.cur = alertSeries{}
}

func (e *AlertEvaluator) emit(i int, state AlertState, why string) {
	rule, st := e.rules[i], e.states[i]
	start, end := minuteTime(st.start), minuteTime(st.end)
	a := Alert{Rule: rule, Series: e.cur.series, State: state, Start: start, FiredAt: start.Add(rule.For),
		End: end, Duration: end.Sub(start), Worst: st.worst, Mean: st.sum / float64(st.n)}
	a.Evidence = evidence(a, e.cur.tdpW, why)
	e.rep.Alerts = append(e.rep.Alerts, a)
}

// evidence says what was seen: "GPU util (1-min mean) below 40% for 2h15m, from 2025-01-06
// 19:00 to 21:15 UTC: mean 3.2%, worst 0%; still true at the last minute of data".
func evidence(a Alert, tdpW float64, why string) string {
	info := metricInfo[a.Rule.Metric]
	dir := "below"
	if a.Rule.Above {
		dir = "above"
	}
	s := fmt.Sprintf("%s %s %s%s", info.label, dir, formatFloat(a.Rule.Threshold), info.unit)
	if a.Rule.Metric == MetricPower {
		s += fmt.Sprintf(" (%s W)", formatFloat(tdpW))
	}
	if a.Rule.MinUtil > 0 {
		s += fmt.Sprintf(" while GPU util ≥ %s%%", formatFloat(a.Rule.MinUtil))
	}
	s += fmt.Sprintf(" for %s, from %s to %s: mean %.1f%s, worst %.1f%s", formatDuration(a.Duration),
		clock(a.Start), clock(a.End), a.Mean, info.unit, a.Worst, info.unit)
	switch {
	case a.State == Firing:
		return s + "; still true at the last minute of data"
	case why != "":
		return s + "; ended by " + why
	}
	return s
}

// minuteTime returns the start of Unix minute m, in UTC.
func minuteTime(m int64) time.Time { return time.Unix(m*60, 0).UTC() }

// clock formats t in UTC to the minute.
func clock(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

// Result ends the stream and returns the alerts found: firing first, then the most severe, then
// the earliest.
func (e *AlertEvaluator) Result() AlertReport {
	e.endSeries()
	rep := e.rep
	rep.Alerts = slices.Clone(e.rep.Alerts)
	rep.NoTDP = nil
	for m := range e.noTDP {
		rep.NoTDP = append(rep.NoTDP, m)
	}
	slices.Sort(rep.NoTDP)
	slices.SortStableFunc(rep.Alerts, func(a, b Alert) int {
		if a.State != b.State {
			if a.State == Firing {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(b.Rule.Severity.rank(), a.Rule.Severity.rank()); c != 0 {
			return c
		}
		return a.Start.Compare(b.Start)
	})
	return rep
}
