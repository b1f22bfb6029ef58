package analyze

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

var a0 = time.Date(2025, 3, 3, 0, 0, 0, 0, time.UTC) // a Monday

// aday returns the i-th day after a0.
func aday(i int) time.Time { return a0.AddDate(0, 0, i) }

// cp returns a point of day i in US dollars.
func cp(i int, scope, resource, sku, cost string) CostPoint {
	return CostPoint{Day: aday(i), Scope: scope, ResourceID: resource, SkuID: sku, Cost: usd(cost)}
}

// detect adds the points to a new Detector and returns its result.
func detect(o AnomalyOptions, pts []CostPoint) AnomalyReport {
	d := NewDetector(o)
	for _, p := range pts {
		d.Add(p)
	}
	return d.Result()
}

// daysOf returns the days of the anomalies of scope, as day numbers after a0, in day order.
func daysOf(rep AnomalyReport, scope string) []int {
	var out []int
	for _, a := range rep.Anomalies {
		if a.Scope == scope {
			out = append(out, int(a.Day.Sub(a0)/(24*time.Hour)))
		}
	}
	slices.Sort(out)
	return out
}

func TestAnomalySpikeDrivers(t *testing.T) {
	var pts []CostPoint
	for i := range 30 {
		// Two p4d.24xlarge at $32.77/h and a volume; on day 20 a third instance runs all day
		// and the first sends $150 of data out.
		pts = append(pts, cp(i, "team=ml", "i-gpu1", "BoxUsage:p4d.24xlarge", "786.48"),
			cp(i, "team=ml", "i-gpu2", "BoxUsage:p4d.24xlarge", "786.48"),
			cp(i, "team=ml", "vol-1", "EBS:VolumeUsage.gp3", "12.30"),
			cp(i, "team=web", "i-web", "BoxUsage:g5.xlarge", fmt.Sprintf("%d.%02d", 29+i%2, i*7%100)))
		if i == 20 {
			pts = append(pts, cp(i, "team=ml", "i-gpu3", "BoxUsage:p4d.24xlarge", "786.48"),
				cp(i, "team=ml", "i-gpu1", "DataTransfer-Out-Bytes", "150"))
		}
	}
	rep := detect(AnomalyOptions{}, pts)
	if len(rep.Anomalies) != 1 {
		t.Fatalf("Result() = %d anomalies, want 1: %+v", len(rep.Anomalies), rep.Anomalies)
	}
	a := rep.Anomalies[0]
	want := Anomaly{Scope: "team=ml", Day: aday(20), Currency: "USD",
		Cost: usd("2521.74"), Baseline: usd("1585.26"), MAD: usd("0"),
		MADBar: usd("1632.8178"), QuantileBar: usd("1585.26"), // median + 3 × 1% of it; the flat level
		Threshold: usd("1585.26"), Excess: usd("936.48"),
		Score: 936.48 / 15.8526, Rules: []string{"mad", "p95"}, BaselineDays: 14,
		Drivers: []Driver{
			{ResourceID: "i-gpu3", SkuID: "BoxUsage:p4d.24xlarge", Cost: usd("786.48"), Baseline: usd("0"), Delta: usd("786.48")},
			{ResourceID: "i-gpu1", SkuID: "DataTransfer-Out-Bytes", Cost: usd("150"), Baseline: usd("0"), Delta: usd("150")},
		}}
	if math.Abs(a.Score-want.Score) > 1e-9 {
		t.Errorf("Score = %v, want %v", a.Score, want.Score)
	}
	a.Score = want.Score
	if !reflect.DeepEqual(a, want) {
		t.Errorf("anomaly\n got %+v\nwant %+v", a, want)
	}
	if rep.Scopes != 2 || rep.Series != 2 || rep.Days != 30 || rep.Judged != 2*23 || rep.Unjudged != 2*7 || rep.Gaps != 0 {
		t.Errorf("counts: Scopes %d Series %d Days %d Judged %d Unjudged %d Gaps %d; want 2 2 30 46 14 0",
			rep.Scopes, rep.Series, rep.Days, rep.Judged, rep.Unjudged, rep.Gaps)
	}
	if !rep.From.Equal(aday(0)) || !rep.To.Equal(aday(30)) {
		t.Errorf("From, To = %v, %v; want the data's days %v, %v", rep.From, rep.To, aday(0), aday(30))
	}
}

func TestAnomalyDriversLimit(t *testing.T) {
	var pts []CostPoint
	for i := range 20 {
		for r := range 8 {
			cost := "10"
			if i == 19 {
				cost = fmt.Sprint(20 + 10*r) // every resource rises, the last most
			}
			pts = append(pts, cp(i, "s", fmt.Sprintf("r%d", r), "sku", cost))
		}
	}
	for _, tc := range []struct{ drivers, want int }{{0, 5}, {3, 3}, {-1, 0}, {20, 8}} {
		rep := detect(AnomalyOptions{Drivers: tc.drivers}, pts)
		if len(rep.Anomalies) != 1 {
			t.Fatalf("Drivers %d: %d anomalies, want 1", tc.drivers, len(rep.Anomalies))
		}
		got := rep.Anomalies[0].Drivers
		if len(got) != tc.want {
			t.Errorf("Drivers %d: %d drivers, want %d", tc.drivers, len(got), tc.want)
		}
		for i, dr := range got {
			if want := fmt.Sprintf("r%d", 7-i); dr.ResourceID != want || dr.Delta != usd(fmt.Sprint(10+10*(7-i))) {
				t.Errorf("Drivers %d: driver %d = %s %v, want %s %d", tc.drivers, i, dr.ResourceID, dr.Delta, want, 10+10*(7-i))
			}
		}
	}
}

// steady returns 70 days of a scope's cost lines from cost(day, line).
func steady(scope string, lines int, cost func(day, line int) string) []CostPoint {
	var pts []CostPoint
	for i := range 70 {
		for l := range lines {
			if c := cost(i, l); c != "" {
				pts = append(pts, cp(i, scope, fmt.Sprintf("%s-r%d", scope, l), fmt.Sprintf("sku%d", l), c))
			}
		}
	}
	return pts
}

func TestAnomalySteadyNotFlagged(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 14))
	noise := func(mean, sd float64) string { return fmt.Sprintf("%.2f", max(0, mean+sd*rng.NormFloat64())) }
	weekend := func(day int) bool { return aday(day).Weekday() == time.Saturday || aday(day).Weekday() == time.Sunday }
	tests := []struct {
		name string
		pts  []CostPoint
	}{
		{"flat", steady("flat", 3, func(int, int) string { return "786.48" })},
		// GPU instances bill flat hours; storage and network around them vary.
		{"instances with noisy network", steady("noisy", 4, func(day, line int) string {
			if line < 2 {
				return "786.48"
			}
			return noise(40, 2.5)
		})},
		// Weekdays busy, weekends at a fifth: the usual level holds on 10 of 14 days.
		{"weekdays and weekends", steady("weekly", 3, func(day, line int) string {
			if weekend(day) {
				return noise(160, 2)
			}
			return noise(800, 2)
		})},
		{"slow growth", steady("growth", 1, func(day, line int) string { return fmt.Sprint(1000 + day) })},
		{"a resource that stops", steady("stops", 3, func(day, line int) string {
			if line == 2 && day > 30 {
				return ""
			}
			return "300"
		})},
	}
	for _, tc := range tests {
		for _, weekly := range []bool{false, true} {
			rep := detect(AnomalyOptions{SameWeekday: weekly}, tc.pts)
			if len(rep.Anomalies) != 0 || rep.Judged == 0 {
				t.Errorf("%s (SameWeekday %v): %d anomalies on days %v after %d scope-days judged, want none after some",
					tc.name, weekly, len(rep.Anomalies), daysOf(rep, tc.pts[0].Scope), rep.Judged)
			}
		}
	}
}

// TestAnomalyWeeklyJob shows how weekly patterns behave: a job one day a week is a spike against
// the trailing days every week, and nothing against the same weekday; the weekly check (the
// default) keeps the trailing days' baseline and drops what the same weekday saw before.
func TestAnomalyWeeklyJob(t *testing.T) {
	pts := steady("eval", 2, func(day, line int) string {
		switch {
		case line == 0:
			return "100"
		case aday(day).Weekday() != time.Saturday:
			return ""
		case day == 61: // twice the job
			return "1536"
		}
		return "768"
	})
	pts = append(pts, cp(44, "eval", "eval-r0", "sku0", "200")) // a Wednesday with another $200
	rep := detect(AnomalyOptions{Weekly: -1}, pts)
	// Every Saturday from the second (day 12) on, and the Wednesday.
	if got, want := daysOf(rep, "eval"), []int{12, 19, 26, 33, 40, 44, 47, 54, 61, 68}; !slices.Equal(got, want) {
		t.Errorf("trailing days, no weekly check: anomalies on days %v, want %v", got, want)
	}
	// With the weekly check each Saturday is usual against the Saturdays before it; the
	// Wednesday and the Saturday the job ran twice still flag, against the trailing days.
	rep = detect(AnomalyOptions{}, pts)
	if got, want := daysOf(rep, "eval"), []int{44, 61}; !slices.Equal(got, want) || rep.Weekly != 8 {
		t.Errorf("trailing days, weekly check: anomalies on days %v, %d usual for their weekday; want %v, 8", got, rep.Weekly, want)
	}
	for _, a := range rep.Anomalies {
		if a.Day.Equal(aday(44)) && (a.BaselineDays != 14 || a.Baseline != usd("100") || len(a.Drivers) != 1) {
			t.Errorf("weekly check, day 44: baseline %v over %d days, drivers %v; want the trailing days' 100 over 14, one driver",
				a.Baseline, a.BaselineDays, a.Drivers)
		}
	}
	rep = detect(AnomalyOptions{SameWeekday: true}, pts)
	if got, want := daysOf(rep, "eval"), []int{44, 61}; !slices.Equal(got, want) {
		t.Errorf("same weekday: anomalies on days %v, want %v", got, want)
	}
	for _, a := range rep.Anomalies {
		if a.Day.Equal(aday(61)) && (a.Baseline != usd("868") || a.Excess != usd("768") || a.BaselineDays != 8) {
			t.Errorf("same weekday, day 61: Baseline %v Excess %v over %d days; want 868, 768 over 8",
				a.Baseline, a.Excess, a.BaselineDays)
		}
	}
	// 4 weeks of the same weekday are needed: days 0–27 are not judged.
	if rep.Unjudged != 28 {
		t.Errorf("same weekday: Unjudged = %d, want 28", rep.Unjudged)
	}
}

// TestAnomalyWeeklySeasonality: a synthetic series of $500 a day with an evaluation job that
// adds $2,000 every Monday from day 21 on. The weekly check flags the job's first Monday (no
// Monday before it saw the job) and no Monday after; a $2,000 spike on a Tuesday still flags.
func TestAnomalyWeeklySeasonality(t *testing.T) {
	var pts []CostPoint
	var mondays []int
	tuesday := -1
	for day := range 70 {
		pts = append(pts, cp(day, "research", "i-steady", "box", "500"))
		switch wd := aday(day).Weekday(); {
		case wd == time.Monday && day >= 21:
			pts = append(pts, cp(day, "research", "i-eval", "box", "2000"))
			mondays = append(mondays, day)
		case wd == time.Tuesday && day >= 50 && tuesday < 0:
			pts = append(pts, cp(day, "research", "i-runaway", "box", "2000"))
			tuesday = day
		}
	}
	want := []int{mondays[0], tuesday}
	slices.Sort(want)
	rep := detect(AnomalyOptions{}, pts)
	if got := daysOf(rep, "research"); !slices.Equal(got, want) || rep.Weekly != len(mondays)-1 {
		t.Errorf("weekly check: anomalies on days %v (%d usual for their weekday), want %v (%d): the first Monday and the Tuesday",
			got, rep.Weekly, want, len(mondays)-1)
	}
	for _, a := range rep.Anomalies {
		if a.Day.Equal(aday(tuesday)) && (a.Drivers[0].ResourceID != "i-runaway" || a.Excess != usd("1985")) {
			// The trailing 14 days hold two job Mondays, so their p95 is $2,500 and only the
			// robust rule fires: bar $500 + 3 × 1% × $500 = $515.
			t.Errorf("Tuesday: driver %s, excess %v; want i-runaway, 1985", a.Drivers[0].ResourceID, a.Excess)
		}
	}
	// A week the job skips is not an anomaly, nor is its return: the Mondays of the last 8
	// weeks mostly ran it.
	var skipped []CostPoint
	for _, p := range pts {
		if p.ResourceID != "i-eval" || !p.Day.Equal(aday(mondays[4])) {
			skipped = append(skipped, p)
		}
	}
	if got := daysOf(detect(AnomalyOptions{}, skipped), "research"); !slices.Equal(got, want) {
		t.Errorf("the job skips day %d: anomalies on days %v, want %v", mondays[4], got, want)
	}
	// Without it, every Monday of the job flags against the trailing days.
	if got := daysOf(detect(AnomalyOptions{Weekly: -1}, pts), "research"); len(got) != len(mondays)+1 {
		t.Errorf("no weekly check: anomalies on days %v, want every Monday %v and the Tuesday", got, mondays)
	}
}

func TestAnomalyNewScope(t *testing.T) {
	pts := steady("old", 1, func(day, _ int) string {
		if day > 40 {
			return ""
		}
		return "100"
	})
	for i := 25; i <= 40; i++ {
		cost := "100"
		switch i {
		case 30:
			cost = "9000" // five days in: too new to judge
		case 32:
			cost = "5000" // seven days in: judged
		}
		pts = append(pts, cp(i, "new", "r", "s", cost))
	}
	rep := detect(AnomalyOptions{}, pts)
	if got := daysOf(rep, "new"); !slices.Equal(got, []int{32}) {
		t.Errorf("new scope: anomalies on days %v, want [32]", got)
	}
	if len(rep.Anomalies) != 1 || rep.Anomalies[0].BaselineDays != 7 || !slices.Equal(rep.Anomalies[0].Rules, []string{"mad"}) {
		t.Errorf("anomalies = %+v, want one on 7 baseline days by the mad rule only", rep.Anomalies)
	}
	if rep.Unjudged != 14 || rep.Judged != 34+9 {
		t.Errorf("Unjudged, Judged = %d, %d; want 14 (7 days of each scope), 43", rep.Unjudged, rep.Judged)
	}
}

func TestAnomalyNegativeCosts(t *testing.T) {
	var pts []CostPoint
	for i := range 30 {
		pts = append(pts, cp(i, "ml", "sp-1", "SavingsPlanNegation", "-100"))
		if i == 10 { // one line in two points adds up
			pts = append(pts, cp(i, "ml", "i-1", "BoxUsage", "150"), cp(i, "ml", "i-1", "BoxUsage", "150"))
		} else {
			pts = append(pts, cp(i, "ml", "i-1", "BoxUsage", "300"))
		}
	}
	pts = append(pts, cp(20, "ml", "sp-1", "SavingsPlanNegation", "100"), // the credit lapses: net 300 against 200
		cp(25, "ml", "sp-1", "SavingsPlanNegation", "-2000")) // a refund: cost falls, never flagged
	rep := detect(AnomalyOptions{}, pts)
	if len(rep.Anomalies) != 1 {
		t.Fatalf("%d anomalies, want 1 (day 20): %+v", len(rep.Anomalies), rep.Anomalies)
	}
	a := rep.Anomalies[0]
	wantDriver := []Driver{{ResourceID: "sp-1", SkuID: "SavingsPlanNegation", Cost: usd("0"), Baseline: usd("-100"), Delta: usd("100")}}
	if !a.Day.Equal(aday(20)) || a.Cost != usd("300") || a.Baseline != usd("200") || a.Excess != usd("100") ||
		!reflect.DeepEqual(a.Drivers, wantDriver) {
		t.Errorf("anomaly = day %v cost %v baseline %v excess %v drivers %+v; want day 20, 300, 200, 100, %+v",
			a.Day, a.Cost, a.Baseline, a.Excess, a.Drivers, wantDriver)
	}
	// A credits-only scope whose credit shrinks from −$500 to −$400: up by $100.
	var credits []CostPoint
	for i := range 20 {
		credits = append(credits, cp(i, "credits", "c", "Credit", map[bool]string{true: "-400", false: "-500"}[i == 19]))
	}
	rep = detect(AnomalyOptions{}, credits)
	if len(rep.Anomalies) != 1 || rep.Anomalies[0].Baseline != usd("-500") ||
		rep.Anomalies[0].MADBar != usd("-485") || rep.Anomalies[0].Excess != usd("100") {
		t.Errorf("credits: %+v, want one anomaly, baseline −500, bar −485 (σ is 1%% of |median|), excess 100", rep.Anomalies)
	}
}

func TestAnomalyCurrencies(t *testing.T) {
	var pts []CostPoint
	for i := range 30 {
		usdCost := gpucost.Money{Nanos: 1000e9} // an empty currency is USD
		if i%2 == 0 {
			usdCost.Currency = "USD"
		}
		eur := gpucost.Money{Nanos: 500e9, Currency: "EUR"}
		if i == 20 {
			eur.Nanos = 1300e9
		}
		pts = append(pts, CostPoint{Day: aday(i), Scope: "team=ml", ResourceID: "vm-1", SkuID: "NC24", Cost: usdCost},
			CostPoint{Day: aday(i), Scope: "team=ml", ResourceID: "vm-2", SkuID: "NC24", Cost: eur})
	}
	rep := detect(AnomalyOptions{}, pts)
	if rep.Series != 2 || rep.Scopes != 1 || len(rep.Anomalies) != 1 {
		t.Fatalf("Series %d Scopes %d anomalies %d, want 2 1 1", rep.Series, rep.Scopes, len(rep.Anomalies))
	}
	a := rep.Anomalies[0]
	for name, m := range map[string]gpucost.Money{"Cost": a.Cost, "Baseline": a.Baseline, "Threshold": a.Threshold,
		"Excess": a.Excess, "MAD": a.MAD, "Driver": a.Drivers[0].Delta} {
		if m.Currency != "EUR" {
			t.Errorf("%s = %v, want EUR", name, m)
		}
	}
	if a.Currency != "EUR" || a.Cost.Nanos != 1300e9 || a.Baseline.Nanos != 500e9 || a.Drivers[0].ResourceID != "vm-2" {
		t.Errorf("anomaly = %s cost %v baseline %v driver %s; want EUR 1300, 500, vm-2", a.Currency, a.Cost, a.Baseline, a.Drivers[0].ResourceID)
	}
}

func TestAnomalyRules(t *testing.T) {
	// Alternate days at $1,000 and $2,000: median $1,500, MAD $500, the mad bar far above $2,000.
	bimodal := func(last string) []CostPoint {
		pts := steady("s", 1, func(day, _ int) string { return fmt.Sprint(1000 * (1 + day%2)) })[:20]
		return append(pts, cp(20, "s", "s-r0", "sku0", last))
	}
	flat := func(last string) []CostPoint {
		pts := steady("s", 1, func(int, int) string { return "1000" })[:20]
		return append(pts, cp(20, "s", "s-r0", "sku0", last))
	}
	tests := []struct {
		name              string
		pts               []CostPoint
		o                 AnomalyOptions
		rules             []string
		threshold, excess string
	}{
		{"quantile rule alone", bimodal("2500"), AnomalyOptions{}, []string{"p95"}, "2000", "500"},
		{"quantile rule off", bimodal("2500"), AnomalyOptions{Quantile: -1}, nil, "", ""},
		{"p90 named", bimodal("2500"), AnomalyOptions{Quantile: 0.9}, []string{"p90"}, "2000", "500"},
		{"both", bimodal("9000"), AnomalyOptions{}, []string{"mad", "p95"}, "2000", "7000"},
		{"mad rule alone", bimodal("9000"), AnomalyOptions{Quantile: -1}, []string{"mad"}, "3723.9", "5276.1"},
		{"flat, under MinDelta", flat("1005"), AnomalyOptions{}, nil, "", ""},
		{"flat, over the flat level by MinDelta", flat("1011"), AnomalyOptions{}, []string{"p95"}, "1000", "11"},
		{"flat, over the floored mad bar", flat("1045"), AnomalyOptions{}, []string{"mad", "p95"}, "1000", "45"},
		{"flat, mad only under the floor", flat("1035"), AnomalyOptions{Quantile: -1}, nil, "", ""},
		{"flat, MinDelta 50", flat("1045"), AnomalyOptions{MinDelta: usd("50")}, nil, "", ""},
		{"flat, no floor, no MinDelta: a one-cent σ", flat("1000.05"), AnomalyOptions{MADFloor: -1, MinDelta: usd("-1"), Quantile: -1},
			[]string{"mad"}, "1000.03", "0.02"},
		{"mad off", bimodal("9000"), AnomalyOptions{K: -1}, []string{"p95"}, "2000", "7000"},
	}
	for _, tc := range tests {
		// Judge day 20 alone: in shorter windows the alternating days are not balanced, and a
		// level held on fewer than half of the days is an anomaly (see TestAnomalyWeeklyJob).
		tc.o.From = aday(20)
		rep := detect(tc.o, tc.pts)
		if tc.rules == nil {
			if len(rep.Anomalies) != 0 {
				t.Errorf("%s: %+v, want no anomaly", tc.name, rep.Anomalies)
			}
			continue
		}
		if len(rep.Anomalies) != 1 {
			t.Errorf("%s: %d anomalies, want 1", tc.name, len(rep.Anomalies))
			continue
		}
		a := rep.Anomalies[0]
		if !slices.Equal(a.Rules, tc.rules) || a.Threshold != usd(tc.threshold) || a.Excess != usd(tc.excess) {
			t.Errorf("%s: rules %v threshold %v excess %v; want %v %s %s", tc.name, a.Rules, a.Threshold.Decimal(),
				a.Excess.Decimal(), tc.rules, tc.threshold, tc.excess)
		}
	}
}

func TestAnomalySpanAndGaps(t *testing.T) {
	var pts []CostPoint
	for i := range 31 {
		if i == 28 {
			continue // no scope has a point: a gap in the data
		}
		pts = append(pts, cp(i, "b", "rb", "s", "50"))
		if i < 10 || i == 25 { // stops, then comes back
			pts = append(pts, cp(i, "a", "ra", "s", "100"))
		}
		if i >= 22 {
			pts = append(pts, cp(i, "c", "rc", "s", "10"))
		}
	}
	rep := detect(AnomalyOptions{}, pts)
	// a: the days it had no point count as zero, so its return is an anomaly on a zero baseline.
	if len(rep.Anomalies) != 1 || rep.Anomalies[0].Scope != "a" || !rep.Anomalies[0].Day.Equal(aday(25)) ||
		rep.Anomalies[0].Baseline != usd("0") {
		t.Errorf("anomalies = %+v, want scope a on day 25 against a zero baseline", rep.Anomalies)
	}
	// a is judged on days 7–25 (19), b on 7–30 but the gap (23), c only on day 30: on day 29 its
	// baseline holds 6 days, because the gap is not a zero day.
	if rep.Judged != 19+23+1 || rep.Unjudged != 7+7+7 || rep.Gaps != 1 || rep.Days != 30 {
		t.Errorf("Judged %d Unjudged %d Gaps %d Days %d; want 43 21 1 30", rep.Judged, rep.Unjudged, rep.Gaps, rep.Days)
	}
}

func TestAnomalyFromTo(t *testing.T) {
	pts := steady("s", 1, func(day, _ int) string {
		if day == 20 || day == 35 || day == 50 {
			return "5000"
		}
		return "100"
	})
	pts = append(pts, cp(2, "t", "r", "s", "1"), cp(66, "t", "r", "s", "1")) // t only marks its span
	// Weekly: -1, so that only the window's 14 days are kept before From (the weekly check keeps 8 weeks).
	rep := detect(AnomalyOptions{From: aday(30).Add(7 * time.Hour), To: aday(45), Weekly: -1}, pts)
	if got := daysOf(rep, "s"); !slices.Equal(got, []int{35}) {
		t.Errorf("anomalies on days %v, want [35]", got)
	}
	if !rep.From.Equal(aday(30)) || !rep.To.Equal(aday(45)) || rep.Days != 15 {
		t.Errorf("From %v To %v Days %d; want %v, %v, 15", rep.From, rep.To, rep.Days, aday(30), aday(45))
	}
	// Kept: days 16–44 of s. Outside: 16 before, 25 from day 45, and both of t's.
	if rep.Outside != 16+25+2 || rep.Points != 72 || rep.Judged != 30 || rep.Unjudged != 0 {
		t.Errorf("Outside %d Points %d Judged %d Unjudged %d; want 43 72 30 0", rep.Outside, rep.Points, rep.Judged, rep.Unjudged)
	}
	empty := NewDetector(AnomalyOptions{From: aday(0)}).Result()
	if empty.Days != 0 || empty.Gaps != 0 || !empty.From.IsZero() || len(empty.Anomalies) != 0 {
		t.Errorf("no points, open To: %+v, want an empty report", empty)
	}
	empty = NewDetector(AnomalyOptions{From: aday(0), To: aday(7)}).Result()
	if empty.Gaps != 7 || !empty.From.Equal(aday(0)) {
		t.Errorf("no points in a week: Gaps %d From %v, want 7, %v", empty.Gaps, empty.From, aday(0))
	}
}

func TestAnomalyDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	var pts []CostPoint
	for i := range 60 {
		for s := range 6 {
			for r := range 5 {
				cost := gpucost.Money{Nanos: 1e9 * int64(50+rng.IntN(20)), Currency: []string{"USD", "EUR"}[s%2]}
				if rng.IntN(40) == 0 {
					cost.Nanos *= 10
				}
				p := CostPoint{Day: aday(i).Add(time.Duration(rng.IntN(24)) * time.Hour), Scope: fmt.Sprintf("team=%d", s/2),
					ResourceID: fmt.Sprintf("r%d", r), SkuID: fmt.Sprintf("k%d", r%2), Cost: cost}
				half := p
				half.Cost.Nanos /= 2
				p.Cost.Nanos -= half.Cost.Nanos
				pts = append(pts, p, half)
			}
		}
	}
	want := detect(AnomalyOptions{}, pts)
	if len(want.Anomalies) < 5 {
		t.Fatalf("%d anomalies; the test wants several with ties to order", len(want.Anomalies))
	}
	for seed := range uint64(4) {
		r := rand.New(rand.NewPCG(seed, 1))
		r.Shuffle(len(pts), func(i, j int) { pts[i], pts[j] = pts[j], pts[i] })
		d := NewDetector(AnomalyOptions{})
		for _, p := range pts {
			d.Add(p)
		}
		if got := d.Result(); !reflect.DeepEqual(got, want) {
			t.Fatalf("shuffle %d: the result differs from the one in order", seed)
		}
		if got := d.Result(); !reflect.DeepEqual(got, want) {
			t.Fatalf("shuffle %d: a second Result differs", seed)
		}
	}
}

func TestAnomalyMedianAndRank(t *testing.T) {
	tests := []struct {
		v    []int64
		want int64
	}{
		{nil, 0}, {[]int64{5}, 5}, {[]int64{1, 2}, 2}, {[]int64{2, 3}, 2}, {[]int64{-1, 0}, 0},
		{[]int64{-3, -2}, -2}, {[]int64{-5, -2}, -4}, {[]int64{1, 4, 9}, 4}, {[]int64{1, 4, 9, 10}, 6},
		{[]int64{math.MaxInt64 - 1, math.MaxInt64}, math.MaxInt64 - 1},
		{[]int64{math.MinInt64, math.MaxInt64}, 0}, {[]int64{math.MinInt64, math.MinInt64 + 1}, math.MinInt64},
	}
	for _, tc := range tests {
		if got := sortedMedian(tc.v); got != tc.want {
			t.Errorf("sortedMedian(%v) = %d, want %d", tc.v, got, tc.want)
		}
	}
	if got := sortedMedian([]uint64{math.MaxUint64 - 2, math.MaxUint64}); got != math.MaxUint64-1 {
		t.Errorf("sortedMedian(max−2, max) = %d, want max−1", got)
	}
	v := []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}
	for _, tc := range []struct {
		q    float64
		n    int
		want int64
	}{{0.95, 20, 19}, {0.95, 14, 14}, {0.5, 20, 10}, {0.5, 3, 2}, {1, 5, 5}, {0, 5, 1}, {0.95, 1, 1}} {
		if got := nearestRank(v[:tc.n], tc.q); got != tc.want {
			t.Errorf("nearestRank(1…%d, %v) = %d, want %d", tc.n, tc.q, got, tc.want)
		}
	}
	if got := quantileRule(0.975); got != "p97.5" {
		t.Errorf("quantileRule(0.975) = %q, want p97.5", got)
	}
}

func TestAnomalyOptionsDefaults(t *testing.T) {
	o := NewDetector(AnomalyOptions{}).Result().Options
	if o.Window != 14 || o.MinDays != 7 || o.K != 3 || o.Quantile != 0.95 || o.MADFloor != 0.01 ||
		o.MinDelta.Nanos != 10e9 || o.Drivers != 5 {
		t.Errorf("defaults = %+v", o)
	}
	o = NewDetector(AnomalyOptions{SameWeekday: true, Window: 3, MinDays: 9, Quantile: 2, K: math.NaN()}).Result().Options
	if o.Window != 3 || o.MinDays != 3 || o.Quantile != 1 || o.K != 3 {
		t.Errorf("SameWeekday, Window 3, MinDays 9, Quantile 2, K NaN: %+v; want MinDays clamped to 3, Quantile 1, K 3", o)
	}
	if o := NewDetector(AnomalyOptions{SameWeekday: true}).Result().Options; o.Window != 8 || o.MinDays != 4 {
		t.Errorf("SameWeekday defaults: Window %d MinDays %d, want 8 4", o.Window, o.MinDays)
	}
}

// FuzzDetector checks, on any points, that the report keeps its promises and does not depend on
// the order of the points: each 4 bytes are a day, a scope, a resource and a cost, with large
// and negative costs to reach the saturating arithmetic.
func FuzzDetector(f *testing.F) {
	f.Add([]byte("\x00\x00\x00\x10\x01\x00\x00\x10\x02\x00\x00\x10\x03\x00\x00\x10\x04\x00\x00\x10\x05\x00\x00\x10\x06\x00\x00\x10\x07\x00\x00\x10\x08\x00\x00\x7f"))
	f.Add([]byte("\x00\x01\x02\x80\x01\x01\x02\xff\x09\x01\x03\xfe\x0a\x00\x00\x81\x0b\x02\x00\x7f"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var pts []CostPoint
		for i := 0; i+4 <= len(data); i += 4 {
			cost := int64(int8(data[i+3])) * 1e9
			if data[i+2]&0x80 != 0 {
				cost = int64(int8(data[i+3])) << 55 // up to ±2⁶², so sums and bars reach the int64 range
			}
			pts = append(pts, CostPoint{Day: aday(int(data[i] % 40)), Scope: fmt.Sprint(data[i+1] % 3),
				ResourceID: fmt.Sprint(data[i+2] % 4), SkuID: fmt.Sprint(data[i+2] % 2),
				Cost: gpucost.Money{Nanos: cost, Currency: []string{"USD", "EUR"}[data[i+1]/128]}})
		}
		o := AnomalyOptions{MinDays: 3, Window: 5, Drivers: 2}
		rep := detect(o, pts)
		slices.Reverse(pts)
		if again := detect(o, pts); !reflect.DeepEqual(again, rep) {
			t.Fatalf("reversed points give another result")
		}
		for _, a := range rep.Anomalies {
			if a.Cost.Nanos <= a.Threshold.Nanos || a.Excess.Nanos < 10e9 || len(a.Rules) == 0 || len(a.Drivers) > 2 ||
				a.Threshold != a.MADBar && a.Threshold != a.QuantileBar || a.Day.Before(rep.From) || !a.Day.Before(rep.To) {
				t.Fatalf("anomaly breaks a promise: %+v", a)
			}
			for i, dr := range a.Drivers {
				if dr.Delta.Nanos <= 0 || i > 0 && dr.Delta.Nanos > a.Drivers[i-1].Delta.Nanos {
					t.Fatalf("drivers not positive and ranked: %+v", a.Drivers)
				}
			}
		}
	})
}
