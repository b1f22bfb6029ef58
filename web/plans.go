package web

import (
	"net/http"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/queue"
	"github.com/gpucost/gpucost/spot"
)

// recommendationsPage is gpucost recommend's list, each with its evidence, and the applied
// steps measured on the bill (docs/architecture.md "Realized savings") where the dashboard
// has them.
type recommendationsPage struct {
	httpapi.RecommendationReport
	Realized fleet.RealizedReport
	CanApply bool                     // the dashboard records applied steps (Dashboard.Applied)
	Detected httpapi.DetectedResponse // the changes the bill shows (httpapi.ChangeDetector)
}

func loadRecommendations(s *site, r *http.Request, q query) (any, error) {
	rep, err := s.d.Views.Recommendations(r.Context(), q.Query)
	if err != nil {
		return nil, err
	}
	p := recommendationsPage{RecommendationReport: rep}
	if s.d.Applied != nil {
		p.CanApply = true
		if p.Realized, err = s.d.Applied.Realized(r.Context(), q.Query); err != nil {
			return nil, err
		}
		if d, ok := s.d.Applied.(httpapi.ChangeDetector); ok {
			if p.Detected, err = d.DetectedChanges(r.Context(), q.Query); err != nil {
				return nil, err
			}
		}
	}
	return p, nil
}

// budgetsPage is each budget's standing with its burn-down chart.
type budgetsPage struct {
	Budgets []budgetView
}

// budgetView is one budget and its chart: spend so far against the budget, and the forecast.
type budgetView struct {
	budget.Status
	Chart lineChart
}

func loadBudgets(s *site, r *http.Request, q query) (any, error) {
	sts, err := s.d.Views.Budgets(r.Context(), s.d.Now())
	if err != nil {
		return nil, err
	}
	p := budgetsPage{Budgets: make([]budgetView, len(sts))}
	for i, st := range sts {
		p.Budgets[i] = budgetView{Status: st, Chart: burnDown(st)}
	}
	return p, nil
}

// burnDown draws a budget's period: cumulative spend, the budget's amount, and the forecast
// carried on from the last day spent to the period's end.
func burnDown(st budget.Status) lineChart {
	ds := days(st.Start, st.End)
	n := len(ds)
	spent := lineSeries{Label: "Spent", Style: "line", Color: colorSpend, Values: make([]*float64, n), Labels: make([]string, n)}
	limit := lineSeries{Label: "Budget", Style: "line", Color: colorBudget, Values: make([]*float64, n), Labels: make([]string, n)}
	fc := lineSeries{Label: "Forecast", Style: "dash", Color: colorForecast, Values: make([]*float64, n), Labels: make([]string, n)}
	for i := range ds {
		limit.Values[i], limit.Labels[i] = amount(st.Amount), st.Amount.Dollars()
	}
	cum := cumulative(ds, st.Daily, gpucost.Money{Currency: st.Amount.Currency}, &spent)
	if len(st.Forecast.Days) > 0 {
		// The forecast starts where the spend it was computed from ends.
		start := st.Forecast.Spent
		if i := index(ds, st.Forecast.Through); i >= 0 {
			fc.Values[i], fc.Labels[i] = amount(start), start.Dollars()
		} else {
			start = cum
		}
		cumulative(ds, st.Forecast.Days, start, &fc)
	}
	return lineChart{X: unixDays(ds), Series: []lineSeries{spent, limit, fc}, Unit: "$"}
}

// cumulative puts the running total of costs, from start, into s by day and returns the total.
func cumulative(ds []time.Time, costs []budget.DayCost, start gpucost.Money, s *lineSeries) gpucost.Money {
	total := start
	for _, dc := range costs {
		i := index(ds, dc.Day)
		if i < 0 {
			continue
		}
		total = total.Add(dc.Cost)
		s.Values[i], s.Labels[i] = amount(total), total.Dollars()
	}
	return total
}

// index returns the position of t's day in ds, or -1.
func index(ds []time.Time, t time.Time) int {
	if len(ds) == 0 || t.IsZero() {
		return -1
	}
	i := int(t.UTC().Truncate(day).Sub(ds[0]) / day)
	if i < 0 || i >= len(ds) {
		return -1
	}
	return i
}

// jobsPage is the spot jobs and the work queues.
type jobsPage struct {
	Jobs   []spot.JobReport
	Queues []queue.Status
}

func loadJobs(s *site, r *http.Request, q query) (any, error) {
	jobs, err := s.d.Views.Jobs(r.Context())
	if err != nil {
		return nil, err
	}
	qs, err := s.d.Views.Queues(r.Context(), s.d.Now())
	if err != nil {
		return nil, err
	}
	return jobsPage{Jobs: jobs, Queues: qs}, nil
}
