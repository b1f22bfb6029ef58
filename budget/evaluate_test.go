package budget

import (
	"slices"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

func TestEvaluateThresholds(t *testing.T) {
	b := Budget{Name: "research", Period: Monthly, Amount: gpucost.USD(10_000e9), Thresholds: []Threshold{
		{Kind: KindActual, Percent: 50, Notify: []string{"slack"}},
		{Kind: KindActual, Percent: 80, Notify: []string{"leads"}},
		{Kind: KindActual, Percent: 100},
		{Kind: KindForecast, Percent: 100, Notify: []string{"leads"}},
	}}
	start := day("2026-11-01")
	flat := func(perDay int64, days int) []DayCost {
		var out []DayCost
		for d := range days {
			out = append(out, DayCost{Day: start.AddDate(0, 0, d), Cost: gpucost.USD(perDay * 1e9)})
		}
		return out
	}
	now := day("2026-11-16").Add(9 * time.Hour)
	for _, tc := range []struct {
		name    string
		daily   []DayCost
		crossed []string
		spent   string
	}{
		{"quiet", flat(100, 15), nil, "USD 1500.00"},
		{"forecast over", flat(340, 15), []string{"budget:research:2026-11:actual:50", "budget:research:2026-11:forecast:100"}, "USD 5100.00"},
		{"nothing", nil, nil, "USD 0.00"},
		{"over", flat(700, 15), []string{"budget:research:2026-11:actual:50", "budget:research:2026-11:actual:80",
			"budget:research:2026-11:actual:100", "budget:research:2026-11:forecast:100"}, "USD 10500.00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Evaluate(b, tc.daily, now)
			var keys []string
			for _, c := range s.Crossed {
				keys = append(keys, c.Key)
			}
			if !slices.Equal(keys, tc.crossed) || s.Spent.String() != tc.spent {
				t.Errorf("Evaluate(%s) crossed %v spent %s, want %v spent %s", tc.name, keys, s.Spent, tc.crossed, tc.spent)
			}
			if s.Period != "2026-11" || s.DaysLeft != 15 || len(s.Daily) != 16 || s.Remaining != b.Amount.Sub(s.Spent) {
				t.Errorf("Evaluate(%s): period %s, %d days left, %d daily, remaining %s", tc.name, s.Period, s.DaysLeft, len(s.Daily), s.Remaining)
			}
		})
	}
	s := Evaluate(b, flat(340, 15), now)
	// 15 days with data, 1–15 November; the 16th, today, has none yet.
	if s.BurnRate != gpucost.USD(340e9) || s.DataDays != 15 || s.AllowedRate != gpucost.USD(4900e9).DivInt(15) || s.ForecastPercent < 100 || s.Percent != 51 {
		t.Errorf("Evaluate: burn %s allowed %s, %.1f%% spent, %.1f%% forecast", s.BurnRate, s.AllowedRate, s.Percent, s.ForecastPercent)
	}
	if c := s.Crossed[0]; c.Threshold.Notify[0] != "slack" || c.Percent != 51 {
		t.Errorf("crossing %+v, want slack at 51%%", c)
	}
	// The same spend in the next period is a new period: new keys.
	next := Evaluate(b, nil, day("2026-12-02"))
	if next.Period != "2026-12" || len(next.Crossed) != 0 {
		t.Errorf("Evaluate in December = %s, crossed %v", next.Period, next.Crossed)
	}
}

func TestEvaluateExact80(t *testing.T) {
	b := Budget{Name: "q", Period: Quarterly, Amount: gpucost.USD(1000e9), Thresholds: DefaultThresholds(nil)}
	s := Evaluate(b, []DayCost{{Day: day("2026-10-05"), Cost: gpucost.USD(800e9)}}, day("2026-10-06"))
	// One day of history: the run rate projects 800 a day over the quarter.
	if len(s.Crossed) != 3 || s.Crossed[1].Key != "budget:q:2026-Q4:actual:80" || s.Crossed[2].Key != "budget:q:2026-Q4:forecast:100" {
		t.Errorf("Evaluate(800 of 1000) crossed %+v, want actual 50 and 80 and forecast 100", s.Crossed)
	}
}

func TestPeriodOf(t *testing.T) {
	for _, tc := range []struct {
		period, at, start, end, key string
	}{
		{Monthly, "2026-02-28", "2026-02-01", "2026-03-01", "2026-02"},
		{Quarterly, "2026-02-28", "2026-01-01", "2026-04-01", "2026-Q1"},
		{Quarterly, "2026-12-31", "2026-10-01", "2027-01-01", "2026-Q4"},
	} {
		s, e, k := PeriodOf(tc.period, day(tc.at))
		if !s.Equal(day(tc.start)) || !e.Equal(day(tc.end)) || k != tc.key {
			t.Errorf("PeriodOf(%s, %s) = %v, %v, %s", tc.period, tc.at, s, e, k)
		}
	}
}

func TestDedupeKey(t *testing.T) {
	if got := DedupeKey("gpu", "2026-11", Threshold{Kind: KindForecast, Percent: 12.5}); got != "budget:gpu:2026-11:forecast:12.5" {
		t.Errorf("DedupeKey = %s", got)
	}
}

// TestBurnRateDaysWithData: a quarter-to-date burn rate divides by the days with data, not the
// days elapsed; Spend.Statuses counts the days the bill covers, in the budget's scope or not.
func TestBurnRateDaysWithData(t *testing.T) {
	b := Budget{Name: "q4", Period: Quarterly, Amount: gpucost.USD(100_000e9)}
	now := day("2026-11-27").Add(10 * time.Hour) // 58 days into Q4
	var daily []DayCost
	for _, d := range []string{"2026-11-23", "2026-11-24", "2026-11-25", "2026-11-26"} {
		daily = append(daily, DayCost{Day: day(d), Cost: gpucost.USD(1000e9)})
	}
	s := Evaluate(b, daily, now)
	if s.BurnRate != gpucost.USD(1000e9) || s.DataDays != 4 || len(s.Daily) != 58 {
		t.Errorf("Evaluate(4 days of $1,000 in Q4) burn %s over %d days with data (%d elapsed), want USD 1000.00 over 4 (58)", s.BurnRate, s.DataDays, len(s.Daily))
	}
	// The bill also covers the 22nd, when the scope spent nothing: $4,000 over 5 days.
	sp := NewSpend([]Budget{b}, nil)
	sp.Daily[0] = daily
	sp.DataDays = []time.Time{day("2026-09-30"), day("2026-11-22"), day("2026-11-23"), day("2026-11-24"), day("2026-11-25"), day("2026-11-26")}
	if s := sp.Statuses(now)[0]; s.BurnRate != gpucost.USD(800e9) || s.DataDays != 5 {
		t.Errorf("Statuses burn %s over %d days with data, want USD 800.00 over 5", s.BurnRate, s.DataDays)
	}
	if s := Evaluate(b, nil, now); !s.BurnRate.IsZero() || s.DataDays != 0 {
		t.Errorf("Evaluate(no data) burn %s over %d days, want zero over 0", s.BurnRate, s.DataDays)
	}
}
