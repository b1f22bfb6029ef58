// Package alert sends the alerts of crossed budget thresholds: one message per threshold and
// notification target, keyed by budget, period and threshold so that it goes out once per
// period, through a notify.Dispatcher that keeps every attempt in the delivery log. gpucost
// budget check and gpucost serve's budget check both send through it.
//
// Planning is pure (the caller passes now); Sender does the I/O, through the log and targets it
// is given.
package alert

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/notify"
)

// Results of one alert to one target.
const (
	Sent      = "sent"
	Delivered = "already delivered"
	Failed    = "failed"
	WouldSend = "would send"
	NoTarget  = "no targets"
)

// Outcome is one alert to one target and what became of it; Result is empty while it is
// pending.
type Outcome struct {
	Budget    string  `json:"budget"`
	Period    string  `json:"period"`
	Threshold string  `json:"threshold"`
	Percent   float64 `json:"percent"` // the spend or forecast, as a percentage of the amount
	Key       string  `json:"key"`
	Subject   string  `json:"subject"`
	Target    string  `json:"target"`
	Result    string  `json:"result"`
	Attempts  int     `json:"attempts"`
	Status    int     `json:"status,omitempty"`
	Error     string  `json:"error,omitempty"`

	msg notify.Message
}

// CheckTargets fails when a threshold notifies a target that targets lacks, naming the budget's
// file and line, so that nothing is sent before the names are fixed; targetsFile names where
// targets came from.
func CheckTargets(budgets []budget.Budget, targets map[string]notify.Target, targetsFile string) error {
	var missing []string
	for _, b := range budgets {
		var names []string
		thresholds := map[string][]string{}
		for _, t := range b.Thresholds {
			for _, n := range t.Notify {
				if _, ok := targets[n]; !ok {
					if thresholds[n] == nil {
						names = append(names, n)
					}
					thresholds[n] = append(thresholds[n], t.String())
				}
			}
		}
		for _, n := range names {
			missing = append(missing, fmt.Sprintf("%s:%d: budget %s notifies target %q (thresholds %s), which is not in %s",
				b.File, b.Line, b.Name, n, strings.Join(thresholds[n], ", "), targetsFile))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	have := make([]string, 0, len(targets))
	for n := range targets {
		have = append(have, n)
	}
	slices.Sort(have)
	return gpucost.Errorf(gpucost.EInvalid, "%s; define them in %s (it has %s) or fix the names",
		strings.Join(missing, "; "), targetsFile, strings.Join(have, ", "))
}

// Plan returns one pending outcome per crossed threshold and target, in the budgets' order; a
// threshold with no targets is one outcome, NoTarget. statuses[i] is budgets[i]'s at now.
func Plan(budgets []budget.Budget, statuses []budget.Status, now time.Time) []*Outcome {
	var out []*Outcome
	for i, s := range statuses {
		for _, c := range s.Crossed {
			m := Message(budgets[i], s, c, now)
			base := Outcome{Budget: s.Budget, Period: s.Period, Threshold: c.Threshold.String(), Percent: c.Percent,
				Key: c.Key, Subject: m.Subject, msg: m}
			if len(c.Threshold.Notify) == 0 {
				a := base
				a.Result = NoTarget
				out = append(out, &a)
			}
			for _, t := range c.Threshold.Notify {
				a := base
				a.Target = t
				out = append(out, &a)
			}
		}
	}
	return out
}

// Count returns how many alerts have result; Count(alerts, "") counts the pending ones.
func Count(alerts []*Outcome, result string) int {
	n := 0
	for _, a := range alerts {
		if a.Result == result {
			n++
		}
	}
	return n
}

// MarkPending settles every pending alert as result.
func MarkPending(alerts []*Outcome, result string) {
	for _, a := range alerts {
		if a.Result == "" {
			a.Result = result
		}
	}
}

// Message is the alert for crossing c of budget b, whose status is s.
func Message(b budget.Budget, s budget.Status, c budget.Crossing, now time.Time) notify.Message {
	t := c.Threshold
	m := notify.Message{Kind: "budget.threshold", Severity: notify.SeverityInfo, At: now, Key: c.Key}
	switch {
	case t.Kind == budget.KindForecast:
		m.Kind, m.Severity = "budget.forecast", notify.SeverityWarning
		m.Subject = fmt.Sprintf("Budget %s projected to exceed %g%% in %s: forecast %s of %s",
			b.Name, t.Percent, s.Period, s.Forecast.Projected.Dollars(), s.Amount.Dollars())
	default:
		if t.Percent >= 100 {
			m.Severity = notify.SeverityCritical
		} else if t.Percent >= 80 {
			m.Severity = notify.SeverityWarning
		}
		m.Subject = fmt.Sprintf("Budget %s reached %.0f%% in %s: %s spent of %s",
			b.Name, s.Percent, s.Period, s.Spent.Dollars(), s.Amount.Dollars())
	}
	m.Text = text(b, s, c)
	m.Fields = []notify.Field{
		{Name: "Budget", Value: b.Name},
		{Name: "Period", Value: fmt.Sprintf("%s (%s to %s)", s.Period, s.Start.Format("2 Jan"), s.End.AddDate(0, 0, -1).Format("2 Jan 2006"))},
		{Name: "Threshold", Value: t.String()},
		{Name: "Amount", Value: s.Amount.Dollars()},
		{Name: "Spent", Value: fmt.Sprintf("%s (%.1f%%)", s.Spent.Dollars(), s.Percent)},
		{Name: "Forecast", Value: fmt.Sprintf("%s (%.1f%%)", s.Forecast.Projected.Dollars(), s.ForecastPercent)},
		{Name: "Left", Value: s.Remaining.Dollars()},
		{Name: "Days left", Value: fmt.Sprint(s.DaysLeft)},
		{Name: "Burn/day", Value: s.BurnRate.Dollars()},
		{Name: "Allowed/day", Value: s.AllowedRate.Dollars()},
		{Name: "Alert key", Value: c.Key},
	}
	return m
}

// text is an alert's plain-text body: the spend, the forecast, what is left and the key.
func text(b budget.Budget, s budget.Status, c budget.Crossing) string {
	var w strings.Builder
	fmt.Fprintf(&w, "Budget %s has spent %s of its %s %s budget for %s (%.0f%%), crossing its %s threshold.\n",
		b.Name, s.Spent.Dollars(), s.Amount.Dollars(), b.Period, s.Period, s.Percent, c.Threshold)
	fmt.Fprintf(&w, "The forecast for the period is %s (%.0f%% of the budget; p10–p90 %s–%s).\n",
		s.Forecast.Projected.Dollars(), s.ForecastPercent, s.Forecast.Low.Dollars(), s.Forecast.High.Dollars())
	if s.Remaining.Nanos >= 0 {
		fmt.Fprintf(&w, "%s is left for %d days: %s a day keeps it within budget; the burn rate is %s a day.\n",
			s.Remaining.Dollars(), s.DaysLeft, s.AllowedRate.Dollars(), s.BurnRate.Dollars())
	} else {
		fmt.Fprintf(&w, "The budget is over by %s with %d days left; the burn rate is %s a day.\n",
			s.Remaining.MulFloat(-1).Dollars(), s.DaysLeft, s.BurnRate.Dollars())
	}
	fmt.Fprintf(&w, "Alert key: %s", c.Key)
	return w.String()
}
