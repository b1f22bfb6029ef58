package web

import (
	"net/http"
	"time"

	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/httpapi"
)

// overviewPage is the front page: the month's spend, where it is heading, idle capacity,
// savings on offer, budgets and the largest teams.
type overviewPage struct {
	httpapi.Overview
	Month   string
	Chart   lineChart
	NoBill  bool // nothing spent this month: no bill imported, or none for the month yet
	NoGPUs  bool
	HasData bool
}

func loadOverview(s *site, r *http.Request, q query) (any, error) {
	o, err := s.d.Views.Overview(r.Context(), s.d.Now())
	if err != nil {
		return nil, err
	}
	p := overviewPage{Overview: o, Month: o.MonthStart.UTC().Format("January 2006")}
	p.NoBill = o.MonthToDate.IsZero() && !anyCost(o.Daily)
	p.NoGPUs = o.GPUs == 0
	p.Chart = monthChart(o)
	p.HasData = p.Chart.Points() > 0
	return p, nil
}

// monthChart is the month's spend per day as bars and the forecast of the days left as a
// dashed line.
func monthChart(o httpapi.Overview) lineChart {
	start := o.MonthStart.UTC()
	ds := days(start, start.AddDate(0, 1, 0))
	c := lineChart{X: unixDays(ds), Unit: "$"}
	spent := lineSeries{Label: "Spent", Style: "bars", Color: colorSpend, Values: make([]*float64, len(ds)), Labels: make([]string, len(ds))}
	fc := lineSeries{Label: "Forecast", Style: "dash", Color: colorForecast, Values: make([]*float64, len(ds)), Labels: make([]string, len(ds))}
	place(ds, o.Daily, &spent)
	place(ds, o.Forecast.Days, &fc)
	c.Series = []lineSeries{spent, fc}
	return c
}

// place puts each day's cost into the series at its day's index.
func place(ds []time.Time, costs []budget.DayCost, s *lineSeries) {
	if len(ds) == 0 {
		return
	}
	for _, dc := range costs {
		i := int(dc.Day.UTC().Truncate(day).Sub(ds[0]) / day)
		if i < 0 || i >= len(ds) {
			continue
		}
		s.Values[i] = amount(dc.Cost)
		s.Labels[i] = dc.Cost.Dollars()
	}
}

func anyCost(daily []budget.DayCost) bool {
	for _, d := range daily {
		if !d.Cost.IsZero() {
			return true
		}
	}
	return false
}
