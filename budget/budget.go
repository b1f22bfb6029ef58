// Package budget keeps GPU spend within what a team agreed to: budgets read from YAML (a scope
// of cost lines, a monthly or quarterly amount, thresholds on actual and forecast spend, each
// with the notification targets it alerts), a forecast of the period's spend from daily cost
// with weekday seasonality, the evaluation of a budget against what was spent, and the
// pre-launch estimate of a job or inference endpoint against the budgets it falls in.
//
// The package is pure: it parses bytes it is given and reads no clock; the caller passes now.
package budget

import (
	"fmt"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// Periods a budget can cover: calendar months and quarters, in UTC.
const (
	Monthly   = "monthly"
	Quarterly = "quarterly"
)

// Threshold kinds: on spend so far, or on the period's forecast ("projected to exceed").
const (
	KindActual   = "actual"
	KindForecast = "forecast"
)

// Cost measures: amortised (commitment purchases spread over the usage they cover) or as billed.
const (
	Effective = "effective"
	Billed    = "billed"
)

// Budget is an amount a scope of spend may reach in each period, with the thresholds that alert
// people on the way.
type Budget struct {
	Name       string
	Scope      Scope
	Period     string        // Monthly or Quarterly
	Amount     gpucost.Money // per period, in the budget's currency
	Cost       string        // Effective (default) or Billed
	Thresholds []Threshold   // sorted by kind, then percent
	File       string        // the file it was read from, for messages
	Line       int           // its line in File
}

// Threshold is a share of a budget that, once reached, alerts its recipients: by spend so far
// (KindActual) or by the period's forecast (KindForecast).
type Threshold struct {
	Kind    string   `json:"kind"`    // KindActual or KindForecast
	Percent float64  `json:"percent"` // of the budget's amount
	Notify  []string `json:"notify"`  // notification target names
}

// String names the threshold as people read it: "actual 80%", "forecast 100%".
func (t Threshold) String() string { return fmt.Sprintf("%s %s%%", t.Kind, formatPercent(t.Percent)) }

// DefaultThresholds are the thresholds of a budget that names none: actual spend at 50%, 80% and
// 100% and the forecast at 100%, all alerting notify.
func DefaultThresholds(notify []string) []Threshold {
	return []Threshold{
		{Kind: KindActual, Percent: 50, Notify: notify},
		{Kind: KindActual, Percent: 80, Notify: notify},
		{Kind: KindActual, Percent: 100, Notify: notify},
		{Kind: KindForecast, Percent: 100, Notify: notify},
	}
}

// PeriodOf returns the calendar period of kind period (Monthly or Quarterly) that holds t, in
// UTC, and its key: "2026-11" for a month, "2026-Q4" for a quarter.
func PeriodOf(period string, t time.Time) (start, end time.Time, key string) {
	t = t.UTC()
	if period == Quarterly {
		q := (int(t.Month()) - 1) / 3
		start = time.Date(t.Year(), time.Month(3*q+1), 1, 0, 0, 0, 0, time.UTC)
		return start, start.AddDate(0, 3, 0), fmt.Sprintf("%d-Q%d", t.Year(), q+1)
	}
	start = time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	return start, start.AddDate(0, 1, 0), start.Format("2006-01")
}

// DedupeKey names one threshold of one budget in one period, "budget:NAME:2026-11:actual:80",
// so that an alert is sent once per threshold per period however often budgets are evaluated.
func DedupeKey(name, periodKey string, t Threshold) string {
	return strings.Join([]string{"budget", name, periodKey, t.Kind, formatPercent(t.Percent)}, ":")
}

// formatPercent writes 80 as "80" and 12.5 as "12.5".
func formatPercent(p float64) string { return fmt.Sprintf("%g", p) }
