package storetest

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// RunPeriods runs the cases of gpucost.PeriodStore and of CostFilter's billing period range.
func RunPeriods(t *testing.T, open Open) {
	t.Run("ScanBilled", func(t *testing.T) { testScanCostsBilled(t, open) })
	t.Run("CostPeriods", func(t *testing.T) { testCostPeriods(t, open) })
	t.Run("TelemetrySpan", func(t *testing.T) { testTelemetrySpan(t, open) })
}

// billedLines returns BillLines(days, resources) billed by calendar month of their charge
// start, except that the lines of res-005 charged on a month's first are billed in the month
// before (posted late), and that lines of Microsoft, account "ea-2", are billed mid-month.
func billedLines(days, resources int) []gpucost.CostLine {
	lines := BillLines(days, resources)
	for i := range lines {
		l := &lines[i]
		s := l.ChargePeriodStart
		l.BillingPeriodStart = time.Date(s.Year(), s.Month(), 1, 0, 0, 0, 0, time.UTC)
		l.BillingAccountID = "acct-" + strings.ToLower(l.Provider[:1])
		if l.ResourceID == "res-005" && s.Day() == 1 {
			l.BillingPeriodStart = l.BillingPeriodStart.AddDate(0, -1, 0)
		}
		if l.Provider == "Microsoft" && l.ResourceID > "res-020" {
			l.BillingAccountID = "ea-2"
		}
	}
	return lines
}

func putLines(t *testing.T, db gpucost.CostStore, checksum string, lines []gpucost.CostLine) {
	t.Helper()
	imp := gpucost.CostImport{Name: checksum + ".csv", Checksum: checksum, Format: "focus"}
	if _, err := db.PutCosts(context.Background(), imp, SeqOf(lines), nil); err != nil {
		t.Fatal(err)
	}
}

func matchBilled(l *gpucost.CostLine, f gpucost.CostFilter) bool {
	b := l.BillingPeriodStart
	return matchLine(l, f) && (f.BilledFrom.IsZero() || !b.Before(f.BilledFrom)) && (f.BilledTo.IsZero() || b.Before(f.BilledTo))
}

func testScanCostsBilled(t *testing.T, open Open) {
	db := open(t)
	a, b := billedLines(300, 30), billedLines(40, 7) // a spans several chunks of 8,192 lines
	putLines(t, db, "a", a)
	putLines(t, db, "b", b)
	all := append(slices.Clone(a), b...)
	month := func(m int) time.Time { return time.Date(2025, time.Month(m), 1, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		name string
		f    gpucost.CostFilter
	}{
		{"january", gpucost.CostFilter{BilledFrom: month(1), BilledTo: month(2)}},
		{"february with late lines", gpucost.CostFilter{BilledFrom: month(2), BilledTo: month(3)}},
		{"from only", gpucost.CostFilter{BilledFrom: month(10)}},
		{"to only", gpucost.CostFilter{BilledTo: month(2)}},
		{"off the nanosecond", gpucost.CostFilter{BilledFrom: month(3).Add(time.Nanosecond), BilledTo: month(5).Add(time.Nanosecond)}},
		{"none billed", gpucost.CostFilter{BilledFrom: month(13)}},
		{"with charge dates", gpucost.CostFilter{BilledFrom: month(3), BilledTo: month(4), From: month(3).AddDate(0, 0, 10), To: month(4).AddDate(0, 0, 1)}},
		{"with provider and resource", gpucost.CostFilter{BilledFrom: month(6), BilledTo: month(7), Providers: []string{"google cloud"}, ResourceIDs: []string{"res-004", "res-005"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want []gpucost.CostLine
			for i := range all {
				if matchBilled(&all[i], tt.f) {
					want = append(want, all[i])
				}
			}
			got := scanCostLines(t, db, tt.f)
			if len(got) != len(want) {
				t.Fatalf("ScanCosts(%+v) passed %d lines, want %d", tt.f, len(got), len(want))
			}
			for i := range got {
				if d := LineDiff(&got[i], &want[i]); d != "" {
					t.Fatalf("ScanCosts(%+v) line %d: %s", tt.f, i, d)
				}
			}
		})
	}
	// A late line billed in January but charged on February 1st is January's.
	late := scanCostLines(t, db, gpucost.CostFilter{BilledFrom: month(1), BilledTo: month(2), From: month(2), ResourceIDs: []string{"res-005"}})
	if len(late) != 2 || !late[0].ChargePeriodStart.Equal(month(2)) {
		t.Errorf("January's lines of res-005 charged from February = %d, want the 2 posted late (one per import)", len(late))
	}
}

func testCostPeriods(t *testing.T, open Open) {
	ctx := context.Background()
	db := open(t)
	if got, err := db.CostPeriods(ctx); err != nil || len(got) != 0 {
		t.Fatalf("CostPeriods() of an empty store = %v, %v; want none", got, err)
	}
	a, b := billedLines(62, 30), billedLines(20, 7)
	for i := range b {
		b[i].Provider = strings.ToLower(b[i].Provider) // the same providers, written otherwise
		if i%5 == 0 {
			b[i].BilledCost = gpucost.Money{Nanos: 7e9, Currency: "EUR"}
			b[i].EffectiveCost = gpucost.Money{Nanos: 6e9, Currency: "EUR"}
		}
	}
	putLines(t, db, "a", a)
	putLines(t, db, "b", b)
	got, err := db.CostPeriods(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Worked apart from the store: each billing period and provider's lines, first and last
	// charge and totals.
	type key struct {
		start    time.Time
		provider string
	}
	groups := map[key][]gpucost.CostLine{}
	for _, l := range append(slices.Clone(a), b...) {
		k := key{l.BillingPeriodStart, strings.ToLower(l.Provider)}
		groups[k] = append(groups[k], l)
	}
	var want []gpucost.CostPeriod
	for k, ls := range groups {
		p := gpucost.CostPeriod{BillingPeriodStart: k.start, Provider: ls[0].Provider, Lines: len(ls), Totals: sumsOf(ls),
			FirstCharge: ls[0].ChargePeriodStart, LastCharge: ls[0].ChargePeriodEnd, Accounts: []string{}}
		for _, l := range ls {
			if l.ChargePeriodStart.Before(p.FirstCharge) {
				p.FirstCharge = l.ChargePeriodStart
			}
			if l.ChargePeriodEnd.After(p.LastCharge) {
				p.LastCharge = l.ChargePeriodEnd
			}
			if !slices.Contains(p.Accounts, l.BillingAccountID) {
				p.Accounts = append(p.Accounts, l.BillingAccountID)
			}
		}
		slices.Sort(p.Accounts)
		want = append(want, p)
	}
	slices.SortFunc(want, func(x, y gpucost.CostPeriod) int {
		if c := x.BillingPeriodStart.Compare(y.BillingPeriodStart); c != 0 {
			return c
		}
		return strings.Compare(strings.ToLower(x.Provider), strings.ToLower(y.Provider))
	})
	// December 2024 holds res-005's late line of January 1st; three providers in each month.
	if len(want) != 3*3+1 {
		t.Fatalf("the test's bill has %d periods, want 10", len(want))
	}
	if !reflect.DeepEqual(got, want) {
		for i := range min(len(got), len(want)) {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("CostPeriods()[%d] = %+v\nwant %+v", i, got[i], want[i])
			}
		}
		t.Fatalf("CostPeriods() = %d periods, want %d", len(got), len(want))
	}
}

func testTelemetrySpan(t *testing.T, open Open) {
	ctx := context.Background()
	db := open(t)
	if got, err := db.TelemetrySpan(ctx); err != nil || got != (gpucost.Span{}) {
		t.Fatalf("TelemetrySpan() of an empty store = %+v, %v; want the zero span", got, err)
	}
	rs := RollupsOf(FleetSamples(4, 3*time.Hour, time.Minute))
	if _, err := db.WriteRollups(ctx, rs); err != nil {
		t.Fatal(err)
	}
	want := gpucost.Span{Start: rs[0].Start, End: rs[0].Start.Add(rs[0].Width)}
	for _, r := range rs {
		if r.Start.Before(want.Start) {
			want.Start = r.Start
		}
		if e := r.Start.Add(r.Width); e.After(want.End) {
			want.End = e
		}
	}
	if got, err := db.TelemetrySpan(ctx); err != nil || !got.Start.Equal(want.Start) || !got.End.Equal(want.End) {
		t.Errorf("TelemetrySpan() = %+v, %v; want %+v", got, err, want)
	}
}
