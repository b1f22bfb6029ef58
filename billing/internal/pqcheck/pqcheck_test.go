package pqcheck

import (
	"testing"

	"github.com/gpucost/gpucost/billing/internal/limits"
)

func TestLongValue(t *testing.T) {
	for _, tc := range []struct {
		offs []uint32
		want int
	}{
		{nil, -1},
		{[]uint32{0}, -1},
		{[]uint32{0, 3, limits.MaxField + 3}, -1},
		{[]uint32{0, 3, limits.MaxField + 4, limits.MaxField + 5}, 1},
		{[]uint32{0, limits.MaxField + 1}, 0},
	} {
		if got := LongValue(tc.offs); got != tc.want {
			t.Errorf("LongValue(%v) = %d, want %d", tc.offs, got, tc.want)
		}
	}
}

func TestHeaderCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    header
		want *limits.TooLong
	}{
		{"small data page", header{uncompressed: 1 << 20, values: 1000}, nil},
		{"data page past MaxPage", header{uncompressed: limits.MaxPage + 1, values: 1 << 20}, &limits.TooLong{Line: 5, Page: true, Limit: limits.MaxPage}},
		{"large dictionary", header{uncompressed: limits.MaxPage + 1, values: 1 << 20, dict: true}, nil},
		{"dictionary past MaxDictPage", header{uncompressed: limits.MaxDictPage + 1, values: 1 << 20, dict: true}, &limits.TooLong{Line: 5, Page: true, Limit: limits.MaxDictPage}},
		{"values averaging past MaxField", header{uncompressed: 15 << 20, values: 3}, &limits.TooLong{Line: 5, Limit: limits.MaxField}},
	} {
		err := tc.h.check(5)
		got, _ := err.(*limits.TooLong)
		if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
			t.Errorf("%s: check(5) = %v, want %v", tc.name, err, tc.want)
		}
	}
}
