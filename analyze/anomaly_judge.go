package analyze

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// Anomaly is one day on which a scope cost more than its baseline allows.
type Anomaly struct {
	Scope    string    `json:"scope"`
	Day      time.Time `json:"day"`      // midnight UTC
	Currency string    `json:"currency"` // of every amount below

	Cost     gpucost.Money `json:"cost"`     // the scope's cost that day
	Baseline gpucost.Money `json:"baseline"` // the median daily cost of the baseline days
	MAD      gpucost.Money `json:"mad"`      // their median absolute deviation from Baseline, unscaled and unfloored

	// MADBar is the robust rule's bar, Baseline + K·σ; QuantileBar is the window's Quantile
	// cost, the quantile rule's bar. Threshold is the lower bar of the rules that fired, and
	// Excess = Cost − Threshold, at least MinDelta.
	MADBar      gpucost.Money `json:"mad_bar"`
	QuantileBar gpucost.Money `json:"quantile_bar"`
	Threshold   gpucost.Money `json:"threshold"`
	Excess      gpucost.Money `json:"excess"`

	// Score is (Cost − Baseline) / σ, σ = max(1.4826·MAD, MADFloor·|Baseline|, one cent): how
	// many standard deviations above normal the day was.
	Score float64 `json:"score"`

	Rules        []string `json:"rules"`         // the rules that fired: RuleMAD, then the quantile rule ("p95")
	BaselineDays int      `json:"baseline_days"` // how many days the baseline holds
	Drivers      []Driver `json:"drivers"`       // the pairs whose cost rose most, largest Delta first
}

// Driver is a resource+SKU pair whose cost rose on an anomaly's day.
type Driver struct {
	ResourceID string        `json:"resource_id"`
	SkuID      string        `json:"sku_id"`
	Cost       gpucost.Money `json:"cost"`     // the pair's cost that day
	Baseline   gpucost.Money `json:"baseline"` // its median daily cost over the anomaly's baseline days, absent days 0
	Delta      gpucost.Money `json:"delta"`    // Cost − Baseline, positive
}

// AnomalyReport is a Detector's result.
type AnomalyReport struct {
	Anomalies []Anomaly `json:"anomalies"` // largest Excess first, then by scope, currency and day

	Scopes int `json:"scopes"` // distinct scopes with points
	Series int `json:"series"` // scope × currency series
	Days   int `json:"days"`   // days in [From, To) with at least one point in any scope

	Judged   int `json:"judged"`   // scope-days judged
	Weekly   int `json:"weekly"`   // scope-days the trailing rules flagged but usual for their weekday (AnomalyOptions.Weekly): not reported
	Unjudged int `json:"unjudged"` // scope-days with data in [From, To) left unjudged: fewer than MinDays baseline days
	Gaps     int `json:"gaps"`     // days in [From, To) with no point in any scope: neither judged nor in a baseline
	Points   int `json:"points"`   // points added
	Outside  int `json:"outside"`  // points before From's baseline or from To on: they only mark their scope's span

	From    time.Time      `json:"from"`
	To      time.Time      `json:"to"`      // the days judged, [From, To), open ends resolved to the data's
	Options AnomalyOptions `json:"options"` // as applied, defaults filled in
}

// Result judges every scope's days in [From, To) and returns the anomalies. It may be called
// again after more Adds.
func (d *Detector) Result() AnomalyReport {
	rep := AnomalyReport{Points: d.points, Outside: d.outside, Series: len(d.series), Options: d.o}
	present := d.presentDays()
	from, to, ok := d.judgedDays(&present)
	if ok {
		rep.From, rep.To = dayTime(from), dayTime(max(to, from))
	}
	for day := from; day < to; day++ {
		if present.get(day) {
			rep.Days++
		} else {
			rep.Gaps++
		}
	}
	keys := make([]anomalyKey, 0, len(d.series))
	scopes := make(map[string]bool)
	for k := range d.series {
		keys = append(keys, k)
		scopes[k.scope] = true
	}
	rep.Scopes = len(scopes)
	slices.SortFunc(keys, func(a, b anomalyKey) int {
		return cmp.Or(strings.Compare(a.scope, b.scope), strings.Compare(a.currency, b.currency))
	})
	var buf anomalyBuf
	for _, k := range keys {
		d.judgeSeries(d.series[k], &present, from, to, &rep, &buf)
	}
	slices.SortStableFunc(rep.Anomalies, func(a, b Anomaly) int {
		return cmp.Or(cmp.Compare(b.Excess.Nanos, a.Excess.Nanos), strings.Compare(a.Scope, b.Scope),
			strings.Compare(a.Currency, b.Currency), a.Day.Compare(b.Day))
	})
	return rep
}

// presentDays returns the days on which any series has a point.
func (d *Detector) presentDays() daily[bool] {
	var p daily[bool]
	for _, s := range d.series {
		for i, ok := range s.seen.v {
			if ok {
				*p.at(s.seen.first + int64(i)) = true
			}
		}
	}
	// Trim the room growth left at either end, so the run starts and ends with data.
	lo, hi := slices.Index(p.v, true), len(p.v)
	for hi > 0 && !p.v[hi-1] {
		hi--
	}
	if lo < 0 {
		return daily[bool]{}
	}
	return daily[bool]{first: p.first + int64(lo), v: p.v[lo:hi]}
}

// judgedDays returns the days to judge, [from, to): Options.From and To, open ends resolved to
// the first and last day with data. With no data and an open end it returns false and an empty
// range.
func (d *Detector) judgedDays(present *daily[bool]) (from, to int64, ok bool) {
	from, to = d.from, d.to
	if len(present.v) == 0 {
		if from == math.MinInt64 || to == math.MaxInt64 {
			return 0, 0, false
		}
		return from, to, true
	}
	if from == math.MinInt64 {
		from = present.first
	}
	if to == math.MaxInt64 {
		to = present.first + int64(len(present.v))
	}
	return from, to, true
}

func dayTime(day int64) time.Time { return time.Unix(day*86400, 0).UTC() }

// anomalyBuf holds scratch slices reused across the days judged.
type anomalyBuf struct {
	days  []int64
	weeks []int64 // the same weekday of the trailing weeks, for the weekly check
	vals  []int64
	devs  []uint64
}

// judgeSeries judges the series' days in [from, to) that hold data.
func (d *Detector) judgeSeries(s *anomalySeries, present *daily[bool], from, to int64, rep *AnomalyReport, buf *anomalyBuf) {
	step := int64(d.o.step())
	for t := max(from, s.first); t < to && t <= s.last; t++ {
		if !present.get(t) {
			continue
		}
		buf.days = buf.days[:0]
		for k := int64(1); k <= int64(d.o.Window); k++ {
			day := t - k*step
			if day < s.first {
				break
			}
			if present.get(day) {
				buf.days = append(buf.days, day)
			}
		}
		if len(buf.days) < d.o.MinDays {
			rep.Unjudged++
			continue
		}
		rep.Judged++
		a, ok := d.judge(s, t, buf.days, buf)
		if ok && d.usualForWeekday(s, present, t, buf) {
			rep.Weekly++
			continue
		}
		if ok {
			a.Drivers = d.drivers(s, t, buf)
			rep.Anomalies = append(rep.Anomalies, a)
		}
	}
}

// usualForWeekday is the weekly check (AnomalyOptions.Weekly): whether the rules pass day t
// of s against the latest same weekday before it, or against the same weekday of the trailing
// weeks, given at least one such day.
func (d *Detector) usualForWeekday(s *anomalySeries, present *daily[bool], t int64, buf *anomalyBuf) bool {
	if d.o.Weekly <= 0 || d.o.SameWeekday {
		return false
	}
	buf.weeks = buf.weeks[:0]
	for k := int64(1); k <= int64(d.o.Weekly); k++ {
		day := t - 7*k
		if day < s.first {
			break
		}
		if present.get(day) {
			buf.weeks = append(buf.weeks, day)
		}
	}
	if len(buf.weeks) == 0 {
		return false
	}
	if _, flagged := d.judge(s, t, buf.weeks[:1], buf); !flagged {
		return true
	}
	_, flagged := d.judge(s, t, buf.weeks, buf)
	return !flagged
}

// judge applies the rules to day t of s against the baseline days; the anomaly has no
// drivers yet.
func (d *Detector) judge(s *anomalySeries, t int64, days []int64, buf *anomalyBuf) (Anomaly, bool) {
	buf.vals = buf.vals[:0]
	for _, day := range days {
		buf.vals = append(buf.vals, s.total.get(day))
	}
	slices.Sort(buf.vals)
	median := sortedMedian(buf.vals)
	buf.devs = buf.devs[:0]
	for _, v := range buf.vals {
		buf.devs = append(buf.devs, absDiff(v, median))
	}
	slices.Sort(buf.devs)
	mad := sortedMedian(buf.devs)
	cost := s.total.get(t)
	sigma := max(madScale*float64(mad), d.o.MADFloor*math.Abs(float64(median)), sigmaMin)
	madBar := addSat(median, roundSat(d.o.K*sigma))
	qBar := nearestRank(buf.vals, d.o.Quantile)

	var rules []string
	threshold := int64(math.MaxInt64)
	if d.o.K >= 0 && d.fires(cost, madBar) {
		rules, threshold = append(rules, RuleMAD), madBar
	}
	if d.o.Quantile >= 0 && d.fires(cost, qBar) {
		rules, threshold = append(rules, quantileRule(d.o.Quantile)), min(threshold, qBar)
	}
	if rules == nil {
		return Anomaly{}, false
	}
	money := func(n int64) gpucost.Money { return gpucost.Money{Nanos: n, Currency: s.currency} }
	return Anomaly{
		Scope: s.scope, Day: dayTime(t), Currency: s.currency,
		Cost: money(cost), Baseline: money(median), MAD: money(int64(min(mad, math.MaxInt64))),
		MADBar: money(madBar), QuantileBar: money(qBar),
		Threshold: money(threshold), Excess: money(subSat(cost, threshold)),
		Score: (float64(cost) - float64(median)) / sigma, Rules: rules, BaselineDays: len(days),
	}, true
}

// fires reports whether cost is above bar by at least MinDelta.
func (d *Detector) fires(cost, bar int64) bool {
	return cost > bar && subSat(cost, bar) >= d.o.MinDelta.Nanos
}

// drivers returns the pairs of s whose cost on day t rose most over their median on the
// baseline days, at most Drivers of them.
func (d *Detector) drivers(s *anomalySeries, t int64, buf *anomalyBuf) []Driver {
	if d.o.Drivers == 0 {
		return nil
	}
	var out []Driver
	for _, skus := range s.pairs {
		for _, p := range skus {
			buf.vals = buf.vals[:0]
			for _, day := range buf.days {
				buf.vals = append(buf.vals, p.cost.get(day))
			}
			slices.Sort(buf.vals)
			cost, median := p.cost.get(t), sortedMedian(buf.vals)
			if delta := subSat(cost, median); delta > 0 {
				money := func(n int64) gpucost.Money { return gpucost.Money{Nanos: n, Currency: s.currency} }
				out = append(out, Driver{ResourceID: p.resource, SkuID: p.sku, Cost: money(cost),
					Baseline: money(median), Delta: money(delta)})
			}
		}
	}
	slices.SortFunc(out, func(a, b Driver) int {
		return cmp.Or(cmp.Compare(b.Delta.Nanos, a.Delta.Nanos), strings.Compare(a.ResourceID, b.ResourceID),
			strings.Compare(a.SkuID, b.SkuID))
	})
	return out[:min(len(out), d.o.Drivers)]
}

// sortedMedian returns the median of sorted values: the middle one, or the mean of the middle
// two rounded half to even. It is 0 for no values.
func sortedMedian[T int64 | uint64](v []T) T {
	n := len(v)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return v[n/2]
	}
	a, b := v[n/2-1], v[n/2]
	m := a>>1 + b>>1 + a&b&1 // ⌊(a+b)/2⌋ without overflow
	if (a^b)&1 == 1 && m&1 == 1 {
		m++ // a half: round to even
	}
	return m
}

// nearestRank returns the q-quantile of sorted values by nearest rank: the smallest value with at
// least a fraction q of the values at or below it.
func nearestRank(v []int64, q float64) int64 {
	if len(v) == 0 {
		return 0
	}
	rank := int(math.Ceil(q*float64(len(v)) - 1e-9))
	return v[min(max(rank, 1), len(v))-1]
}

// absDiff returns |a − b| exactly.
func absDiff(a, b int64) uint64 {
	if a >= b {
		return uint64(a) - uint64(b)
	}
	return uint64(b) - uint64(a)
}

// addSat returns a + b, saturating at the int64 range.
func addSat(a, b int64) int64 {
	s := a + b
	switch {
	case a > 0 && b > 0 && s < 0:
		return math.MaxInt64
	case a < 0 && b < 0 && s >= 0:
		return math.MinInt64
	}
	return s
}

// subSat returns a − b, saturating at the int64 range.
func subSat(a, b int64) int64 {
	if b == math.MinInt64 {
		if a >= 0 {
			return math.MaxInt64
		}
		return a - b
	}
	return addSat(a, -b)
}

// roundSat rounds f to an int64, saturating at its range.
func roundSat(f float64) int64 {
	switch {
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(math.Round(f))
}
