package fleet

import (
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// A Line keeps its period and costs as numbers and gives them back as they were: a line whose
// currency is empty stays so, and reads as USD once another line is merged into it, as adding
// Money names the currency; the lines of one resource in two currencies keep theirs; the
// first commitment id of merged lines is kept.
func TestLineFields(t *testing.T) {
	f := &fakeStore{}
	f.line("alone", day1, 24, 10e9, nil)
	f.line("merged", day1, 12, 10e9, nil)
	f.line("merged", day1, 12, 5e9, nil)
	f.line("eur", day1, 24, 7e9, nil)
	f.line("eur", day1.AddDate(0, 0, 1), 24, 8e9, nil)
	for i := range f.lines {
		f.lines[i].EffectiveCost.Currency, f.lines[i].BilledCost.Currency = "", ""
	}
	f.lines[3].EffectiveCost.Currency, f.lines[3].BilledCost.Currency = "EUR", "EUR"
	f.lines[4].EffectiveCost.Currency, f.lines[4].BilledCost.Currency = "USD", "USD"
	f.lines[2].CommitmentDiscountID = "sp-1"
	s := build(t, f, Period{Start: day1, End: day1.AddDate(0, 0, 2)})

	type want struct {
		cost       gpucost.Money
		commitment string
	}
	wants := map[[2]any]want{
		{"alone", 0}:  {gpucost.Money{Nanos: 10e9}, ""},
		{"merged", 0}: {gpucost.Money{Nanos: 15e9, Currency: "USD"}, "sp-1"},
		{"eur", 0}:    {gpucost.Money{Nanos: 7e9, Currency: "EUR"}, ""},
		{"eur", 1}:    {gpucost.Money{Nanos: 8e9, Currency: "USD"}, ""},
	}
	seen := 0
	for c := range s.All() {
		ln := c.Line
		day := int(ln.Start().Sub(day1).Hours() / 24)
		w, ok := wants[[2]any{ln.ResourceID, day}]
		if !ok {
			t.Errorf("a charge of %s on day %d, want none", ln.ResourceID, day)
			continue
		}
		seen++
		if got := ln.EffectiveCost(); got != w.cost || ln.BilledCost() != w.cost || c.Cost != w.cost {
			t.Errorf("%s day %d: EffectiveCost() = %v, BilledCost() = %v, charge %v; want %v", ln.ResourceID, day, got, ln.BilledCost(), c.Cost, w.cost)
		}
		if got := ln.commitmentID(); got != w.commitment {
			t.Errorf("%s day %d: commitmentID() = %q, want %q", ln.ResourceID, day, got, w.commitment)
		}
		if !ln.Start().Equal(day1.AddDate(0, 0, day)) || !ln.End().Equal(day1.AddDate(0, 0, day+1)) || ln.Start().Location() != day1.Location() {
			t.Errorf("%s day %d: period %v – %v, want day %d in UTC", ln.ResourceID, day, ln.Start(), ln.End(), day)
		}
	}
	if seen != len(wants) {
		t.Errorf("%d charges, want %d", seen, len(wants))
	}
}

// The lines of one resource share a LineResource per SKU while they say the same of it: a
// line whose tags differ (in another map or the same) gets its own, and SKUs do not mix.
func TestLineResourceShared(t *testing.T) {
	f := &fakeStore{}
	a, b := gpucost.Labels{"team": "a"}, gpucost.Labels{"team": "b"}
	vol := func(sku string, day int, tags gpucost.Labels) {
		f.lines = append(f.lines, gpucost.CostLine{Provider: "AWS", ResourceID: "vol-1", SkuID: sku, ChargeCategory: "Usage",
			ChargePeriodStart: day1.AddDate(0, 0, day), ChargePeriodEnd: day1.AddDate(0, 0, day+1),
			BilledCost: gpucost.USD(1e9), EffectiveCost: gpucost.USD(1e9), Tags: tags})
	}
	vol("A", 0, a)
	vol("B", 0, b)
	vol("A", 1, gpucost.Labels{"team": "a"}) // equal tags in another map: shared
	vol("B", 1, a)                           // B's tags change: its own
	vol("A", 2, a)
	s := build(t, f, Period{Start: day1, End: day1.AddDate(0, 0, 3)})
	var teams []string
	var res []*LineResource
	for c := range s.All() {
		teams = append(teams, c.SKU()+":"+c.Owner.Team)
		res = append(res, c.Line.LineResource)
	}
	want := []string{"A:a", "B:b", "A:a", "B:a", "A:a"}
	if len(teams) != len(want) {
		t.Fatalf("charges %v, want %v", teams, want)
	}
	for i := range want {
		if teams[i] != want[i] {
			t.Errorf("charge %d: %s, want %s", i, teams[i], want[i])
		}
	}
	if res[0] != res[2] || res[0] != res[4] || res[1] == res[3] || res[0] == res[3] {
		t.Errorf("LineResources shared as %p %p %p %p %p; want lines 0, 2, 4 alike and 1, 3 apart", res[0], res[1], res[2], res[3], res[4])
	}
}

// unixNano gives back every time a bill line may hold: to the nanosecond, and the zero time.
func TestUnixNano(t *testing.T) {
	for _, tm := range []time.Time{{}, day1, day1.Add(1500 * time.Millisecond), time.Date(1970, 1, 1, 0, 0, 0, 1, time.UTC),
		time.Date(2261, 12, 31, 23, 59, 59, 999999999, time.UTC)} {
		if got := fromUnixNano(unixNano(tm)); got != tm {
			t.Errorf("fromUnixNano(unixNano(%v)) = %v", tm, got)
		}
	}
	if a, b := unixNano(time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC)), unixNano(time.Time{}); a <= b {
		t.Errorf("unixNano(year 1000) = %d, not after the zero time's %d", a, b)
	}
}
