package present

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/recommend"
	"github.com/gpucost/gpucost/serving"
)

// recommendColumns are the columns of a list of recommendations.
var recommendColumns = []string{"#", "Kind", "Action", "Monthly saving", "Confidence", "Risk"}

func recommendationRow(n string, rec gpucost.Recommendation) []string {
	return []string{n, string(rec.Kind), rec.Action, rec.MonthlySaving.Dollars(), string(rec.Confidence), rec.Risk}
}

// Savings is report savings' table: the monthly cost before and after gpucost recommend's plan,
// by lever, with each lever's share. Its amounts are the plan's cents (recommend.Plan.Cents), as
// gpucost recommend prints them: each lever's saving is the sum of its changes', and the
// levers' savings and shares add up to the title's saving and cut.
func Savings(rep recommend.SavingsReport) Table {
	c := rep.Cents
	t := Table{
		Title: fmt.Sprintf("Monthly GPU cost %s → %s: %s saved (%.1f%%)", c.Before.Dollars(), c.After.Dollars(),
			c.Saving.Dollars(), c.SavingPercent),
		Columns: []string{"Lever", "Lever saving", "Share", "Change", "Saving"},
		Right:   []int{1, 2, 4},
		JSON:    rep,
	}
	for i, l := range rep.Levers {
		lc := c.Levers[i]
		lever, total, share := l.Lever, lc.Saving.Dollars(), fmt.Sprintf("%.1f%%", lc.Percent)
		for j, rec := range l.Recommendations {
			t.Rows = append(t.Rows, []string{lever, total, share, rec.Action, lc.Steps[j].Dollars()})
			lever, total, share = "", "", ""
		}
		if len(l.Recommendations) == 0 {
			t.Rows = append(t.Rows, []string{lever, total, share, "—", ""})
		}
	}
	t.Notes = append(t.Notes, "Each change is gpucost recommend's plan step, priced on its group as the steps before it left it, so the savings add up to the total; "+
		"share is the lever's saving as a part of the monthly cost before. Amounts are in the cents gpucost recommend prints, rounded so that the changes add up to their lever, the levers to the total and their shares to the cut.")
	if !rep.OneTimeCost.IsZero() {
		t.Notes = append(t.Notes, fmt.Sprintf("One-time cost of the changes: %s of data egress for the moves, not in the monthly figures.", rep.OneTimeCost.Dollars()))
	}
	return t
}

// SavingsSentence says in one sentence what the plan would save, with each lever's share of
// the monthly bill, in the cents report savings prints.
func SavingsSentence(rep recommend.SavingsReport) string {
	c := rep.Cents
	var levers []string
	for i, l := range rep.Levers {
		if l.MonthlySaving.Nanos > 0 {
			levers = append(levers, fmt.Sprintf("%s %s (%.1f%%)", l.Lever, c.Levers[i].Saving.Dollars(), c.Levers[i].Percent))
		}
	}
	return fmt.Sprintf("The recommended plan would take the GPU bill from %s to %s a month (−%.1f%%): %s.",
		c.Before.Dollars(), c.After.Dollars(), c.SavingPercent, strings.Join(levers, ", "))
}

// Serving is the serving section of recommend --serving: the pools sized by their request
// counts, their changes numbered S1, S2, ….
func Serving(sec serving.Section) Table {
	t := Table{
		Title:   "Serving pools by request counts (Erlang C). " + sec.Note,
		Columns: recommendColumns,
		Right:   []int{0, 3},
	}
	for i, rec := range sec.Recommendations {
		t.Rows = append(t.Rows, recommendationRow("S"+strconv.Itoa(i+1), rec))
	}
	for _, p := range sec.Pools {
		line := fmt.Sprintf("Pool %s (%d serving machines in the bill), %s, service time %v: busiest hour %.0f requests, mean %.0f; %s.",
			p.Namespace, p.Machines, p.SLO, time.Duration(p.ServiceTimeS*float64(time.Second)), p.PeakHour, p.MeanHour, p.Source)
		if p.Machines == 0 {
			line += " No serving machines of this namespace are in the bill of the period: nothing to size."
		}
		if tk := p.Tokens; tk != nil {
			line += fmt.Sprintf(" As held, %s per 1M tokens (%.0f input and %.0f output tokens a request)", tk.PerMillion.Dollars(), tk.InputPerRequest, tk.OutputPerRequest)
			if tk.PerMillionInput != nil && tk.PerMillionOutput != nil {
				line += fmt.Sprintf(": %s input, %s output", tk.PerMillionInput.Dollars(), tk.PerMillionOutput.Dollars())
			}
			line += "."
		}
		t.Notes = append(t.Notes, line)
	}
	if len(sec.Recommendations) == 0 {
		t.Rows = append(t.Rows, []string{"", "", "no change by request counts saves at least --min-saving", "", "", ""})
	}
	for i, rec := range sec.Recommendations {
		t.Notes = append(t.Notes, fmt.Sprintf("S%d. evidence: %s", i+1, strings.Join(rec.Evidence, "; ")))
	}
	return t
}

// WriteRecommendServing writes recommend's answer with its serving section in format: both
// tables, one after the other; with json {"plan": {...}, "serving": {...}}; with csv one table
// with a Section column: the plan's rows (as RecommendPlan gives them), then the serving
// changes with their evidence. With json and csv the notes go to notes.
func WriteRecommendServing(out, notes io.Writer, format string, p recommend.Plan, sec serving.Section) error {
	fleet, pools := RecommendPlan(p), Serving(sec)
	if format == "table" {
		if err := Write(out, notes, format, fleet); err != nil {
			return err
		}
		fmt.Fprintln(out)
		return Write(out, notes, format, pools)
	}
	for _, n := range append(fleet.Notes, pools.Notes...) {
		fmt.Fprintln(notes, n)
	}
	if format == "json" {
		return WriteJSON(out, Table{JSON: map[string]any{"plan": p, "serving": sec}})
	}
	w := csv.NewWriter(out)
	w.Write(append([]string{"Section"}, append(planColumns, "Risk", "Evidence")...))
	for _, row := range fleet.Rows {
		w.Write(append(append([]string{"plan"}, row...), "", ""))
	}
	for i, rec := range sec.Recommendations {
		w.Write([]string{"serving", "S" + strconv.Itoa(i+1), "", string(rec.Kind), rec.Action, "", "", rec.MonthlySaving.Dollars(),
			string(rec.Confidence), rec.Risk, strings.Join(rec.Evidence, "; ")})
	}
	w.Flush()
	return w.Error()
}
