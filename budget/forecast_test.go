package budget

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/demo"
)

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

// seasonal returns a daily series from from to to: $1,000 a weekday and $300 a weekend day,
// growing 0.2% a day, with ±noise relative error.
func seasonal(from, to time.Time, noise float64, seed uint64) []DayCost {
	r := rand.New(rand.NewPCG(seed, 7))
	var out []DayCost
	for i, t := 0, from; t.Before(to); i, t = i+1, t.AddDate(0, 0, 1) {
		v := 1000.0
		if wd := t.Weekday(); wd == time.Saturday || wd == time.Sunday {
			v = 300
		}
		v *= math.Pow(1.002, float64(i)) * (1 + noise*(2*r.Float64()-1))
		out = append(out, DayCost{Day: t, Cost: gpucost.USD(int64(v * 1e9))})
	}
	return out
}

func total(days []DayCost, from, to time.Time) gpucost.Money {
	m := gpucost.USD(0)
	for _, d := range days {
		if !d.Day.Before(from) && d.Day.Before(to) {
			m = m.Add(d.Cost)
		}
	}
	return m
}

func relErr(got, want gpucost.Money) float64 {
	return math.Abs(float64(got.Nanos-want.Nanos)) / float64(want.Nanos)
}

func TestForecastSeasonal(t *testing.T) {
	start, end := day("2026-11-01"), day("2026-12-01")
	for _, tc := range []struct {
		name        string
		today, last time.Time // last: the bill's last day
		noise, tol  float64
	}{
		{"day 11, quiet", day("2026-11-11"), day("2026-11-10"), 0.05, 0.03},
		{"day 11, noisy", day("2026-11-11"), day("2026-11-10"), 0.25, 0.06},
		{"day 3, bill two days late", day("2026-11-03"), day("2026-10-31"), 0.1, 0.05},
		{"day 25", day("2026-11-25"), day("2026-11-24"), 0.1, 0.02},
	} {
		t.Run(tc.name, func(t *testing.T) {
			worst := 0.0
			defer func() { t.Logf("worst error over 5 seeds: %.2f%%", 100*worst) }()
			for seed := range uint64(5) {
				all := seasonal(day("2026-09-01"), end, tc.noise, seed)
				truth := total(all, start, end)
				var known []DayCost
				for _, d := range all {
					if !d.Day.After(tc.last) {
						known = append(known, d)
					}
				}
				p := Forecast(known, start, end, tc.today)
				if p.Method != MethodSeasonal || !p.Through.Equal(tc.last) || p.HistoryDays != historyDays {
					t.Fatalf("Forecast: method %s through %v history %d, want %s through %v history %d", p.Method, p.Through, p.HistoryDays, MethodSeasonal, tc.last, historyDays)
				}
				e := relErr(p.Projected, truth)
				worst = max(worst, e)
				if e > tc.tol {
					t.Errorf("seed %d: Forecast projects %s, true month %s: off by %.1f%%", seed, p.Projected, truth, 100*e)
				}
				if p.Low.Nanos > p.Projected.Nanos || p.High.Nanos < p.Projected.Nanos || p.Low == p.High {
					t.Errorf("seed %d: band %s–%s around %s", seed, p.Low, p.High, p.Projected)
				}
				if p.Spent != total(all, start, tc.last.AddDate(0, 0, 1)) || p.Projected != p.Spent.Add(p.Predicted) {
					t.Errorf("seed %d: spent %s + predicted %s != projected %s", seed, p.Spent, p.Predicted, p.Projected)
				}
				if f := p.Factors[time.Saturday] / p.Factors[time.Tuesday]; math.Abs(f-0.3) > 0.05+tc.noise/5 {
					t.Errorf("seed %d: Saturday/Tuesday factor %.2f, want about 0.3", seed, f)
				}
			}
		})
	}
}

// TestForecastBand checks that the p10–p90 band holds the true total about 80% of the time.
func TestForecastBand(t *testing.T) {
	start, end := day("2026-11-01"), day("2026-12-01")
	in, n := 0, 200
	for seed := range uint64(n) {
		all := seasonal(day("2026-09-01"), end, 0.3, seed)
		var known []DayCost
		for _, d := range all {
			if d.Day.Before(day("2026-11-08")) {
				known = append(known, d)
			}
		}
		p := Forecast(known, start, end, day("2026-11-08"))
		if truth := total(all, start, end); !truth.Less(p.Low) && !p.High.Less(truth) {
			in++
		}
	}
	share := float64(in) / float64(n)
	t.Logf("the p10–p90 band held the true total in %.0f%% of %d months", 100*share, n)
	if share < 0.7 || share > 0.9 {
		t.Errorf("the p10–p90 band held the true total in %.0f%% of %d months, want about 80%%", 100*share, n)
	}
}

func TestForecastShortHistory(t *testing.T) {
	start, end := day("2026-11-01"), day("2026-12-01")
	flat := []DayCost{}
	for d := 1; d <= 5; d++ {
		flat = append(flat, DayCost{Day: start.AddDate(0, 0, d-1), Cost: gpucost.USD(100e9)})
	}
	p := Forecast(flat, start, end, day("2026-11-06"))
	if p.Method != MethodRunRate || p.Projected != gpucost.USD(3000e9) || p.Banded() || !p.Low.IsZero() || !p.High.IsZero() {
		t.Errorf("Forecast(5 flat days) = %s %s (%s–%s, banded %v), want run-rate USD 3000.00 and no band: under a week of data",
			p.Method, p.Projected, p.Low, p.High, p.Banded())
	}
	one := Forecast(flat[:1], start, end, day("2026-11-02"))
	if one.Projected != gpucost.USD(3000e9) || one.Banded() {
		t.Errorf("Forecast(1 day) = %s banded %v (%s–%s), want USD 3000.00 and no band", one.Projected, one.Banded(), one.Low, one.High)
	}
	none := Forecast(nil, start, end, day("2026-11-06"))
	if none.Method != MethodNone || !none.Projected.IsZero() || none.Projected.Currency != "USD" {
		t.Errorf("Forecast(nil) = %+v, want none and zero", none)
	}
	// Days on or after today are partial and left out.
	late := append(flat, DayCost{Day: day("2026-11-06"), Cost: gpucost.USD(5e9)})
	if q := Forecast(late, start, end, day("2026-11-06")); q.Projected != p.Projected {
		t.Errorf("Forecast with today's partial day = %s, want %s", q.Projected, p.Projected)
	}
}

func TestForecastQuarterFromHistoryBeforeIt(t *testing.T) {
	all := seasonal(day("2026-08-01"), day("2027-01-01"), 0.05, 1)
	var known []DayCost
	for _, d := range all {
		if d.Day.Before(day("2026-10-01")) {
			known = append(known, d)
		}
	}
	start, end, _ := PeriodOf(Quarterly, day("2026-10-01"))
	p := Forecast(known, start, end, start)
	if truth := total(all, start, end); relErr(p.Projected, truth) > 0.12 || !p.Spent.IsZero() || len(p.Days) != 92 {
		// 0.2% daily growth compounds over a quarter the model does not extrapolate.
		t.Errorf("Forecast(Q4 from Q3) = %s over %d days, true %s", p.Projected, len(p.Days), truth)
	}
}

// TestForecastDemoBill forecasts November of the demo fleet's bill from its first half.
func TestForecastDemoBill(t *testing.T) {
	cat, err := catalog.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	price := func(itype string) (gpucost.Money, bool) {
		for _, o := range cat.Offers() {
			if o.Provider == "aws" && o.Region == "us-east-1" && o.InstanceType == itype && o.HasOnDemand {
				return o.OnDemand, true
			}
		}
		return gpucost.Money{}, false
	}
	start, end := day("2026-11-01"), day("2026-12-01")
	tally := NewTally([]Budget{{Name: "all", Amount: gpucost.USD(1), Cost: Effective}, {Name: "research", Scope: Scope{Team: "research"}, Amount: gpucost.USD(1)}}, nil)
	if err := demo.Bill(demo.Fleet(), day("2026-09-20"), end, price, func(l *gpucost.CostLine) error { tally.Add(l); return nil }); err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"all", "research"} {
		all := tally.Daily(i)
		truth := total(all, start, end)
		var known []DayCost
		for _, d := range all {
			if d.Day.Before(day("2026-11-15")) {
				known = append(known, d)
			}
		}
		p := Forecast(known, start, end, day("2026-11-16"))
		e := relErr(p.Projected, truth)
		t.Logf("%s: projected %s, true November %s (%.2f%% off), band %s–%s", name, p.Projected, truth, 100*e, p.Low, p.High)
		if e > 0.03 || p.Method != MethodSeasonal {
			t.Errorf("%s: Forecast(demo bill to Nov 14) = %s by %s, true November %s: off by %.1f%%", name, p.Projected, p.Method, truth, 100*e)
		}
		if truth.Less(p.Low) || p.High.Less(truth) {
			t.Logf("%s: true November %s outside the band %s–%s", name, truth, p.Low, p.High)
		}
	}
}

// TestForecastBandExact: the band of a known week, by hand. Nov 1–7 cost $100, $200 … $700: the
// run rate predicts the 23 days left at the mean $400, $12,000 in all. A day's cost less the median
// ($400) spreads from −$300 to +$300; its p10 is −$300 + 0.6 × $100 = −$240 and its p90 +$240,
// and over 23 days √23 × $240 = $1,150.999565595.
func TestForecastBandExact(t *testing.T) {
	start, end := day("2026-11-01"), day("2026-12-01")
	var week []DayCost
	for d := range 7 {
		week = append(week, DayCost{Day: start.AddDate(0, 0, d), Cost: gpucost.USD(int64(d+1) * 100e9)})
	}
	p := Forecast(week, start, end, day("2026-11-08"))
	wantLow, wantHigh := gpucost.USD(12000e9-1150999565595), gpucost.USD(12000e9+1150999565595)
	if p.Projected != gpucost.USD(12000e9) || p.Low != wantLow || p.High != wantHigh || p.BandDays != 7 {
		t.Errorf("Forecast(week) = %s, band %s–%s over %d days; want USD 12000.00, %s–%s over 7", p.Projected, p.Low, p.High, p.BandDays, wantLow, wantHigh)
	}
	if p.Low.Dollars() != "$10,849.00" || p.High.Dollars() != "$13,151.00" {
		t.Errorf("band in dollars %s–%s, want $10,849.00–$13,151.00", p.Low.Dollars(), p.High.Dollars())
	}
	// The same week at a flat $400 a day has no spread: the band is the projection.
	for i := range week {
		week[i].Cost = gpucost.USD(400e9)
	}
	if flat := Forecast(week, start, end, day("2026-11-08")); !flat.Banded() || flat.Low != flat.Projected || flat.High != flat.Projected {
		t.Errorf("Forecast(flat week) band %s–%s around %s, want no width", flat.Low, flat.High, flat.Projected)
	}
}

func TestBand(t *testing.T) {
	for _, tc := range []struct {
		name   string
		hist   []float64
		n      int
		lo, hi int64
		ok     bool
	}{
		{"under a week", []float64{1, 2, 3, 4, 5, 6}, 10, 0, 0, false},
		{"nothing left", []float64{5}, 0, 0, 0, true},
		{"one day left", []float64{0, 0, 0, 0, 0, 0, 70}, 1, 0, 28, true}, // median 0; p90: 0.4 × 70
		{"four days left", []float64{70, 0, 0, 0, 0, 0, 0}, 4, 0, 56, true},
		{"a partial first day", []float64{10, 100, 100, 100, 100, 100, 100, 100, 100, 100}, 1, -9, 0, true}, // median 100; p10: −90 + 0.9 × 90
	} {
		lo, hi, ok := Band(tc.hist, tc.n)
		if lo != tc.lo || hi != tc.hi || ok != tc.ok {
			t.Errorf("Band(%s) = %d, %d, %v; want %d, %d, %v", tc.name, lo, hi, ok, tc.lo, tc.hi, tc.ok)
		}
	}
}
