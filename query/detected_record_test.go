package query_test

import (
	"slices"
	"testing"

	"github.com/gpucost/gpucost/query"
)

func TestToRecord(t *testing.T) {
	found := []query.DetectedStep{
		{Step: ""},         // names no step
		{Step: "a/spot/x"}, // recorded here
		{Step: "b/mig/y", Recorded: true},
		{Step: "a/spot/x"}, // the same step again: the first records it
		{Step: "c/commitment/1y"},
	}
	got := query.ToRecord(found)
	if want := []int{1, 4}; !slices.Equal(got, want) {
		t.Errorf("ToRecord = %v, want %v", got, want)
	}
	var marked []bool
	for _, d := range found {
		marked = append(marked, d.Recorded)
	}
	if want := []bool{false, false, true, true, false}; !slices.Equal(marked, want) {
		t.Errorf("ToRecord marks Recorded %v, want %v (the ones it returns are the caller's to mark)", marked, want)
	}
}
