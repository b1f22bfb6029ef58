package analyze

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/gpucost/gpucost"
)

// AlertState is whether an alert's condition still held at the end of the data, stopped
// holding, or could no longer be seen.
type AlertState string

// Alert states. Pending conditions, not yet true for the rule's duration, are not reported.
const (
	Firing      AlertState = "firing"
	Resolved    AlertState = "resolved" // the condition stopped holding while data came in
	AlertNoData AlertState = "no data"  // the data stopped for the rule's NoDataAfter: a dead agent is not all clear
)

// Staleness is how long after a series' last minute its alerts still count as firing at now:
// Prometheus' default lookback delta. A rule goes "no data" after the longer of it and its For.
const Staleness = 5 * time.Minute

// Alert is one episode of a rule's condition holding on one series for at least the rule's For.
type Alert struct {
	Rule     Rule             `json:"rule"`
	Series   gpucost.Series   `json:"series"`
	State    AlertState       `json:"state"`
	Start    time.Time        `json:"start"`    // the start of the first minute the condition held (Prometheus' activeAt)
	FiredAt  time.Time        `json:"fired_at"` // Start + Rule.For: when the alert began to fire
	End      time.Time        `json:"end"`      // the end of the last minute the condition held
	Duration gpucost.Duration `json:"duration_s"`
	Worst    float64          `json:"worst"`    // the value furthest past the threshold, in the metric's unit
	Mean     float64          `json:"mean"`     // the mean value over the episode
	Evidence string           `json:"evidence"` // what was seen, in a sentence
}

// AlertReport is what an alert evaluation found.
type AlertReport struct {
	Now     time.Time `json:"now"`
	Rules   []Rule    `json:"rules"`
	Alerts  []Alert   `json:"alerts"`  // firing first, then most severe, then earliest
	Series  int       `json:"series"`  // series evaluated
	Minutes int       `json:"minutes"` // minute rollups evaluated
	Skipped int       `json:"skipped"` // rollups left out: not one minute wide, or starting at or after now
	NoTDP   []string  `json:"no_tdp"`  // models without a known TDP, on which power rules were not evaluated
}

// AlertEvaluator evaluates alert rules over a stream of minute rollups with Prometheus-like `for`
// semantics. A rule's condition is checked on every minute; it becomes pending on the first
// minute it holds and fires once it has held for For, counted over whole minutes: a 30m rule
// fires after 30 consecutive minutes (Prometheus, which measures from the first to the latest
// evaluation, would need a 31st 1-minute evaluation). A minute where it fails resolves a firing
// alert and forgets a pending one. A minute without the rule's metric, or a gap in the minutes,
// forgets a pending condition but never resolves a firing alert: missing data is not the
// condition gone. The alert keeps firing through silence shorter than the rule's NoDataAfter
// and goes "no data" once the silence reaches it, whether the data comes back later or is
// still missing at now; a rule with AlertOnNoData also raises a "no data" alert for any series
// whose data stops that long (docs/architecture.md "Alert states"). It keeps state for the
// current series only. Not safe for concurrent use.
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
	seen       []int64 // per rule: the Unix minute after the last one with its metric; noMinute before
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
	e.cur.next = at + 1
	e.rep.Minutes++
	util := r.UtilMean()
	for i := range e.rules {
		rule, st := &e.rules[i], &e.states[i]
		v, ok := e.value(e.kinds[i], r)
		if !ok {
			e.forgetPending(i) // silence: a firing alert waits for data or NoDataAfter
			continue
		}
		if from := e.cur.seen[i]; from != noMinute && at != from {
			e.silence(i, minuteTime(from), minuteTime(at))
		}
		e.cur.seen[i] = at + 1
		switch {
		case !rule.holds(v, util):
			e.close(i)
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
	e.cur = alertSeries{ptr: s, uuid: s.GPU.UUID, host: s.GPU.Host, series: *s, next: noMinute, seen: e.cur.seen[:0]}
	for range e.rules {
		e.cur.seen = append(e.cur.seen, noMinute)
	}
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

// close ends rule i's episode because its condition failed: a fired one becomes a resolved
// alert.
func (e *AlertEvaluator) close(i int) {
	st := &e.states[i]
	if st.fired {
		e.emit(i, Resolved, "")
	}
	*st = ruleState{}
}

// forgetPending forgets rule i's episode unless it fired: a pending condition needs unbroken
// minutes.
func (e *AlertEvaluator) forgetPending(i int) {
	if st := &e.states[i]; !st.fired {
		*st = ruleState{}
	}
}

// silence handles rule i's data missing from from to to (the next minute with its metric, or
// now): a pending condition is forgotten; silence of NoDataAfter or more turns a firing alert
// "no data", or raises a "no data" alert where the rule has AlertOnNoData. It reports whether
// the silence reached NoDataAfter.
func (e *AlertEvaluator) silence(i int, from, to time.Time) bool {
	rule, st := &e.rules[i], &e.states[i]
	e.forgetPending(i)
	if to.Sub(from) <= rule.NoDataAfter() {
		return false
	}
	why := "no data since " + clock(from)
	if to.Before(e.now) {
		why = fmt.Sprintf("no data from %s to %s (%s)", clock(from), clock(to), formatDuration(to.Sub(from).Truncate(time.Minute)))
	}
	switch {
	case st.fired:
		e.emit(i, AlertNoData, why)
	case rule.AlertOnNoData:
		a := Alert{Rule: *rule, Series: e.cur.series, State: AlertNoData, Start: from, FiredAt: from.Add(rule.NoDataAfter()),
			End: to, Duration: gpucost.Duration(to.Sub(from))}
		a.Evidence = fmt.Sprintf("%s: %s, longer than the rule's %s", metricInfo[rule.Metric].label, why,
			formatDuration(rule.NoDataAfter()))
		e.rep.Alerts = append(e.rep.Alerts, a)
	}
	*st = ruleState{}
	return true
}

// endSeries reports the current series' alerts at now: a fired one still firing unless its
// data has been missing for NoDataAfter, then "no data"; and the "no data" alerts of rules
// with AlertOnNoData whose data stopped that long before now.
func (e *AlertEvaluator) endSeries() {
	if e.cur.ptr == nil {
		return
	}
	for i := range e.states {
		if from := e.cur.seen[i]; from != noMinute && e.silence(i, minuteTime(from), e.now) {
			continue
		}
		if st := &e.states[i]; st.fired {
			why := ""
			if end := minuteTime(e.cur.seen[i]); e.now.Sub(end) > Staleness {
				why = "no data since " + clock(end)
			}
			e.emit(i, Firing, why)
		}
		e.states[i] = ruleState{}
	}
	e.cur = alertSeries{seen: e.cur.seen}
}

func (e *AlertEvaluator) emit(i int, state AlertState, why string) {
	rule, st := e.rules[i], e.states[i]
	start, end := minuteTime(st.start), minuteTime(st.end)
	a := Alert{Rule: rule, Series: e.cur.series, State: state, Start: start, FiredAt: start.Add(rule.For),
		End: end, Duration: gpucost.Duration(end.Sub(start)), Worst: st.worst, Mean: st.sum / float64(st.n)}
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
	s += fmt.Sprintf(" for %s, from %s to %s: mean %.1f%s, worst %.1f%s", formatDuration(a.Duration.D()),
		clock(a.Start), clock(a.End), a.Mean, info.unit, a.Worst, info.unit)
	switch {
	case a.State == Firing && why != "":
		return s + "; still true at the last minute of data, " + why
	case a.State == Firing:
		return s + "; still true at the last minute of data"
	case why != "":
		return s + "; then " + why
	}
	return s
}

// minuteTime returns the start of Unix minute m, in UTC.
func minuteTime(m int64) time.Time { return time.Unix(m*60, 0).UTC() }

// clock formats t in UTC to the minute.
func clock(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

// rank orders states in a report: firing, no data, resolved.
func (s AlertState) rank() int {
	switch s {
	case Firing:
		return 0
	case AlertNoData:
		return 1
	}
	return 2
}

// Result ends the stream and returns the alerts found: firing first, then no data, then
// resolved; within each the most severe, then the earliest.
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
			return cmp.Compare(a.State.rank(), b.State.rank())
		}
		if c := cmp.Compare(b.Rule.Severity.rank(), a.Rule.Severity.rank()); c != 0 {
			return c
		}
		return a.Start.Compare(b.Start)
	})
	return rep
}
