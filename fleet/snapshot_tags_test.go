package fleet

import (
	"testing"

	"github.com/gpucost/gpucost"
)

// tagIDs numbers equal tag sets alike, whichever map holds them, and tells apart sets that a
// separator would confuse.
func TestTagIDs(t *testing.T) {
	var ids tagIDs
	team := gpucost.Labels{"team": "a", "env": "prod"}
	for _, tc := range []struct {
		name string
		m    gpucost.Labels
		same bool // numbered as team
	}{
		{"the same map", team, true},
		{"an equal map", gpucost.Labels{"env": "prod", "team": "a"}, true},
		{"another value", gpucost.Labels{"team": "b", "env": "prod"}, false},
		{"a key less", gpucost.Labels{"team": "a"}, false},
		{"a value holding the next pair", gpucost.Labels{"env": "prod", "team": "a\x00"}, false},
	} {
		if got, want := ids.of(tc.m) == ids.of(team), tc.same; got != want {
			t.Errorf("of(%v) == of(%v) is %v, want %v (%s)", tc.m, team, got, want, tc.name)
		}
	}
	if got := ids.of(nil); got != 0 {
		t.Errorf("of(nil) = %d, want 0", got)
	}
	if got := ids.of(gpucost.Labels{}); got != 0 {
		t.Errorf("of({}) = %d, want 0", got)
	}
	if a, b := ids.of(gpucost.Labels{"k": "v\x02\x01v"}), ids.of(gpucost.Labels{"k": "v", "v": ""}); a == b {
		t.Errorf("of({k: v\\x02\\x01v}) = of({k: v, v: \"\"}) = %d: two sets numbered alike", a)
	}
}

// sameMap tells one map from another equal one, as reflect's pointer to each does.
func TestSameMap(t *testing.T) {
	a, b := gpucost.Labels{"team": "a"}, gpucost.Labels{"team": "a"}
	c := a
	for _, tc := range []struct {
		name string
		x, y gpucost.Labels
		want bool
	}{
		{"one map", a, c, true},
		{"equal maps", a, b, false},
		{"two nils", nil, nil, true},
		{"nil and empty", nil, gpucost.Labels{}, false},
		{"a map and nil", a, nil, false},
	} {
		if got := sameMap(tc.x, tc.y); got != tc.want {
			t.Errorf("sameMap(%s) = %v, want %v", tc.name, got, tc.want)
		}
	}
}
