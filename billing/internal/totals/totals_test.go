package totals

import (
	"math"
	"testing"

	"github.com/gpucost/gpucost"
)

func TestAdd(t *testing.T) {
	tests := []struct {
		a, b int64
		ok   bool
	}{
		{1, 2, true}, {-5, 3, true}, {math.MaxInt64, 1, false}, {math.MinInt64, -1, false},
		{math.MaxInt64, -1, true}, {0, 0, true},
	}
	for _, tt := range tests {
		if _, ok := Add(tt.a, tt.b, true); ok != tt.ok {
			t.Errorf("Add(%d, %d, true) ok = %v, want %v", tt.a, tt.b, ok, tt.ok)
		}
	}
	if _, ok := Add(1, 1, false); ok {
		t.Errorf("Add(1, 1, false) ok = true, want false carried")
	}
}

func TestCurrencies(t *testing.T) {
	type sums struct{ rows int }
	made := 0
	c := Currencies[sums]{New: func() *sums { made++; return &sums{} }}
	for _, cur := range []string{"USD", "USD", "EUR", "USD", "EUR"} {
		c.Of(cur).rows++
	}
	if got := c.All(); len(got) != 2 || got["USD"].rows != 3 || got["EUR"].rows != 2 || made != 2 {
		t.Errorf("Currencies after USD×3, EUR×2 = %v (made %d), want USD 3, EUR 2 (made 2)", got, made)
	}
	var z Currencies[sums]
	z.Of("GBP").rows++
	if z.All()["GBP"].rows != 1 {
		t.Errorf("zero Currencies.Of(GBP) did not count")
	}
}

func TestCounts(t *testing.T) {
	var c Counts
	for _, k := range []string{"Usage", "Usage", "Tax", "Usage", ""} {
		c.Add(k)
	}
	got := Map[int](&c)
	if len(got) != 3 || got["Usage"] != 3 || got["Tax"] != 1 || got[""] != 1 {
		t.Errorf("Map(counts) = %v, want Usage 3, Tax 1, \"\" 1", got)
	}
}

func TestOverflow(t *testing.T) {
	err := Overflow("USD")
	if gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("Overflow(USD) code = %q, want %q", gpucost.ErrorCode(err), gpucost.EInvalid)
	}
}
