package main

import (
	"testing"

	"github.com/gpucost/gpucost"
)

// A group without a value for --by says what is missing: the label where telemetry covers the
// cost, telemetry where none does, the owner tag for tag dimensions.
func TestGroupName(t *testing.T) {
	used := &gpucost.Allocation{Policy: gpucost.PolicyUsed}
	tags := &gpucost.Allocation{Policy: gpucost.PolicyTags}
	idle := &gpucost.Allocation{Policy: gpucost.PolicyUsed, Idle: true}
	for _, tc := range []struct {
		by, key string
		a       *gpucost.Allocation
		want    string
	}{
		{"job", "train-7b", used, "train-7b"},
		{"job", "", used, "(no job label)"},
		{"namespace", "", used, "(no namespace label)"},
		{"pod", "", used, "(no pod label)"},
		{"job", "", tags, "(no telemetry)"},
		{"namespace", "", idle, "(idle capacity)"},
		{"team", "", used, "(untagged)"},
		{"tag:env", "", tags, "(untagged)"},
		{"provider", "", tags, "(none)"},
	} {
		if got := groupName(tc.by, tc.key, tc.a); got != tc.want {
			t.Errorf("groupName(%q, %q, policy %s, idle %v) = %q, want %q", tc.by, tc.key, tc.a.Policy, tc.a.Idle, got, tc.want)
		}
	}
}
