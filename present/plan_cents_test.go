package present

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/recommend"
	"github.com/gpucost/gpucost/recommend/recommendtest"
)

// centsPlan is recommendtest.Uneven, checked to still show what it is for: figures that do not
// add up when each is rounded on its own.
func centsPlan(t *testing.T) recommend.Plan {
	t.Helper()
	p := recommendtest.Uneven()
	// Each figure rounded on its own, as the tables printed them before, does not add up.
	steps, levers, tenths := gpucost.USD(0), gpucost.USD(0), 0
	for _, s := range p.Steps() {
		steps = steps.Add(s.Recommendation.MonthlySaving.Round(2))
	}
	for _, l := range p.Levers {
		levers, tenths = levers.Add(l.MonthlySaving.Round(2)), tenths+percentTenths(t, strconv.FormatFloat(l.Percent, 'f', 1, 64))
	}
	if steps.Fixed(2) != "76898.86" || levers.Fixed(2) != "76898.85" || p.Saving.Fixed(2) != "76898.84" || tenths != 599 {
		t.Fatalf("the case no longer shows the problem: steps %s, levers %s, total %s, shares %d tenths", steps.Fixed(2), levers.Fixed(2), p.Saving.Fixed(2), tenths)
	}
	return p
}

// percentTenths reads a printed percentage with one decimal ("26.0" or "26.0%") in tenths.
func percentTenths(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(strings.Replace(strings.TrimSuffix(s, "%"), ".", "", 1))
	if err != nil || !strings.Contains(s, ".") {
		t.Fatalf("printed percentage %q: not one decimal", s)
	}
	return n
}

// dollars reads a printed amount ("$1,234.56") back, failing t when it is not one.
func dollars(t *testing.T, s string) gpucost.Money {
	t.Helper()
	m, err := gpucost.ParseMoney(strings.NewReplacer("$", "", ",", "").Replace(s), "USD")
	if err != nil {
		t.Fatalf("printed amount %q: %v", s, err)
	}
	return m
}

var (
	planTitle    = regexp.MustCompile(`^Monthly GPU cost (\S+) → (\S+), −([\d.]+)% \((\S+) saved\): (.*)$`)
	savingsTitle = regexp.MustCompile(`^Monthly GPU cost (\S+) → (\S+): (\S+) saved \(([\d.]+)%\)$`)
)

// shareTenths adds up the shares "right-sizing 26.0%, idle 3.2%" in tenths of a percent.
func shareTenths(t *testing.T, shares []string) int {
	sum := 0
	for _, s := range shares {
		sum += percentTenths(t, s[strings.LastIndexByte(s, ' ')+1:])
	}
	return sum
}

// recommend's table adds up: each step's Before − After is its Saving and its Before the
// previous row's After, the group rows (with the row of groups with no change) add up to the
// headline's Before and After, the steps' savings to its saving, and the shares to its cut.
func TestRecommendPlanAddsUp(t *testing.T) {
	p := centsPlan(t)
	tab := RecommendPlan(p)
	m := planTitle.FindStringSubmatch(tab.Title)
	if m == nil {
		t.Fatalf("RecommendPlan title %q", tab.Title)
	}
	before, after, saving := dollars(t, m[1]), dollars(t, m[2]), dollars(t, m[4])
	if before.Sub(after) != saving || shareTenths(t, strings.Split(m[5], ", ")) != percentTenths(t, m[3]) {
		t.Errorf("RecommendPlan title %q: before − after is not the saving, or the shares do not add up to the cut", tab.Title)
	}
	groupsBefore, groupsAfter, steps := gpucost.USD(0), gpucost.USD(0), gpucost.USD(0)
	var at gpucost.Money
	unlisted := 0
	for _, r := range tab.Rows {
		switch {
		case r[6] != "": // a step
			b, a, s := dollars(t, r[4]), dollars(t, r[5]), dollars(t, r[6])
			if b.Sub(a) != s || b != at {
				t.Errorf("step %s: %s − %s = %s after a row that ended at %s", r[0], r[4], r[5], r[6], at.Dollars())
			}
			at, steps = a, steps.Add(s)
		case r[4] != "": // a group
			if r[0] == "" {
				unlisted++
			}
			groupsBefore, groupsAfter, at = groupsBefore.Add(dollars(t, r[4])), groupsAfter.Add(dollars(t, r[5])), dollars(t, r[4])
		}
	}
	if groupsBefore != before || groupsAfter != after || steps != saving || unlisted != 1 {
		t.Errorf("RecommendPlan: groups %s → %s (%d rows of groups with no change), steps save %s; title %q",
			groupsBefore.Dollars(), groupsAfter.Dollars(), unlisted, steps.Dollars(), tab.Title)
	}
	if !strings.Contains(strings.Join(tab.Notes, "\n"), "group-2") {
		t.Errorf("RecommendPlan notes do not name the group with no change: %q", tab.Notes)
	}
}

// report savings' table adds up: each lever's saving is its changes', the levers add up to the
// title's saving and their shares to its cut, and each change's cents are recommend's.
func TestSavingsAddsUp(t *testing.T) {
	p := centsPlan(t)
	tab := Savings(recommend.Savings(p))
	m := savingsTitle.FindStringSubmatch(tab.Title)
	if m == nil {
		t.Fatalf("Savings title %q", tab.Title)
	}
	before, after, saving := dollars(t, m[1]), dollars(t, m[2]), dollars(t, m[3])
	if before.Sub(after) != saving {
		t.Errorf("Savings title %q: before − after is not the saving", tab.Title)
	}
	var shares []string
	levers := gpucost.USD(0)
	var lever, changes gpucost.Money
	changeCents := map[string]string{}
	check := func() {
		if lever != changes {
			t.Errorf("Savings: a lever saves %s, its changes %s", lever.Dollars(), changes.Dollars())
		}
	}
	for _, r := range tab.Rows {
		if r[0] != "" {
			check()
			lever, changes = dollars(t, r[1]), gpucost.USD(0)
			levers, shares = levers.Add(lever), append(shares, r[0]+" "+r[2])
		}
		if r[4] != "" {
			changes = changes.Add(dollars(t, r[4]))
			changeCents[r[3]] = r[4]
		}
	}
	check()
	if levers != saving || shareTenths(t, shares) != percentTenths(t, m[4]) {
		t.Errorf("Savings: levers save %s with shares %q; title %q", levers.Dollars(), shares, tab.Title)
	}
	for _, r := range RecommendPlan(p).Rows {
		if r[6] != "" && changeCents[r[3]] != r[6] {
			t.Errorf("%s: report savings prints %s, recommend %s", r[3], changeCents[r[3]], r[6])
		}
	}
	sentence := SavingsSentence(recommend.Savings(p))
	if !strings.Contains(sentence, m[1]+" to "+m[2]) {
		t.Errorf("SavingsSentence = %q, want the table's %s to %s", sentence, m[1], m[2])
	}
}

// The note under recommend's table names the groups with no change, ten at most.
func TestUnlistedNote(t *testing.T) {
	var p recommend.Plan
	for i := range 12 {
		p.Groups = append(p.Groups, recommend.PlanGroup{ID: fmt.Sprintf("g%d", i)})
	}
	p.Groups[3].Steps = []recommend.PlanStep{{ID: "g3/idle/schedule"}}
	want := "No change saves at least --min-saving on g0, g1, g2, g4, g5, g6, g7, g8, g9, g10, and 1 more: their cost is in the headline, before and after."
	if got := unlistedNote(p); got != want {
		t.Errorf("unlistedNote(12 groups, one with a step) = %q, want %q", got, want)
	}
}
