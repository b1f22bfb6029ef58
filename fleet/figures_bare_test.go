package fleet

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// groupAll is Group as it was before groupBare: every charge All yields, made whole, added one
// by one.
func groupAll(s *Snapshot, d Dimension, keep func(*Charge) bool) []Figures {
	g := newGroups(s.Period)
	for c := range s.All() {
		if keep == nil || keep(c) {
			g.add(d.Key(c), c)
		}
	}
	return g.sorted()
}

// reconcileAll is Reconcile as it was before bareSums: every charge All yields, added one by one.
func reconcileAll(s *Snapshot) (charged, bill []gpucost.Money, ok bool) {
	sums := map[string]int64{}
	for c := range s.All() {
		if (c.Source == SourceBill || c.Kind == Other) && !c.outside {
			sums[c.Cost.Currency] += c.Cost.Nanos
		}
	}
	for _, t := range s.Stats.Totals.Sorted() {
		bill = append(bill, t.EffectiveCost)
		charged = append(charged, gpucost.Money{Nanos: sums[t.Currency], Currency: t.Currency})
		delete(sums, t.Currency)
	}
	return charged, bill, len(sums) == 0 && slices.Equal(charged, bill)
}

// Group's figures of the lines no telemetry covers, summed a LineResource at a time, are those
// of adding each line's bareCharge: for every dimension and keep, over resources that take
// turns, SKUs, tags that change, currencies empty and merged (read as USD), lines of part of
// a day, lines outside the period's days and a line that telemetry covers.
func TestGroupBareIsGroupOfAll(t *testing.T) {
	f := &fakeStore{}
	for d := range 6 {
		for i, r := range []string{"a", "b", "c", "d"} {
			tags := gpucost.Labels{"team": []string{"ml", "ops", ""}[(i+d)%3], "cc": "x"}
			f.line(r, day1.AddDate(0, 0, d), float64(6+i), int64(100e9+i*7e9+d), tags)
		}
		f.line("e", day1.AddDate(0, 0, d), 12, 20e9, nil)
		if d%2 == 0 {
			f.line("e", day1.AddDate(0, 0, d), 12, 30e9, nil) // merged into the line before
			f.lines[len(f.lines)-2].EffectiveCost.Currency, f.lines[len(f.lines)-2].BilledCost.Currency = "", ""
		}
		f.lines[len(f.lines)-1].EffectiveCost.Currency, f.lines[len(f.lines)-1].BilledCost.Currency = "", ""
		f.line("f", day1.AddDate(0, 0, d), 24, 50e9, gpucost.Labels{"team": "eu"})
		f.lines[len(f.lines)-1].EffectiveCost.Currency, f.lines[len(f.lines)-1].BilledCost.Currency = "EUR", "EUR"
		f.lines[len(f.lines)-1].SkuID = []string{"S1", "S2"}[d%2]
		f.lines = append(f.lines, gpucost.CostLine{Provider: "AWS", ResourceID: "vol-1", ChargeCategory: "Usage",
			ChargePeriodStart: day1.AddDate(0, 0, d), ChargePeriodEnd: day1.AddDate(0, 0, d+1),
			BilledCost: gpucost.USD(3e9), EffectiveCost: gpucost.USD(3e9), Tags: gpucost.Labels{"team": "ml"}})
	}
	for i := range f.lines { // billed differs from effective
		f.lines[i].BilledCost.Nanos = f.lines[i].EffectiveCost.Nanos*9/10 + int64(i)
	}
	f.hours("a", gpucost.Labels{"namespace": "train", "job": "j1"}, day1.AddDate(0, 0, 2), 24, 40)
	periods := []Period{
		{Start: day1, End: day1.AddDate(0, 0, 6)},
		{Start: day1.Add(30 * time.Hour), End: day1.Add(100 * time.Hour)},             // cut mid-day: a line before it prices only
		{Start: day1.AddDate(0, 0, 1), End: day1.AddDate(0, 0, 4).Add(3 * time.Hour)}, // lines after its last day begins
	}
	var dims []Dimension
	for _, by := range append(dimensions, "tag:cc", "label:job") {
		d, err := ParseDimension(by)
		if err != nil {
			t.Fatal(err)
		}
		dims = append(dims, d)
	}
	for _, p := range periods {
		s := build(t, f, p)
		if bareLines(s) == 0 {
			t.Fatalf("period %v: no bare lines to group", p)
		}
		keeps := map[string]func(*Charge) bool{
			"nil":          nil,
			"GPUOnly":      GPUOnly,
			"GPUResources": s.GPUResources(),
			"odd nanos":    func(c *Charge) bool { return c.Cost.Nanos%2 == 1 },
			"after day 2":  func(c *Charge) bool { return c.Start.After(day1.AddDate(0, 0, 2)) },
			"team ml":      Match(map[string]string{"team": "ml"}),
			"none":         func(*Charge) bool { return false },
			"EUR":          func(c *Charge) bool { return c.Cost.Currency == "EUR" },
		}
		// GPUResources keeps what it kept when it read every charge All yields.
		res := map[string]bool{}
		for c := range s.All() {
			if c.Kind != Other && c.Line != nil && c.Line.ResourceID != "" {
				res[c.Line.ResourceID] = true
			}
		}
		for c := range s.All() {
			if got, want := keeps["GPUResources"](c), c.Kind != Other || (c.Line.ResourceID != "" && res[c.Line.ResourceID]); got != want {
				t.Errorf("period %v: GPUResources()(%s %v) = %v, want %v", p, c.Line.ResourceID, c.Kind, got, want)
			}
		}
		for name, keep := range keeps {
			want := SourceNone
			for _, f := range s.Fleet(keep) {
				want = want.with(f.Source)
			}
			if got := s.PriceSource(keep); got != want {
				t.Errorf("period %v: PriceSource(keep %s) = %q, want %q", p, name, got, want)
			}
		}
		// Reconcile sums the bare lines by runs of a currency: as adding each line's charge.
		if gc, gb, gok := s.Reconcile(); true {
			wc, wb, wok := reconcileAll(s)
			if !reflect.DeepEqual(gc, wc) || !reflect.DeepEqual(gb, wb) || gok != wok {
				t.Errorf("period %v: Reconcile() = %v, %v, %v, want %v, %v, %v", p, gc, gb, gok, wc, wb, wok)
			}
		}
		for _, d := range dims {
			for name, keep := range keeps {
				if got, want := s.Group(d, keep), groupAll(s, d, keep); !reflect.DeepEqual(got, want) {
					t.Errorf("period %v: Group(%s, keep %s) =\n%+v\nwant\n%+v", p, d, name, got, want)
				}
			}
		}
	}
}

// dayOfUnixNano is dayIndex of the line's start, in and outside the period's days, and where
// the period is too far from 1970 for nanoseconds.
func TestDayOfUnixNano(t *testing.T) {
	for _, p := range []Period{
		{Start: day1.Add(5 * time.Hour), End: day1.AddDate(0, 0, 3).Add(time.Nanosecond)},
		{Start: time.Date(1600, 1, 1, 0, 0, 0, 0, time.UTC), End: day1},
		{Start: day1, End: time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)},
	} {
		g := newGroups(p)
		for _, tm := range []time.Time{{}, day1.Add(-time.Nanosecond), day1, day1.Add(4 * time.Hour), day1.AddDate(0, 0, 1),
			day1.AddDate(0, 0, 3).Add(-time.Nanosecond), day1.AddDate(0, 0, 3), day1.AddDate(0, 0, 3).Add(time.Nanosecond),
			time.Date(1650, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2270, 1, 1, 0, 0, 0, 0, time.UTC)} {
			n := unixNano(tm)
			if got, want := g.dayOfUnixNano(n), p.dayIndex(fromUnixNano(n)); got != want {
				t.Errorf("period %v: dayOfUnixNano(%v) = %d, want %d", p, tm, got, want)
			}
		}
	}
}
