package web

import (
	"regexp"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/recommend"
	"github.com/gpucost/gpucost/recommend/recommendtest"
)

// centsPlan is recommendtest.Uneven, checked to still show what it is for: levers that add up
// to 76898.85 under a saving of 76898.84 when each is rounded on its own.
func centsPlan(t *testing.T) recommend.Plan {
	t.Helper()
	p := recommendtest.Uneven()
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
