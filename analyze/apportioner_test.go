package analyze

import (
	"slices"
	"testing"
)

// TestApportionerReuses checks that an Apportioner, its buffers and out reused from call to
// call, splits as Apportion does.
func TestApportionerReuses(t *testing.T) {
	cases := []struct {
		total   int64
		weights []int64
	}{
		{1000, []int64{1, 1, 1}},
		{-7, []int64{3, 0, 5, 1, 1}},
		{5, []int64{0, 0}},
		{123456789, []int64{7}},
		{10, []int64{2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
	}
	var a Apportioner
	var out []int64
	for _, c := range cases {
		out = a.Split(c.total, c.weights, out)
		if want := Apportion(c.total, c.weights); !slices.Equal(out, want) {
			t.Errorf("Apportioner.Split(%d, %v) = %v, want %v as Apportion", c.total, c.weights, out, want)
		}
	}
}
