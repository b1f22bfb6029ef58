package budget

import (
	"slices"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

func TestHistoryStart(t *testing.T) {
	now := day("2026-11-16").Add(9 * time.Hour)
	for _, tc := range []struct {
		name    string
		budgets []Budget
		want    time.Time
	}{
		{"none", nil, now},
		{"monthly", []Budget{{Period: Monthly}}, day("2026-09-06")},
		{"quarterly wins", []Budget{{Period: Monthly}, {Period: Quarterly}}, day("2026-08-06")},
	} {
		if got := HistoryStart(tc.budgets, now); !got.Equal(tc.want) {
			t.Errorf("HistoryStart(%s) = %s, want %s", tc.name, got, tc.want)
		}
	}
}

// spendFixture is a research budget of $10,000 a month that spent $100 a day from 1 to 15
// November, a EUR budget and a budget of another team, all read at 16 November 09:00.
func spendFixture(t *testing.T) (*Spend, time.Time) {
	t.Helper()
	budgets := []Budget{
		{Name: "research", Scope: Scope{Team: "research"}, Period: Monthly, Amount: gpucost.USD(10_000e9), Cost: Effective},
		{Name: "euro", Scope: Scope{Team: "research"}, Period: Monthly, Amount: gpucost.Money{Nanos: 10_000e9, Currency: "EUR"}},
		{Name: "infra", Scope: Scope{Team: "infra"}, Period: Monthly, Amount: gpucost.USD(10_000e9)},
	}
	tally := NewTally(budgets, &Matcher{IsGPU: func(*gpucost.CostLine) bool { return true }})
	for d := range 15 {
		tally.Add(&gpucost.CostLine{ChargePeriodStart: day("2026-11-01").AddDate(0, 0, d), EffectiveCost: gpucost.USD(100e9),
			Tags: gpucost.Labels{"team": "research"}})
	}
	return tally.Spend(), day("2026-11-16").Add(9 * time.Hour)
}

func TestTallySpend(t *testing.T) {
	sp, now := spendFixture(t)
	if len(sp.Daily[0]) != 15 || len(sp.Daily[1]) != 0 || !slices.Equal(sp.OtherCurrency, []int{0, 15, 0}) || sp.Match == nil {
		t.Fatalf("Tally.Spend() = %d, %d days, other currency %v", len(sp.Daily[0]), len(sp.Daily[1]), sp.OtherCurrency)
	}
	st := sp.Statuses(now)
	if len(st) != 3 || st[0].Spent != gpucost.USD(1500e9) || st[2].Spent.Nanos != 0 || st[0].Period != "2026-11" {
		t.Errorf("Statuses = %+v", st)
	}
	empty := NewSpend(sp.Budgets, nil).Statuses(now)
	if len(empty) != 3 || empty[0].Spent.Nanos != 0 || len(empty[0].Crossed) != 0 {
		t.Errorf("NewSpend(...).Statuses = %+v, want nothing spent", empty)
	}
}

func TestSpendCheckJob(t *testing.T) {
	sp, now := spendFixture(t)
	forecast := sp.Statuses(now)[0].Forecast.Projected
	if !gpucost.USD(1500e9).Less(forecast) {
		t.Fatalf("forecast %s, want more than the $1,500 spent", forecast)
	}
	job := func(cost int64, start time.Time, span time.Duration, team string) Estimate {
		return Estimate{Job: Job{Start: start, Span: span, Scope: Scope{Team: team}}, Cost: gpucost.USD(cost * 1e9)}
	}
	for _, tc := range []struct {
		name     string
		est      Estimate
		forecast bool
		period   string
		base     gpucost.Money
		jobCost  gpucost.Money
		breaks   bool
	}{
		{"fits the forecast", job(500, day("2026-11-20"), 48*time.Hour, "research"), true, "2026-11", forecast, gpucost.USD(500e9), false},
		{"breaks the forecast", job(8000, day("2026-11-20"), 48*time.Hour, "research"), true, "2026-11", forecast, gpucost.USD(8000e9), true},
		{"fits the spend so far", job(8000, day("2026-11-20"), 48*time.Hour, "research"), false, "2026-11", gpucost.USD(1500e9), gpucost.USD(8000e9), false},
		{"starts now", job(100, time.Time{}, time.Hour, "research"), false, "2026-11", gpucost.USD(1500e9), gpucost.USD(100e9), false},
		{"half in the period", job(1000, day("2026-11-30").Add(12*time.Hour), 24*time.Hour, "research"), false, "2026-11", gpucost.USD(1500e9), gpucost.USD(500e9), false},
		{"a later period", job(1000, day("2026-12-05"), 24*time.Hour, "research"), false, "2026-12", gpucost.USD(0), gpucost.USD(1000e9), false},
	} {
		got := sp.CheckJob(tc.est, now, tc.forecast)
		if len(got) != 1 {
			t.Errorf("CheckJob(%s) = %+v, want the research budget alone (not the EUR one, not infra's)", tc.name, got)
			continue
		}
		c := got[0]
		if c.Budget != "research" || c.Period != tc.period || c.Base != tc.base || c.JobCost != tc.jobCost || c.Breaks != tc.breaks ||
			c.LeftAfter != c.Amount.Sub(c.Base).Sub(c.JobCost) {
			t.Errorf("CheckJob(%s) = %+v, want period %s, base %s, job %s, breaks %v", tc.name, c, tc.period, tc.base, tc.jobCost, tc.breaks)
		}
	}
	later := sp.CheckJob(job(1000, day("2026-12-05"), 24*time.Hour, "research"), now, true)[0]
	if later.Spent.Nanos != 0 || later.Forecast.Nanos <= 0 || later.Base != later.Forecast {
		t.Errorf("CheckJob(a later period, against the forecast) = %+v, want nothing spent and December's forecast as base", later)
	}
	if got := sp.CheckJob(job(100, day("2026-11-20"), time.Hour, "ops"), now, true); len(got) != 0 {
		t.Errorf("CheckJob(a job no scope covers) = %+v, want none", got)
	}
}

func TestBurnDown(t *testing.T) {
	s := Status{Amount: gpucost.USD(1000e9), Daily: []DayCost{{Cost: gpucost.USD(250e9)}, {Cost: gpucost.USD(0)}, {Cost: gpucost.USD(1000e9)}}}
	if got, want := s.BurnDown(), []float64{75, 75, 0}; !slices.Equal(got, want) {
		t.Errorf("BurnDown() = %v, want %v", got, want)
	}
	if got := (Status{Daily: []DayCost{{Cost: gpucost.USD(1)}}}).BurnDown(); got[0] != 0 {
		t.Errorf("BurnDown() of a zero budget = %v, want [0]", got)
	}
}
