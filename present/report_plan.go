package present

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpucost/gpucost/recommend"
)

// planColumns are the columns of a plan. Only step rows fill Saving, so the column adds up to
// the plan's total; a group's row gives its cost before and after, an alternative's row its
// own saving in words.
var planColumns = []string{"#", "ID", "Lever", "Action", "Before", "After", "Saving", "Confidence"}

// PlanHeadline says what a plan does to the monthly bill and each lever's share of it:
// "Monthly GPU cost $179,853.76 → $53,904.77, −70.0%: right-sizing 42.4%, spot 3.2%, …", in the
// cents and tenths of a percent its tables print (recommend.Plan.Cents).
func PlanHeadline(p recommend.Plan) string {
	return planHeadline(p, p.Cents())
}

func planHeadline(p recommend.Plan, c recommend.Cents) string {
	var shares []string
	for i, l := range p.Levers {
		if l.MonthlySaving.Nanos > 0 {
			shares = append(shares, fmt.Sprintf("%s %.1f%%", l.Lever, c.Levers[i].Percent))
		}
	}
	s := fmt.Sprintf("Monthly GPU cost %s → %s, −%.1f%% (%s saved)", c.Before.Dollars(), c.After.Dollars(), c.SavingPercent, c.Saving.Dollars())
	if len(shares) > 0 {
		s += ": " + strings.Join(shares, ", ")
	}
	return s
}

// RecommendPlan is recommend's table: each resource group with its steps in the order they apply, and
// under each step the alternatives it was chosen over, folded into "instead of" lines. Each
// step's evidence, risk and what it needs from people are in the notes. Its amounts are in the
// plan's cents (recommend.Plan.Cents), so that they add up: the groups' Before and After, with
// a row for the groups it has nothing to list, to the headline's, and the steps' savings to its
// saving.
func RecommendPlan(p recommend.Plan) Table {
	c := p.Cents()
	t := Table{Title: planHeadline(p, c), Columns: planColumns, Right: []int{0, 4, 5, 6}, JSON: p,
		Priority: []int{0, 5, 2, 9, 3, 4, 10, 1}} // narrow: the action and its saving stay
	n := 0
	for gi, g := range p.Groups {
		if !g.Listed() {
			continue
		}
		n++
		gc := c.Groups[gi]
		t.Rows = append(t.Rows, []string{strconv.Itoa(n), g.ID, "", g.Name, gc.Before.Dollars(), gc.After.Dollars(), "", ""})
		for i, s := range g.Steps {
			num := fmt.Sprintf("%d.%d", n, i+1)
			rec, sc := s.Recommendation, gc.Steps[i]
			t.Rows = append(t.Rows, []string{num, s.ID, s.Lever, rec.Action, sc.Before.Dollars(), sc.After.Dollars(),
				sc.Saving.Dollars(), string(rec.Confidence)})
			for _, a := range s.Alternatives {
				t.Rows = append(t.Rows, alternativeRow("instead of", a))
			}
			t.Notes = append(t.Notes, stepNote(num, s))
		}
		for _, a := range g.NotChosen {
			t.Rows = append(t.Rows, alternativeRow("left out", a))
		}
	}
	if n == 0 {
		t.Rows = append(t.Rows, []string{"", "", "", "no change saves at least --min-saving", "", "", "", ""})
	}
	if c.Unlisted > 0 {
		t.Rows = append(t.Rows, []string{"", "", "", unlistedGroups(c.Unlisted), c.UnlistedCost.Dollars(), c.UnlistedCost.Dollars(), "", ""})
		t.Notes = append(t.Notes, unlistedNote(p))
	}
	t.Notes = append(t.Notes, "Each step is priced on its group as the steps above it left it, and alternatives are not added: the steps' savings add up to the total, as gpucost report savings gives it. "+
		"Amounts are rounded to the cent so that they add up: the groups' Before and After to the headline's, each step's Before − After to its saving.")
	if !p.OneTimeCost.IsZero() {
		t.Notes = append(t.Notes, fmt.Sprintf("One-time cost of the changes: %s of data egress for the moves, not in the monthly figures.", p.OneTimeCost.Dollars()))
	}
	return t
}

// unlistedGroups names the row of a plan's groups that have no change to list.
func unlistedGroups(n int) string {
	if n == 1 {
		return "1 group of machines with no change"
	}
	return fmt.Sprintf("%d groups of machines with no change", n)
}

// unlistedNote names the groups with no change, the first ten of them.
func unlistedNote(p recommend.Plan) string {
	var ids []string
	for _, g := range p.Groups {
		if !g.Listed() {
			ids = append(ids, g.ID)
		}
	}
	if len(ids) > 10 {
		ids = append(ids[:10], fmt.Sprintf("and %d more", len(ids)-10))
	}
	return "No change saves at least --min-saving on " + strings.Join(ids, ", ") + ": their cost is in the headline, before and after."
}

func alternativeRow(label string, a recommend.Alternative) []string {
	return []string{"", "", a.Lever, fmt.Sprintf("  %s: %s (%s a month alone): %s", label, a.Action, a.MonthlySaving.Dollars(), a.Why), "", "", "", string(a.Confidence)}
}

func stepNote(num string, s recommend.PlanStep) string {
	rec := s.Recommendation
	note := fmt.Sprintf("%s %s: needs %s; risk: %s; confidence %s: %s; evidence: %s", num, s.ID,
		strings.Join(s.Needs, "; "), rec.Risk, rec.Confidence, rec.ConfidenceWhy, strings.Join(rec.Evidence, "; "))
	if !rec.OneTimeCost.IsZero() {
		note += fmt.Sprintf("; one-time cost %s", rec.OneTimeCost.Dollars())
	}
	return note
}
