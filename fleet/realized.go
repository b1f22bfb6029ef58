package fleet

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// The windows a realized saving is measured over (docs/architecture.md "Realized savings").
const (
	RealizedBeforeDays   = 14 // whole days before the step's day
	RealizedAfterDays    = 30 // at most, whole days from the first midnight at or after the step
	RealizedMinAfterDays = 3  // after-window days with bill lines before a figure is given
)

// Realized statuses.
const (
	RealizedMeasured   = "measured"
	RealizedMeasuring  = "measuring"   // fewer than RealizedMinAfterDays days with bill lines after the step
	RealizedNoBaseline = "no baseline" // no bill line of the workload in the days before the step
)

// Realized bases: what the group's cost rate is per.
const (
	PerUsedGPUHour = "per used GPU-hour"
	PerDay         = "per day" // the workload has no telemetry in a window: its work is taken as unchanged
)

// daysPerMonth is the 730-hour month every monthly figure scales to, in days.
const daysPerMonth = float64(HoursPerMonth) / 24

// oneDay is a day: bills and telemetry are kept in UTC, so every day has 24 hours.
const oneDay = 24 * time.Hour

// RealizedStep is one applied step measured on the bill: the workload's cost rate after the
// step against before it, normalised by its work, beside what the plan predicted.
type RealizedStep struct {
	gpucost.AppliedStep
	Status string `json:"status"`
	Basis  string `json:"basis,omitempty"`

	BeforeFrom, BeforeTo time.Time `json:"-"`
	AfterFrom, AfterTo   time.Time `json:"-"`
	BeforeDays           int       `json:"before_days"` // days of the before window with bill lines
	AfterDays            int       `json:"after_days"`  // days of the after window with bill lines
	Days                 int       `json:"days"`        // whole days of the after window

	BeforeCost      gpucost.Money `json:"before_cost"` // the workload's GPU cost over the before window
	AfterCost       gpucost.Money `json:"after_cost"`
	BeforeUsedHours float64       `json:"before_used_gpu_hours"`
	AfterUsedHours  float64       `json:"after_used_gpu_hours"`
	BeforeRate      gpucost.Money `json:"before_rate"` // per Basis
	AfterRate       gpucost.Money `json:"after_rate"`

	// Realized is the monthly saving measured; Low and High its 90% interval.
	Realized gpucost.Money `json:"realized"`
	Low      gpucost.Money `json:"low"`
	High     gpucost.Money `json:"high"`
	Note     string        `json:"note,omitempty"`
}

// RealizedReport is every applied step measured, and the totals of those measured.
type RealizedReport struct {
	Steps []RealizedStep `json:"steps"`
	// Predicted and Realized add up the measured steps; Low and High combine their intervals'
	// half-widths in quadrature, the steps' days taken as independent.
	Predicted gpucost.Money `json:"predicted"`
	Realized  gpucost.Money `json:"realized"`
	Low       gpucost.Money `json:"low"`
	High      gpucost.Money `json:"high"`
	Measured  int           `json:"measured"`
}

// RealizedWindow is the period a snapshot must cover to measure steps up to end: from
// RealizedBeforeDays before the earliest step's day to end. ok is false without steps.
func RealizedWindow(steps []gpucost.AppliedStep, end time.Time) (p Period, ok bool) {
	if len(steps) == 0 {
		return Period{}, false
	}
	first := steps[0].At
	for _, s := range steps {
		if s.At.Before(first) {
			first = s.At
		}
	}
	start := first.UTC().Truncate(oneDay).AddDate(0, 0, -RealizedBeforeDays)
	if !start.Before(end) {
		return Period{}, false
	}
	return Period{Start: start, End: end.UTC()}, true
}

// Realized measures each applied step on the snapshot's bill up to end (see
// docs/architecture.md "Realized savings"): the snapshot must cover RealizedWindow.
func (s *Snapshot) Realized(steps []gpucost.AppliedStep, end time.Time) RealizedReport {
	billFirst, billLast := s.billDays()
	rep := RealizedReport{Steps: []RealizedStep{}}
	for i, st := range steps {
		afterEnd := earliest(end.UTC().Truncate(oneDay), billLast.Add(oneDay))
		// The after window stops where the next step on the same workload starts.
		for j, o := range steps {
			if j != i && sameWorkload(st, o) && o.At.After(st.At) {
				afterEnd = earliest(afterEnd, o.At.UTC().Truncate(oneDay))
			}
		}
		r := s.realizedStep(st, billFirst, afterEnd)
		rep.Steps = append(rep.Steps, r)
		if r.Status != RealizedMeasured {
			continue
		}
		cur := r.Realized.Currency
		if rep.Measured == 0 {
			rep.Predicted, rep.Realized = gpucost.Money{Currency: cur}, gpucost.Money{Currency: cur}
		}
		if cur != rep.Realized.Currency {
			r.Note = strings.TrimPrefix(r.Note+"; not in the total: another currency", "; ")
			rep.Steps[len(rep.Steps)-1] = r
			continue
		}
		rep.Measured++
		rep.Predicted = rep.Predicted.Add(r.Predicted)
		rep.Realized = rep.Realized.Add(r.Realized)
	}
	var sq float64
	for _, r := range rep.Steps {
		if r.Status == RealizedMeasured && r.Realized.Currency == rep.Realized.Currency {
			h := float64(r.High.Sub(r.Realized).Nanos)
			sq += h * h
		}
	}
	half := int64(math.Round(math.Sqrt(sq)))
	rep.Low = rep.Realized.Sub(gpucost.Money{Nanos: half, Currency: rep.Realized.Currency})
	rep.High = rep.Realized.Add(gpucost.Money{Nanos: half, Currency: rep.Realized.Currency})
	return rep
}

// sameWorkload reports whether two steps changed the same workload.
func sameWorkload(a, b gpucost.AppliedStep) bool {
	if a.Namespace != "" || b.Namespace != "" {
		return a.Namespace == b.Namespace && strings.EqualFold(a.Provider, b.Provider)
	}
	return slices.ContainsFunc(a.Resources, func(r string) bool { return slices.Contains(b.Resources, r) })
}

// billDays returns the first and last days the snapshot's bill has lines on.
func (s *Snapshot) billDays() (first, last time.Time) {
	for c := range s.All() {
		if c.Line == nil {
			continue
		}
		d := c.Start.UTC().Truncate(oneDay)
		if first.IsZero() || d.Before(first) {
			first = d
		}
		if d.After(last) {
			last = d
		}
	}
	return first, last
}

// workDay is one day of a workload: its GPU cost on the bill and its used GPU-hours.
type workDay struct {
	cost  gpucost.Money
	used  int64 // units
	lines bool
}

// realizedStep measures one step, its after window ending at afterEnd.
func (s *Snapshot) realizedStep(st gpucost.AppliedStep, billFirst, afterEnd time.Time) RealizedStep {
	cur := st.Predicted.Currency
	zero := gpucost.Money{Currency: cur}
	r := RealizedStep{AppliedStep: st, BeforeCost: zero, AfterCost: zero, BeforeRate: zero, AfterRate: zero,
		Realized: zero, Low: zero, High: zero}
	stepDay := st.At.UTC().Truncate(oneDay)
	r.BeforeFrom, r.BeforeTo = stepDay.AddDate(0, 0, -RealizedBeforeDays), stepDay
	if r.BeforeFrom.Before(billFirst) {
		r.BeforeFrom = billFirst
	}
	r.AfterFrom = stepDay
	if !st.At.Equal(stepDay) {
		r.AfterFrom = stepDay.Add(oneDay) // the step's own day is part before, part after: in neither window
	}
	r.AfterTo = earliest(afterEnd, r.AfterFrom.AddDate(0, 0, RealizedAfterDays))
	if r.AfterTo.Before(r.AfterFrom) {
		r.AfterTo = r.AfterFrom
	}
	days := s.workloadDays(st, cur)
	before := window(days, r.BeforeFrom, r.BeforeTo)
	after := window(days, r.AfterFrom, r.AfterTo)
	r.Days = len(after)
	var usedB, usedA int64
	for _, d := range before {
		r.BeforeCost = r.BeforeCost.Add(d.cost)
		usedB += d.used
		r.BeforeDays += b2i(d.lines)
	}
	for _, d := range after {
		r.AfterCost = r.AfterCost.Add(d.cost)
		usedA += d.used
		r.AfterDays += b2i(d.lines)
	}
	r.BeforeUsedHours, r.AfterUsedHours = unitHours(usedB), unitHours(usedA)
	switch {
	case r.BeforeDays == 0:
		r.Status = RealizedNoBaseline
		r.Note = fmt.Sprintf("no bill line of the workload from %s to %s", r.BeforeFrom.Format(time.DateOnly), r.BeforeTo.Format(time.DateOnly))
		return r
	case r.AfterDays < RealizedMinAfterDays:
		r.Status = RealizedMeasuring
		r.Note = fmt.Sprintf("measuring: %d days so far", r.AfterDays)
		return r
	}
	r.Status = RealizedMeasured
	// Each after day's saving against the before rate, scaled to a month: with telemetry,
	// (before rate × the day's used GPU-hours − the day's cost); without, (the before days'
	// mean cost − the day's cost). Their mean is the realized saving.
	var saved []gpucost.Money
	if usedB > 0 && usedA > 0 {
		r.Basis = PerUsedGPUHour
		r.BeforeRate = r.BeforeCost.MulFloat(1 / r.BeforeUsedHours)
		r.AfterRate = r.AfterCost.MulFloat(1 / r.AfterUsedHours)
		for _, d := range after {
			expected := r.BeforeCost.MulFloat(float64(d.used) / float64(usedB))
			saved = append(saved, expected.Sub(d.cost).MulFloat(daysPerMonth))
		}
	} else {
		r.Basis = PerDay
		r.BeforeRate = r.BeforeCost.DivInt(int64(len(before)))
		r.AfterRate = r.AfterCost.DivInt(int64(len(after)))
		for _, d := range after {
			saved = append(saved, r.BeforeRate.Sub(d.cost).MulFloat(daysPerMonth))
		}
		r.Note = "no telemetry in a window: its cost per day, the work taken as unchanged"
	}
	r.Realized, r.Low, r.High = meanInterval(saved)
	return r
}

// workloadDays returns the workload's GPU cost and used time per day of the snapshot, in cur:
// the GPU charges on the bill of the lines whose telemetry shows the step's namespace, or of
// the step's machines (by bill resource id or telemetry host), on the step's provider.
func (s *Snapshot) workloadDays(st gpucost.AppliedStep, cur string) map[time.Time]*workDay {
	ofNamespace := map[*Line]bool{}
	if st.Namespace != "" {
		for c := range s.All() {
			if c.Kind == GPUTime && c.Line != nil && c.Owner.Namespace == st.Namespace {
				ofNamespace[c.Line] = true
			}
		}
	}
	out := map[time.Time]*workDay{}
	for c := range s.All() {
		if c.Kind == Other || c.Line == nil || cur != "" && c.Cost.Currency != cur {
			continue
		}
		if st.Provider != "" && !strings.EqualFold(c.Line.Provider, st.Provider) {
			continue
		}
		if !ofNamespace[c.Line] && !stepMachine(st, c) {
			continue
		}
		d := c.Start.UTC().Truncate(oneDay)
		w := out[d]
		if w == nil {
			w = &workDay{cost: gpucost.Money{Currency: cur}}
			out[d] = w
		}
		w.cost.Nanos += c.Cost.Nanos
		w.used += c.used
		w.lines = true
	}
	return out
}

// stepMachine reports whether a charge is of one of the step's machines.
func stepMachine(st gpucost.AppliedStep, c *Charge) bool {
	for _, r := range st.Resources {
		if strings.EqualFold(r, c.Line.ResourceID) || slices.ContainsFunc(c.Line.hosts, func(h string) bool { return strings.EqualFold(h, r) }) ||
			c.Series != nil && strings.EqualFold(c.Series.GPU.Host, r) {
			return true
		}
	}
	return false
}

// window returns the days of [from, to), each with its workload day (empty where none).
func window(days map[time.Time]*workDay, from, to time.Time) []workDay {
	var out []workDay
	for d := from; d.Before(to); d = d.Add(oneDay) {
		if w := days[d]; w != nil {
			out = append(out, *w)
		} else {
			out = append(out, workDay{})
		}
	}
	return out
}

// meanInterval returns the mean of xs and its 90% interval, mean ± t·s/√n with Student's t
// at n − 1 degrees of freedom.
func meanInterval(xs []gpucost.Money) (mean, low, high gpucost.Money) {
	cur := xs[0].Currency
	var sum gpucost.Money
	sum.Currency = cur
	for _, x := range xs {
		sum = sum.Add(x)
	}
	n := len(xs)
	mean = sum.DivInt(int64(n))
	if n < 2 {
		return mean, mean, mean
	}
	var ss float64
	for _, x := range xs {
		d := float64(x.Nanos - mean.Nanos)
		ss += d * d
	}
	half := int64(math.Round(t90(n-1) * math.Sqrt(ss/float64(n-1)) / math.Sqrt(float64(n))))
	h := gpucost.Money{Nanos: half, Currency: cur}
	return mean, mean.Sub(h), mean.Add(h)
}

// t90 is Student's t quantile 0.95 (a two-sided 90% interval) at df degrees of freedom.
func t90(df int) float64 {
	table := []float64{6.314, 2.920, 2.353, 2.132, 2.015, 1.943, 1.895, 1.860, 1.833, 1.812,
		1.796, 1.782, 1.771, 1.761, 1.753, 1.746, 1.740, 1.734, 1.729, 1.725,
		1.721, 1.717, 1.714, 1.711, 1.708, 1.706, 1.703, 1.701, 1.699, 1.697}
	if df >= 1 && df <= len(table) {
		return table[df-1]
	}
	return 1.645
}

func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
