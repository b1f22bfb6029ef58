package budget

import (
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
)

// Spend is the daily cost of each budget's scope, as a Tally summed it.
type Spend struct {
	Budgets []Budget
	Daily   [][]DayCost // per budget, oldest first
	// OtherCurrency counts, per budget, the lines in scope left out for their currency.
	OtherCurrency []int
	// Match decided which lines each scope counts; checks of a job against the budgets use it.
	Match *Matcher
	// DataDays are the days the bill covers (any line, in a scope or not), oldest first; burn
	// rates divide by them. Nil: each budget's days with cost stand in.
	DataDays []time.Time
}

// NewSpend returns the spend of budgets before any line is counted: nothing.
func NewSpend(budgets []Budget, m *Matcher) *Spend {
	return &Spend{Budgets: budgets, Daily: make([][]DayCost, len(budgets)), OtherCurrency: make([]int, len(budgets)), Match: m}
}

// CatalogMatcher returns a Matcher that takes a line for a GPU's when c recognises its GPU.
func CatalogMatcher(c *catalog.Catalog) *Matcher {
	return &Matcher{IsGPU: func(l *gpucost.CostLine) bool { _, ok := c.LineGPU(l); return ok }}
}

// HistoryStart returns the earliest time whose cost the budgets need at now: eight weeks before
// the start of the earliest of their periods that hold now.
func HistoryStart(budgets []Budget, now time.Time) time.Time {
	from := now
	for _, b := range budgets {
		start, _, _ := PeriodOf(b.Period, now)
		if h := start.AddDate(0, 0, -historyDays); h.Before(from) {
			from = h
		}
	}
	return from
}

// Spend returns what t has counted.
func (t *Tally) Spend() *Spend {
	sp := NewSpend(t.budgets, t.match)
	for i := range t.budgets {
		sp.Daily[i] = t.Daily(i)
	}
	copy(sp.OtherCurrency, t.OtherCurrency)
	sp.DataDays = t.DataDays()
	return sp
}

// Statuses evaluates every budget at now.
func (sp *Spend) Statuses(now time.Time) []Status {
	out := make([]Status, len(sp.Budgets))
	for i, b := range sp.Budgets {
		out[i] = evaluate(b, sp.Daily[i], sp.DataDays, now)
	}
	return out
}

// JobCheck is one budget a job falls in, and what is left of it after the job.
type JobCheck struct {
	Budget    string        `json:"budget"`
	Period    string        `json:"period"`
	Amount    gpucost.Money `json:"amount"`
	Spent     gpucost.Money `json:"spent"`
	Forecast  gpucost.Money `json:"forecast"`
	Base      gpucost.Money `json:"base"`          // what the job adds to: Forecast or Spent
	JobCost   gpucost.Money `json:"job_in_period"` // the part of the job's cost in the period
	LeftAfter gpucost.Money `json:"left_after"`
	Breaks    bool          `json:"breaks"`
}

// CheckJob checks est against every budget whose scope its bill line falls in, in the budget
// period of the job's start (now when the job names none). The job adds to the period's
// forecast when againstForecast (the spend so far if that is higher), else to the spend so far;
// a period after now's has nothing spent yet and its forecast from the history up to today.
// Budgets in another currency than the job's are left out.
func (sp *Spend) CheckJob(est Estimate, now time.Time, againstForecast bool) []JobCheck {
	start := est.Job.Start
	if start.IsZero() {
		start = now
	}
	line := est.Line(start)
	m := sp.Match
	if m == nil {
		m = &Matcher{}
	}
	var out []JobCheck
	for i, b := range sp.Budgets {
		if !m.Matches(b.Scope, line) || currencyOf(b.Amount) != currencyOf(est.Cost) {
			continue
		}
		s := evaluate(b, sp.Daily[i], sp.DataDays, now)
		ps, pe, key := PeriodOf(b.Period, start)
		if key != s.Period {
			p := Forecast(sp.Daily[i], ps, pe, now.UTC().Truncate(24*time.Hour))
			s.Spent, s.Forecast.Projected = gpucost.Money{Currency: b.Amount.Currency}, p.Projected
		}
		c := JobCheck{Budget: b.Name, Period: key, Amount: b.Amount, Spent: s.Spent, Forecast: s.Forecast.Projected,
			Base: s.Spent, JobCost: est.InPeriod(start, ps, pe)}
		if againstForecast && c.Base.Less(c.Forecast) {
			c.Base = c.Forecast
		}
		c.LeftAfter = b.Amount.Sub(c.Base).Sub(c.JobCost)
		c.Breaks = c.LeftAfter.Nanos < 0
		out = append(out, c)
	}
	return out
}

// BurnDown returns the share of the budget left, in percent and never below 0, at the end of
// each day of the period so far.
func (s Status) BurnDown() []float64 {
	left := make([]float64, len(s.Daily))
	var spent int64
	for i, d := range s.Daily {
		spent += d.Cost.Nanos
		left[i] = max(0, 100-100*float64(spent)/float64(max(1, s.Amount.Nanos)))
	}
	return left
}
