// Package alert sends the alerts of crossed budget thresholds: one message per budget and
// notification target per check, named by the highest threshold newly crossed and listing the
// others, keyed by budget, period and threshold so that each threshold is notified once per
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
// pending. One check sends one alert per budget and target: it names the highest threshold
// newly crossed (Threshold, Key) and lists the others it also reports (Also).
type Outcome struct {
	Budget    string   `json:"budget"`
	Period    string   `json:"period"`
	Threshold string   `json:"threshold"`
	Also      []string `json:"also,omitempty"` // the other thresholds newly crossed, reported in the same alert
	Percent   float64  `json:"percent"`        // the spend or forecast, as a percentage of the amount
	Key       string   `json:"key"`
	Subject   string   `json:"subject"`
	Severity  string   `json:"severity"`
	Target    string   `json:"target"`
	Result    string   `json:"result"`
	Attempts  int      `json:"attempts"`
	Status    int      `json:"status,omitempty"`
	Error     string   `json:"error,omitempty"`

	b       budget.Budget
	s       budget.Status
	now     time.Time
	crossed []budget.Crossing // the thresholds crossed that notify Target, before the log is read
	sent    []budget.Crossing // those the alert reports: crossed less the ones already notified
	msg     notify.Message
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

// Plan returns one pending outcome per budget and target, in the budgets' order and each
// target's first mention: the alert of the thresholds crossed that notify the target, named by
// the highest (see Rank). The thresholds crossed that notify nobody are one outcome per
// budget, NoTarget. statuses[i] is budgets[i]'s at now. Which thresholds were already notified
// is the Sender's to decide, from its delivery log (docs/architecture.md "Budget alerts").
func Plan(budgets []budget.Budget, statuses []budget.Status, now time.Time) []*Outcome {
	var out []*Outcome
	for i, s := range statuses {
		var targets []string
		byTarget := map[string][]budget.Crossing{}
		var unsent []budget.Crossing
		for _, c := range s.Crossed {
			if len(c.Threshold.Notify) == 0 {
				unsent = append(unsent, c)
			}
			for _, t := range c.Threshold.Notify {
				if byTarget[t] == nil {
					targets = append(targets, t)
				}
				byTarget[t] = append(byTarget[t], c)
			}
		}
		for _, t := range targets {
			a := &Outcome{Budget: s.Budget, Period: s.Period, Target: t, b: budgets[i], s: s, now: now, crossed: byTarget[t]}
			a.report(byTarget[t])
			out = append(out, a)
		}
		if len(unsent) > 0 {
			a := &Outcome{Budget: s.Budget, Period: s.Period, Result: NoTarget, b: budgets[i], s: s, now: now, crossed: unsent}
			a.report(unsent)
			out = append(out, a)
		}
	}
	return out
}

// report makes a's alert the one of crossings (not empty): named by the highest, listing the
// others.
func (a *Outcome) report(crossings []budget.Crossing) {
	sent := slices.Clone(crossings)
	slices.SortStableFunc(sent, func(x, y budget.Crossing) int { return Rank(y.Threshold) - Rank(x.Threshold) })
	a.sent = sent
	a.msg = Message(a.b, a.s, sent[0], sent[1:], a.now)
	a.Threshold, a.Percent, a.Key, a.Subject, a.Severity = sent[0].Threshold.String(), sent[0].Percent, sent[0].Key, a.msg.Subject, string(a.msg.Severity)
	a.Also = nil
	for _, c := range sent[1:] {
		a.Also = append(a.Also, c.Threshold.String())
	}
}

// Rank orders thresholds for naming an alert: by severity (see Severity), then actual spend
// before the forecast, then by percent. The highest crossed names the alert.
func Rank(t budget.Threshold) int {
	r := int(t.Percent * 1000) // percents are at most 1000 with at most 3 decimals that matter
	if t.Kind == budget.KindActual {
		r += 1 << 21
	}
	switch Severity(t) {
	case notify.SeverityCritical:
		r += 2 << 22
	case notify.SeverityWarning:
		r += 1 << 22
	}
	return r
}

// Severity is how loud the alert of t is: an actual threshold of 100% or more is critical, one
// of 80% or more and a forecast threshold are warnings, the rest info.
func Severity(t budget.Threshold) notify.Severity {
	switch {
	case t.Kind == budget.KindForecast:
		return notify.SeverityWarning
	case t.Percent >= 100:
		return notify.SeverityCritical
	case t.Percent >= 80:
		return notify.SeverityWarning
	}
	return notify.SeverityInfo
}

// Settles reports whether an alert delivered for threshold u tells its target what an alert
// for t would: u is of t's kind and at least as high. So a threshold below one already
// notified in the period is not notified again.
func Settles(u, t budget.Threshold) bool { return u.Kind == t.Kind && u.Percent >= t.Percent }

// settle drops from a's alert the thresholds already notified to its target, as delivered
// says of a threshold's key: it is Delivered when none is left, else the alert of those left.
func (a *Outcome) settle(delivered func(key string) (bool, error)) error {
	var left []budget.Crossing
	for _, c := range a.crossed {
		done := false
		for _, u := range a.b.Thresholds {
			if !Settles(u, c.Threshold) {
				continue
			}
			var err error
			if done, err = delivered(budget.DedupeKey(a.b.Name, a.s.Period, u)); err != nil {
				return err
			}
			if done {
				break
			}
		}
		if !done {
			left = append(left, c)
		}
	}
	if len(left) == 0 {
		a.Result = Delivered
		return nil
	}
	a.report(left)
	return nil
}

// logKeys returns the keys a delivered alert is logged under besides its own: the highest
// threshold it reports of the other kind, so that each kind's threshold counts as notified.
func (a *Outcome) logKeys() []string {
	var keys []string
	for _, c := range a.sent[1:] {
		if c.Threshold.Kind != a.sent[0].Threshold.Kind {
			return append(keys, c.Key) // sent is in Rank order: the first of a kind is its highest
		}
	}
	return keys
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

// Message is the alert of budget b, whose status is s, for crossing head, the highest
// threshold newly crossed, which names it and sets its severity and key; also are the others
// newly crossed, listed in it.
func Message(b budget.Budget, s budget.Status, head budget.Crossing, also []budget.Crossing, now time.Time) notify.Message {
	t := head.Threshold
	m := notify.Message{Kind: "budget.threshold", Severity: Severity(t), At: now, Key: head.Key}
	switch {
	case t.Kind == budget.KindForecast:
		m.Kind = "budget.forecast"
		m.Subject = fmt.Sprintf("Budget %s projected to exceed %g%% in %s: forecast %s of %s",
			b.Name, t.Percent, s.Period, s.Forecast.Projected.Dollars(), s.Amount.Dollars())
	default:
		m.Subject = fmt.Sprintf("Budget %s reached %.0f%% (threshold %g%%) in %s: %s spent of %s",
			b.Name, s.Percent, t.Percent, s.Period, s.Spent.Dollars(), s.Amount.Dollars())
	}
	m.Text = text(b, s, head, also)
	crossed := t.String()
	for _, c := range also {
		crossed += ", " + c.Threshold.String()
	}
	m.Fields = []notify.Field{
		{Name: "Budget", Value: b.Name},
		{Name: "Period", Value: fmt.Sprintf("%s (%s to %s)", s.Period, s.Start.Format("2 Jan"), s.End.AddDate(0, 0, -1).Format("2 Jan 2006"))},
		{Name: "Threshold", Value: t.String()},
		{Name: "Crossed", Value: crossed},
		{Name: "Amount", Value: s.Amount.Dollars()},
		{Name: "Spent", Value: fmt.Sprintf("%s (%.1f%%)", s.Spent.Dollars(), s.Percent)},
		{Name: "Forecast", Value: fmt.Sprintf("%s (%.1f%%)", s.Forecast.Projected.Dollars(), s.ForecastPercent)},
		{Name: "Left", Value: s.Remaining.Dollars()},
		{Name: "Days left", Value: fmt.Sprint(s.DaysLeft)},
		{Name: "Burn/day", Value: fmt.Sprintf("%s (%d days with data)", s.BurnRate.Dollars(), s.DataDays)},
		{Name: "Allowed/day", Value: s.AllowedRate.Dollars()},
		{Name: "Alert key", Value: head.Key},
	}
	return m
}

// text is an alert's plain-text body: the spend, the thresholds, the forecast, what is left
// and the key.
func text(b budget.Budget, s budget.Status, head budget.Crossing, also []budget.Crossing) string {
	var w strings.Builder
	fmt.Fprintf(&w, "Budget %s has spent %s of its %s %s budget for %s (%.0f%%), crossing its %s threshold.\n",
		b.Name, s.Spent.Dollars(), s.Amount.Dollars(), b.Period, s.Period, s.Percent, head.Threshold)
	if len(also) > 0 {
		names := make([]string, len(also))
		for i, c := range also {
			names[i] = c.Threshold.String()
		}
		fmt.Fprintf(&w, "Also crossed: %s.\n", strings.Join(names, ", "))
	}
	band := "p10–p90 not enough data"
	if s.Forecast.Banded() {
		band = fmt.Sprintf("p10–p90 %s–%s", s.Forecast.Low.Dollars(), s.Forecast.High.Dollars())
	}
	fmt.Fprintf(&w, "The forecast for the period is %s (%.0f%% of the budget; %s).\n",
		s.Forecast.Projected.Dollars(), s.ForecastPercent, band)
	burn := fmt.Sprintf("%s a day over %d days with data", s.BurnRate.Dollars(), s.DataDays)
	if s.Remaining.Nanos >= 0 {
		fmt.Fprintf(&w, "%s is left for %d days: %s a day keeps it within budget; the burn rate is %s.\n",
			s.Remaining.Dollars(), s.DaysLeft, s.AllowedRate.Dollars(), burn)
	} else {
		fmt.Fprintf(&w, "The budget is over by %s with %d days left; the burn rate is %s.\n",
			s.Remaining.MulFloat(-1).Dollars(), s.DaysLeft, burn)
	}
	fmt.Fprintf(&w, "Alert key: %s", head.Key)
	return w.String()
}
