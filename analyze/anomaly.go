package analyze

import (
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/gpucost/gpucost"
)

// Defaults of AnomalyOptions, used where a field is zero.
const (
	DefaultAnomalyWindow   = 14   // trailing baseline days
	DefaultAnomalyMinDays  = 7    // baseline days a day needs before it is judged
	DefaultAnomalyK        = 3    // threshold = median + 3σ, σ = 1.4826·MAD
	DefaultAnomalyQuantile = 0.95 // the second rule's quantile of the trailing window
	DefaultAnomalyMADFloor = 0.01 // σ is at least 1% of |median|
	DefaultAnomalyDrivers  = 5    // resource+SKU pairs named per anomaly

	// With SameWeekday the window and minimum count same-weekday days, that is weeks.
	DefaultAnomalyWeeks    = 8
	DefaultAnomalyMinWeeks = 4

	// The weekly check reads the same weekday of up to 8 trailing weeks, once there is one.
	DefaultAnomalyWeekly = 8
)

// DefaultAnomalyMinDelta is the smallest excess reported when AnomalyOptions.MinDelta is zero:
// ten units of the series' currency.
var DefaultAnomalyMinDelta = gpucost.USD(10 * 1_000_000_000)

// RuleMAD names the robust rule in Anomaly.Rules: the cost is above median + K·σ of its window.
// The quantile rule is named "p" and the percentile, "p95" for the default Quantile 0.95.
const RuleMAD = "mad"

// maxAnomalyWindow bounds Window, ten years of days, so day arithmetic cannot overflow.
const maxAnomalyWindow = 3660

// madScale makes the MAD of normally distributed values an estimate of their σ, so K counts
// standard deviations.
const madScale = 1.4826

// sigmaMin is the least σ in nano-units, one cent, so a flat zero baseline still gives a finite
// Score.
const sigmaMin = 10_000_000

// CostPoint is the cost of one resource under one SKU on one day, as part of one scope. Points
// with the same day, scope, resource, SKU and currency add up.
type CostPoint struct {
	Day        time.Time     `json:"day"`         // the UTC day; a time of day is dropped
	Scope      string        `json:"scope"`       // what the cost is judged as part of, such as "team=ml" or "service=EC2"
	ResourceID string        `json:"resource_id"` // the billed resource, named in drivers
	SkuID      string        `json:"sku_id"`      // the SKU, named in drivers
	Cost       gpucost.Money `json:"cost"`        // may be negative (credits, refunds); an empty currency is USD
}

// AnomalyOptions configure a Detector. Zero fields take the defaults above; a negative K or
// Quantile turns its rule off, a negative MADFloor or MinDelta means none.
type AnomalyOptions struct {
	// Window is how many trailing days make a day's baseline, at most 3,660. MinDays is the
	// fewest of them that must lie within the scope's span and hold data before the day is
	// judged.
	Window  int `json:"window"`
	MinDays int `json:"min_days"`

	// K sets the robust rule: a day is anomalous above median + K·σ of its window, where
	// σ = max(1.4826·MAD, MADFloor·|median|, one cent). The floor keeps a flat baseline, whose
	// MAD is 0, from flagging every cent: with the defaults a flat $1,000 a day crosses this
	// bar, $1,030, from $1,040 (MinDelta above it). The quantile rule's bar is then $1,000, so
	// that rule fires from $1,010: on a flat baseline MinDelta alone sets what is flagged.
	K        float64 `json:"k"`
	MADFloor float64 `json:"mad_floor"`

	// Quantile sets the second rule: the cost is above this quantile of the window's daily
	// costs, by nearest rank (an observed day's cost; with fewer than 20 days, 0.95 is the
	// window's highest day, so the rule flags a new high). It catches spikes the robust rule
	// misses when the window is bimodal and its MAD wide.
	Quantile float64 `json:"quantile"`

	// MinDelta is how far above a rule's bar the cost must be for the rule to fire, in the
	// units of each series' currency (its Nanos apply to every currency; the Currency field
	// is not compared). It keeps small changes out of the report.
	MinDelta gpucost.Money `json:"min_delta"`

	// SameWeekday compares a day with the same weekday of the trailing Window weeks (t−7,
	// t−14, …) instead of the trailing Window days; Window and MinDays then count weeks, with
	// defaults 8 and 4. Against the trailing days, a level that a scope holds on more than half
	// of its window is normal (busy weekdays and quiet weekends are not flagged), but a level
	// held on fewer days is a spike each time it comes back: a weekly job is flagged every
	// week. Use SameWeekday for such scopes. Either way a trend whose growth between a day
	// and its window's highest exceeds MinDelta keeps firing the quantile rule.
	SameWeekday bool `json:"same_weekday"`

	// Weekly sets the weekly check, which learns weekly seasonality on top of the trailing
	// days: a day the rules flag against its trailing Window days is reported only if they
	// also flag it against the latest same weekday before it with data (t−7, or t−14 …) and
	// against the same weekday of the trailing Weekly weeks (those in the scope's span holding
	// data), once there is one. So a weekly job (every Monday's evaluation run) is flagged the
	// first week it runs and not after, even while most Mondays of the weeks read are from
	// before it, and a job that skips a week is not flagged when it comes back; a spike on a
	// weekday that has not seen it is flagged as before. A spike that comes back the next week
	// on the same weekday counts as weekly from then on. The check only drops days: it never
	// flags one the trailing rules pass. Negative turns it off; SameWeekday, whose baseline is
	// the weekdays already, skips it. See docs/architecture.md "Cost anomalies".
	Weekly int `json:"weekly"`

	// From and To are the days judged, [From, To), as UTC days (a time of day is dropped).
	// Earlier points only feed baselines; points before From's baseline or from To on only
	// mark that the scope exists. A zero From or To is open: the data's first or last day.
	// Give both so memory stays proportional to the days looked at.
	From time.Time `json:"from"`
	To   time.Time `json:"to"`

	// Drivers is how many resource+SKU pairs to name per anomaly; negative names none.
	Drivers int `json:"drivers"`
}

// withDefaults returns o with zero fields set to their defaults and out-of-range ones clamped.
func (o AnomalyOptions) withDefaults() AnomalyOptions {
	if o.SameWeekday {
		o.Window = positiveOr(o.Window, DefaultAnomalyWeeks)
		o.MinDays = positiveOr(o.MinDays, DefaultAnomalyMinWeeks)
	} else {
		o.Window = positiveOr(o.Window, DefaultAnomalyWindow)
		o.MinDays = positiveOr(o.MinDays, DefaultAnomalyMinDays)
	}
	o.Window = min(o.Window, maxAnomalyWindow)
	if o.Weekly == 0 {
		o.Weekly = DefaultAnomalyWeekly
	}
	o.Weekly = min(o.Weekly, maxAnomalyWindow/7)
	o.MinDays = min(o.MinDays, o.Window)
	o.K = floatOr(o.K, DefaultAnomalyK)
	o.Quantile = min(floatOr(o.Quantile, DefaultAnomalyQuantile), 1)
	o.MADFloor = max(floatOr(o.MADFloor, DefaultAnomalyMADFloor), 0)
	if o.MinDelta.Nanos == 0 {
		o.MinDelta = DefaultAnomalyMinDelta
	}
	o.MinDelta.Nanos = max(o.MinDelta.Nanos, 0)
	if o.Drivers == 0 {
		o.Drivers = DefaultAnomalyDrivers
	}
	o.Drivers = max(o.Drivers, 0)
	return o
}

func positiveOr(n, def int) int {
	if n <= 0 {
		return def
	}
	return n
}

func floatOr(f, def float64) float64 {
	if f == 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return def
	}
	return f
}

// quantileRule returns the name of the quantile rule: "p95" for 0.95.
func quantileRule(q float64) string {
	return "p" + strconv.FormatFloat(math.Round(q*1e6)/1e4, 'f', -1, 64)
}

// Detector finds days on which a scope cost more than its trailing baseline says it should.
//
// Each scope's costs form one daily series per currency; currencies never mix. A day inside the
// scope's span (its first to last day with a point) with no point of its own costs zero — a
// resource that stopped — but a day on which no scope at all has a point is a gap in the data:
// it is neither judged nor part of any baseline. A day is judged against the days of its
// window that lie in the scope's span and hold data, once there are MinDays of them, by two
// rules (see AnomalyOptions): "mad", above median + K·σ, and the quantile rule. Drivers name the
// resource+SKU pairs whose cost rose most over their own median across the same baseline days.
//
// Amounts stay exact: medians and quantiles are of integer nano-units, the median of an even
// count being the mean of the middle two rounded half to even; only K·σ is computed in floating
// point and rounded to the nano-unit. Add and Result must not be called concurrently.
type Detector struct {
	o        AnomalyOptions
	from, to int64 // days judged, [from, to); open ends are math.MinInt64 and math.MaxInt64
	keepFrom int64 // the first day whose cost is kept: from less the window's reach

	series map[anomalyKey]*anomalySeries
	last   *anomalySeries

	points, outside int
}

// NewDetector returns a Detector configured by o, its zero fields set to the defaults.
func NewDetector(o AnomalyOptions) *Detector {
	o = o.withDefaults()
	d := &Detector{o: o, from: math.MinInt64, to: math.MaxInt64, keepFrom: math.MinInt64,
		series: make(map[anomalyKey]*anomalySeries)}
	if !o.From.IsZero() {
		d.from = dayOf(o.From.Unix())
		d.keepFrom = d.from - int64(max(o.Window*o.step(), 7*o.Weekly))
	}
	if !o.To.IsZero() {
		d.to = dayOf(o.To.Unix())
	}
	return d
}

// step is the distance in days between a window's days.
func (o AnomalyOptions) step() int {
	if o.SameWeekday {
		return 7
	}
	return 1
}

// anomalyKey names one series: a scope in one currency.
type anomalyKey struct{ scope, currency string }

// anomalySeries is one scope's daily cost in one currency, in total and per resource and SKU.
type anomalySeries struct {
	anomalyKey
	first, last int64 // the span: first and last day with a point, clamped to [keepFrom, to−1]

	total daily[int64]
	seen  daily[bool]               // days with a point of this series
	pairs map[string][]*anomalyPair // by resource: its SKUs are few, so one string is hashed
	pair  *anomalyPair              // the last one added to, for runs of points of one pair
}

// anomalyPair is one resource+SKU pair's daily cost within a series.
type anomalyPair struct {
	resource, sku string
	cost          daily[int64]
}

// Add adds a point. Points may come in any order.
func (d *Detector) Add(p CostPoint) {
	d.points++
	currency := p.Cost.Currency
	if currency == "" {
		currency = "USD"
	}
	day := dayOf(p.Day.Unix())
	span := min(max(day, d.keepFrom), d.to-1)
	s := d.last
	if s == nil || s.scope != p.Scope || s.currency != currency {
		s = d.seriesOf(anomalyKey{p.Scope, currency}, d.sizeHint(span))
		d.last = s
	}
	s.first, s.last = min(s.first, span), max(s.last, span)
	if span != day {
		d.outside++
		return
	}
	*s.total.at(day) += p.Cost.Nanos
	*s.seen.at(day) = true
	pr := s.pair
	if pr == nil || pr.resource != p.ResourceID || pr.sku != p.SkuID {
		pr = s.pairOf(p.ResourceID, p.SkuID, d.sizeHint(day))
		s.pair = pr
	}
	*pr.cost.at(day) += p.Cost.Nanos
}

// sizeHint is how many days a run that starts on day will likely hold: up to To where To is set,
// so a pair's costs are allocated once.
func (d *Detector) sizeHint(day int64) int {
	if n := d.to - day; d.to != math.MaxInt64 && n > 0 && n <= 1<<12 {
		return int(n)
	}
	return 0
}

func (d *Detector) seriesOf(k anomalyKey, hint int) *anomalySeries {
	s := d.series[k]
	if s == nil {
		s = &anomalySeries{anomalyKey: k, first: math.MaxInt64, last: math.MinInt64,
			pairs: make(map[string][]*anomalyPair)}
		s.total.v, s.seen.v = make([]int64, 0, hint), make([]bool, 0, hint)
		d.series[k] = s
	}
	return s
}

func (s *anomalySeries) pairOf(resource, sku string, hint int) *anomalyPair {
	skus := s.pairs[resource]
	for _, p := range skus {
		if p.sku == sku {
			return p
		}
	}
	p := &anomalyPair{resource: resource, sku: sku}
	p.cost.v = make([]int64, 0, hint)
	s.pairs[resource] = append(skus, p)
	return p
}

// daily holds one value per day over a dense run of days starting at first.
type daily[T int64 | bool] struct {
	first int64
	v     []T
}

// get returns the value of day, zero outside the run.
func (d *daily[T]) get(day int64) T {
	var zero T
	if day < d.first || day-d.first >= int64(len(d.v)) {
		return zero
	}
	return d.v[day-d.first]
}

// at returns the value of day to set, growing the run to hold it; growth at either end at
// least doubles the run, so any order of days costs amortised O(1).
func (d *daily[T]) at(day int64) *T {
	if len(d.v) == 0 {
		d.first = day
		d.v = append(d.v[:0], *new(T))
		return &d.v[0]
	}
	if day < d.first {
		shift := max(d.first-day, int64(len(d.v)))
		v := make([]T, int64(len(d.v))+shift)
		copy(v[shift:], d.v)
		d.v, d.first = v, d.first-shift
	}
	i := day - d.first
	if n := int64(len(d.v)); i >= n {
		d.v = slices.Grow(d.v, int(i+1-n))[:i+1]
		clear(d.v[n:])
	}
	return &d.v[i]
}
