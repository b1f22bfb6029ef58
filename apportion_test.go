package gpucost

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func usd(s string) Money {
	m, err := ParseMoney(s, "USD")
	if err != nil {
		panic(err)
	}
	return m
}

func fixed(ms []Money) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Fixed(2)
	}
	return out
}

func TestApportion(t *testing.T) {
	eur := func(s string) Money { m := usd(s); m.Currency = "EUR"; return m }
	tests := []struct {
		name string
		in   []Money
		want []string
	}{
		{"three thirds", []Money{usd("0.335"), usd("0.335"), usd("0.335")}, []string{"0.34", "0.34", "0.33"}},
		{"largest remainder first", []Money{usd("1.004"), usd("2.006"), usd("3.001")}, []string{"1.00", "2.01", "3.00"}},
		{"exact cents untouched", []Money{usd("1.10"), usd("2.20")}, []string{"1.10", "2.20"}},
		{"ties to the larger amount", []Money{usd("1.005"), usd("9.005")}, []string{"1.00", "9.01"}},
		{"credits", []Money{usd("-0.335"), usd("-0.335"), usd("-0.335")}, []string{"-0.33", "-0.34", "-0.34"}},
		{"currencies apart", []Money{usd("0.005"), eur("0.005"), usd("0.005"), eur("0.004")}, []string{"0.01", "0.01", "0.00", "0.00"}},
		{"empty", nil, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := fixed(Apportion(tc.in, 2)); !slices.Equal(got, tc.want) {
				t.Errorf("Apportion(%v, 2) = %v, want %v", fixed(tc.in), got, tc.want)
			}
		})
	}
}

// TestApportionAddsUp checks, on random tables, what Apportion promises: each amount rounded
// down or up, and the rounded amounts adding up to the exact sum rounded.
func TestApportionAddsUp(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		in := make([]Money, 1+r.IntN(12))
		var sum Money
		for i := range in {
			in[i] = USD(r.Int64N(2_000_000_000_000) - 200_000_000_000)
			sum.Nanos += in[i].Nanos
		}
		got := Apportion(in, 2)
		var gotSum Money
		for i, g := range got {
			if g.Nanos%10_000_000 != 0 || g.Nanos-in[i].Nanos >= 10_000_000 || in[i].Nanos-g.Nanos >= 10_000_000 {
				t.Fatalf("Apportion(%v)[%d] = %v: not %v rounded down or up to the cent", in, i, g.Decimal(), in[i].Decimal())
			}
			gotSum.Nanos += g.Nanos
		}
		if gotSum != sum.Round(2) {
			t.Fatalf("Apportion(%v) adds up to %v, want %v", in, gotSum.Decimal(), sum.Round(2).Decimal())
		}
	}
}

// TestApportionSplitAddsUp checks ApportionSplit on random cost tables: rest + part is each
// row's total, and each column adds up to its exact sum rounded (the rests to the difference
// of the two printed sums).
func TestApportionSplitAddsUp(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		n := 1 + r.IntN(10)
		totals, parts := make([]Money, n), make([]Money, n)
		var sumT, sumP Money
		for i := range totals {
			totals[i] = USD(r.Int64N(500_000_000_000))
			parts[i] = USD(r.Int64N(totals[i].Nanos + 1))
			sumT.Nanos += totals[i].Nanos
			sumP.Nanos += parts[i].Nanos
		}
		total, part, rest := ApportionSplit(totals, parts, 2)
		var gotT, gotP Money
		for i := range totals {
			if rest[i].Add(part[i]) != total[i] {
				t.Fatalf("row %d: rest %v + part %v != total %v", i, rest[i].Decimal(), part[i].Decimal(), total[i].Decimal())
			}
			if rest[i].Nanos < 0 {
				t.Fatalf("row %d: rest %v below zero for total %v, part %v", i, rest[i].Decimal(), totals[i].Decimal(), parts[i].Decimal())
			}
			if d := total[i].Nanos - totals[i].Nanos; d >= 20_000_000 || d <= -20_000_000 {
				t.Fatalf("row %d: total %v is two cents or more from %v", i, total[i].Decimal(), totals[i].Decimal())
			}
			gotT.Nanos += total[i].Nanos
			gotP.Nanos += part[i].Nanos
		}
		if gotT != sumT.Round(2) || gotP != sumP.Round(2) {
			t.Fatalf("ApportionSplit(%v, %v): totals add up to %v (want %v), parts to %v (want %v)",
				totals, parts, gotT.Decimal(), sumT.Round(2).Decimal(), gotP.Decimal(), sumP.Round(2).Decimal())
		}
	}
}

// TestApportionSplitDemo is a spend-by-team table whose cents do not add up when each cell is
// rounded on its own: a Total column of 180379.86 under a bill of 180379.87, an Idle column of
// 118384.88 under a headline of 118384.89.
func TestApportionSplitDemo(t *testing.T) {
	totals := []Money{usd("79244.774"), usd("54170.114"), usd("39668.254"), usd("6384.64"), usd("912.09")}
	parts := []Money{usd("62442.724"), usd("46533.084"), usd("2774.604"), usd("5805.50"), usd("828.98")}
	var naiveT, naiveP, exactT, exactP Money
	for i := range totals {
		naiveT, naiveP = naiveT.Add(totals[i].Round(2)), naiveP.Add(parts[i].Round(2))
		exactT, exactP = exactT.Add(totals[i]), exactP.Add(parts[i])
	}
	if naiveT.Fixed(2) == exactT.Fixed(2) || naiveP.Fixed(2) == exactP.Fixed(2) {
		t.Fatalf("the case no longer shows the problem: naive sums %s and %s", naiveT.Fixed(2), naiveP.Fixed(2))
	}
	total, part, rest := ApportionSplit(totals, parts, 2)
	var sumT, sumP Money
	for i := range total {
		sumT, sumP = sumT.Add(total[i]), sumP.Add(part[i])
		if rest[i].Add(part[i]) != total[i] {
			t.Errorf("row %d: %s + %s != %s", i, rest[i].Fixed(2), part[i].Fixed(2), total[i].Fixed(2))
		}
	}
	if sumT.Fixed(2) != "180379.87" || sumP.Fixed(2) != "118384.89" {
		t.Errorf("ApportionSplit: totals add up to %s, idle to %s; want 180379.87 and 118384.89", sumT.Fixed(2), sumP.Fixed(2))
	}
}
