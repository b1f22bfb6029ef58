package budget

import (
	"time"

	"github.com/gpucost/gpucost"
)

// Status is where a budget stands in the period that holds now.
type Status struct {
	Budget          string        `json:"budget"`
	Period          string        `json:"period"` // the period's key: "2026-11", "2026-Q4"
	Start           time.Time     `json:"start"`
	End             time.Time     `json:"end"`
	Amount          gpucost.Money `json:"amount"`
	Spent           gpucost.Money `json:"spent"`   // in the period up to now
	Percent         float64       `json:"percent"` // Spent as a percentage of Amount
	Remaining       gpucost.Money `json:"remaining"`
	Forecast        Projection    `json:"forecast"`
	ForecastPercent float64       `json:"forecast_pct"` // the projected total as a percentage of Amount
	DaysLeft        int           `json:"days_left"`    // today included
	BurnRate        gpucost.Money `json:"burn_rate"`    // spent per day with data
	DataDays        int           `json:"data_days"`    // days of the period up to today with bill data
	AllowedRate     gpucost.Money `json:"allowed_rate"` // what may be spent per day left to end at Amount
	Crossed         []Crossing    `json:"crossed"`      // thresholds reached, in the budget's order
	Daily           []DayCost     `json:"daily"`        // every day of the period up to today, zeros included
}

// Crossing is a threshold a budget has reached in a period, with the key that makes its alert
// go out once.
type Crossing struct {
	Threshold Threshold `json:"threshold"`
	Percent   float64   `json:"percent"` // the spend or forecast, as a percentage of the amount
	Key       string    `json:"key"`     // DedupeKey
}

// Evaluate returns the status of b at now from the daily cost of its scope (which may reach
// back before the period: the forecast reads up to eight weeks). A forecast threshold counts as
// crossed when the projected total reaches it; an actual threshold when the spend does. The
// burn rate divides the spend by the days with cost; Spend.Statuses divides by the days the
// bill covers (docs/architecture.md "Burn rate").
func Evaluate(b Budget, spentDaily []DayCost, now time.Time) Status {
	return evaluate(b, spentDaily, nil, now)
}

// evaluate is Evaluate with the days the bill covers, dataDays; nil: the days of spentDaily.
func evaluate(b Budget, spentDaily []DayCost, dataDays []time.Time, now time.Time) Status {
	start, end, key := PeriodOf(b.Period, now)
	today := now.UTC().Truncate(24 * time.Hour)
	zero := gpucost.Money{Currency: currencyOf(b.Amount)}
	s := Status{Budget: b.Name, Period: key, Start: start, End: end, Amount: b.Amount, Spent: zero}
	byDay := map[int64]int64{}
	for _, d := range spentDaily {
		if !d.Day.Before(start) && d.Day.Before(end) && !d.Day.After(now) {
			s.Spent.Nanos += d.Cost.Nanos
			byDay[unixDay(d.Day)] += d.Cost.Nanos
		}
	}
	for t := start; !t.After(today) && t.Before(end); t = t.AddDate(0, 0, 1) {
		s.Daily = append(s.Daily, DayCost{Day: t, Cost: gpucost.Money{Nanos: byDay[unixDay(t)], Currency: zero.Currency}})
	}
	s.Forecast = Forecast(spentDaily, start, end, today)
	if s.Forecast.Projected.Less(s.Spent) {
		// Today's partial cost is spent but not in the forecast's complete days.
		s.Forecast.Projected = s.Spent
		if s.Forecast.Banded() {
			s.Forecast.Low, s.Forecast.High = maxMoney(s.Forecast.Low, s.Spent), maxMoney(s.Forecast.High, s.Spent)
		}
	}
	s.Remaining = b.Amount.Sub(s.Spent)
	s.Percent = percent(s.Spent, b.Amount)
	s.ForecastPercent = percent(s.Forecast.Projected, b.Amount)
	s.DaysLeft = int(end.Sub(today) / (24 * time.Hour))
	if dataDays == nil {
		for _, d := range spentDaily {
			dataDays = append(dataDays, d.Day)
		}
	}
	s.BurnRate = zero
	s.DataDays = countDays(dataDays, start, today, end)
	if s.DataDays > 0 {
		s.BurnRate = s.Spent.DivInt(int64(s.DataDays))
	}
	s.AllowedRate = zero
	if s.DaysLeft > 0 && s.Remaining.Nanos > 0 {
		s.AllowedRate = s.Remaining.DivInt(int64(s.DaysLeft))
	}
	for _, t := range b.Thresholds {
		reached := s.Percent
		if t.Kind == KindForecast {
			reached = s.ForecastPercent
		}
		if reached >= t.Percent {
			s.Crossed = append(s.Crossed, Crossing{Threshold: t, Percent: reached, Key: DedupeKey(b.Name, key, t)})
		}
	}
	return s
}

// countDays counts the distinct days of days in [start, end) up to today.
func countDays(days []time.Time, start, today, end time.Time) int {
	seen := map[int64]bool{}
	for _, d := range days {
		if !d.Before(start) && d.Before(end) && !d.After(today) {
			seen[unixDay(d)] = true
		}
	}
	return len(seen)
}

// percent returns m as a percentage of of.
func percent(m, of gpucost.Money) float64 {
	if of.Nanos == 0 {
		return 0
	}
	return 100 * float64(m.Nanos) / float64(of.Nanos)
}

func maxMoney(a, b gpucost.Money) gpucost.Money {
	if a.Less(b) {
		return b
	}
	return a
}
