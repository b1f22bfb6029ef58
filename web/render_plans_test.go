package web

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/recommend"
)

// centsPlan is a plan whose figures do not add up when each is rounded on its own (the
// present package's test has its twin): a step of 79967.694 − 47980.619 = 31987.075 prints
// 79967.69 − 47980.62 beside 31987.08, the levers add up to 76898.85 under a saving of 76898.84,
// and one group has no change.
func centsPlan(t *testing.T) recommend.Plan {
	t.Helper()
	groups := []struct {
		costs  []int64 // before, then after each step, in tenths of a cent
		levers []string
	}{
		{[]int64{79967694, 47980619, 30234734, 23386859}, []string{recommend.LeverRightSizing, recommend.LeverAutoscaling, recommend.LeverCommitments}},
		{[]int64{40090114, 25296029}, []string{recommend.LeverCommitments}},
		{[]int64{1066245}, nil},
		{[]int64{7062385, 5696525, 1538465}, []string{recommend.LeverRightSizing, recommend.LeverIdle}},
	}
	m := func(n int64) gpucost.Money { return gpucost.USD(n * 1_000_000) }
	p := recommend.Plan{Before: gpucost.USD(0), After: gpucost.USD(0)}
	for i, g := range groups {
		pg := recommend.PlanGroup{ID: fmt.Sprintf("group-%d", i), Name: fmt.Sprintf("group %d", i), Before: m(g.costs[0]), After: m(g.costs[len(g.costs)-1])}
		for j := 1; j < len(g.costs); j++ {
			s := recommend.PlanStep{ID: fmt.Sprintf("%s/%s/%d", pg.ID, g.levers[j-1], j), Lever: g.levers[j-1], Before: m(g.costs[j-1]), After: m(g.costs[j])}
			s.Recommendation.MonthlySaving = s.Before.Sub(s.After)
			pg.Steps = append(pg.Steps, s)
		}
		p.Groups = append(p.Groups, pg)
		p.Before, p.After = p.Before.Add(pg.Before), p.After.Add(pg.After)
	}
	p.Saving = p.Before.Sub(p.After)
	p.SavingPercent = 100 * float64(p.Saving.Nanos) / float64(p.Before.Nanos)
	for _, l := range recommend.Levers {
		ls := recommend.LeverShare{Lever: l, MonthlySaving: gpucost.USD(0)}
		for _, s := range p.Steps() {
			if s.Lever == l {
				ls.MonthlySaving = ls.MonthlySaving.Add(s.Recommendation.MonthlySaving)
			}
		}
		ls.Percent = 100 * float64(ls.MonthlySaving.Nanos) / float64(p.Before.Nanos)
		p.Levers = append(p.Levers, ls)
	}
	levers := gpucost.USD(0)
	for _, l := range p.Levers {
		levers = levers.Add(l.MonthlySaving.Round(2))
	}
	if levers.Fixed(2) != "76898.85" || p.Saving.Fixed(2) != "76898.84" {
		t.Fatalf("the case no longer shows the problem: levers %s, saving %s", levers.Fixed(2), p.Saving.Fixed(2))
	}
	return p
}

var (
	pageHeadline = regexp.MustCompile(`<p class="big">(\$[\d,.]+)<small>/month</small></p><p class="sub">(\$[\d,.]+) → (\$[\d,.]+), −`)
	pageLever    = regexp.MustCompile(`</span> (\$[\d,.]+)/month, [\d.]+% of the bill</li>`)
	pageGroup    = regexp.MustCompile(`<p class="sub">(\$[\d,.]+) → (\$[\d,.]+) a month</p>`)
	pageStep     = regexp.MustCompile(`(?s)<span class="saving">(\$[\d,.]+)/month</span>.*?<p class="sub">(\$[\d,.]+) → (\$[\d,.]+) a month · step`)
	pageUnlisted = regexp.MustCompile(`<p class="sub">(\$[\d,.]+) a month, before and after`)
)

// The Recommendations page adds up as gpucost recommend does: the levers to the savings
// available, the groups (with those with no change) to the cost before and after, each step's
// cost before less its cost after to its saving, and the steps to their group's.
func TestRecommendationsAddUp(t *testing.T) {
	p := centsPlan(t)
	l := layout{Title: "Recommendations", Data: recommendationsPage{RecommendationReport: httpapi.RecommendationReport{Plan: p, MonthlySaving: p.Saving}}}
	page, err := writePage(mustAssets(), "recommendations.html", l)
	if err != nil {
		t.Fatal(err)
	}
	got := string(page)
	read := func(s string) gpucost.Money {
		m, err := gpucost.ParseMoney(strings.NewReplacer("$", "", ",", "").Replace(s), "USD")
		if err != nil {
			t.Fatalf("amount %q: %v", s, err)
		}
		return m
	}
	h := pageHeadline.FindStringSubmatch(got)
	if h == nil {
		t.Fatalf("recommendations page has no headline:\n%s", got)
	}
	saving, before, after := read(h[1]), read(h[2]), read(h[3])
	if before.Sub(after) != saving || saving.Fixed(2) != "76898.84" {
		t.Errorf("headline %s → %s, %s saved: want 76898.84 saved, before − after", h[2], h[3], h[1])
	}
	levers := gpucost.USD(0)
	for _, m := range pageLever.FindAllStringSubmatch(got, -1) {
		levers = levers.Add(read(m[1]))
	}
	groupsBefore, groupsAfter := gpucost.USD(0), gpucost.USD(0)
	for _, m := range pageGroup.FindAllStringSubmatch(got, -1) {
		groupsBefore, groupsAfter = groupsBefore.Add(read(m[1])), groupsAfter.Add(read(m[2]))
	}
	if u := pageUnlisted.FindStringSubmatch(got); u != nil {
		groupsBefore, groupsAfter = groupsBefore.Add(read(u[1])), groupsAfter.Add(read(u[1]))
	} else {
		t.Errorf("recommendations page does not show the group with no change")
	}
	steps := gpucost.USD(0)
	for _, m := range pageStep.FindAllStringSubmatch(got, -1) {
		if read(m[2]).Sub(read(m[3])) != read(m[1]) {
			t.Errorf("step %s → %s saves %s", m[2], m[3], m[1])
		}
		steps = steps.Add(read(m[1]))
	}
	if levers != saving || steps != saving || groupsBefore != before || groupsAfter != after {
		t.Errorf("levers save %s, steps %s, groups %s → %s; headline %s → %s, %s saved", levers.Dollars(), steps.Dollars(),
			groupsBefore.Dollars(), groupsAfter.Dollars(), before.Dollars(), after.Dollars(), saving.Dollars())
	}
}
