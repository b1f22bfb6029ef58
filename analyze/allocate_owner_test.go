package analyze

import (
	"slices"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

func TestParseTagKeys(t *testing.T) {
	def := DefaultTagKeys()
	tests := []struct {
		spec          string
		team, project []string
		err           bool
	}{
		{spec: "", team: def[TagTeam], project: def[TagProject]},
		{spec: "team=squad,user:squad", team: []string{"squad", "user:squad"}, project: def[TagProject]},
		{spec: " Team = squad , Squad ; project = app,app ", team: []string{"squad", "Squad"}, project: []string{"app"}},
		{spec: "team=team;project=", team: []string{"team"}, project: []string{}},
		{spec: "team=a;;", team: []string{"a"}, project: def[TagProject]},
		{spec: "squad=a", err: true},
		{spec: "team", err: true},
		{spec: "team=a;team=b", err: true},
		{spec: "team=a,project=b", err: true},
	}
	for _, tt := range tests {
		got, err := ParseTagKeys(tt.spec)
		if tt.err {
			if err == nil || gpucost.ErrorCode(err) != gpucost.EInvalid {
				t.Errorf("ParseTagKeys(%q) error = %v, want an EInvalid error", tt.spec, err)
			}
			continue
		}
		if err != nil || !slices.Equal(got[TagTeam], tt.team) || !slices.Equal(got[TagProject], tt.project) {
			t.Errorf("ParseTagKeys(%q) = %q, %v; want team %q, project %q", tt.spec, got, err, tt.team, tt.project)
		}
	}
}

func TestTagOwner(t *testing.T) {
	keys := DefaultTagKeys()
	tests := []struct {
		name string
		tags gpucost.Labels
		want gpucost.Owner
	}{
		{"none", nil, gpucost.Owner{}},
		{"plain", gpucost.Labels{"team": "ml", "project": "llm"}, gpucost.Owner{Team: "ml", Project: "llm"}},
		{"AWS legacy CUR", gpucost.Labels{"user:team": "ml", "user:project": "llm"}, gpucost.Owner{Team: "ml", Project: "llm"}},
		{"AWS CUR 2.0", gpucost.Labels{"user_team": "ml", "user_project": "llm"}, gpucost.Owner{Team: "ml", Project: "llm"}},
		{"Azure capitalised", gpucost.Labels{"Team": "ml", "Project": "llm"}, gpucost.Owner{Team: "ml", Project: "llm"}},
		{"earlier key wins", gpucost.Labels{"owner": "alice", "team": "ml"}, gpucost.Owner{Team: "ml"}},
		{"empty value skipped", gpucost.Labels{"team": "", "Team": "ml"}, gpucost.Owner{Team: "ml"}},
		{"other tags", gpucost.Labels{"application": "x", "environment": "dev"}, gpucost.Owner{}},
	}
	for _, tt := range tests {
		if got := TagOwner(tt.tags, keys); got != tt.want {
			t.Errorf("TagOwner(%s: %v) = %+v, want %+v", tt.name, tt.tags, got, tt.want)
		}
	}
	custom, err := ParseTagKeys("team=business_unit")
	if err != nil {
		t.Fatal(err)
	}
	// The FOCUS sample's business_unit tag, from ../shared/datasets/focus/focus_sample.csv.
	tags := gpucost.Labels{"application": "BrightLensMatrix", "environment": "dev", "business_unit": "ViennaAI"}
	if got := TagOwner(tags, custom); got.Team != "ViennaAI" {
		t.Errorf("TagOwner(%v, team=business_unit) = %+v, want team ViennaAI", tags, got)
	}
}

func TestNewAllocatorOptions(t *testing.T) {
	bad := []AllocOptions{
		{Policy: "fair"},
		{Policy: gpucost.PolicyTags},
		{Policy: gpucost.PolicyWeighted, Weight: 1.5},
		{Policy: gpucost.PolicyWeighted, Weight: -0.1},
		{Weight: nan},
		{TagKeys: map[string][]string{"cost_center": {"cc"}}},
		{TagKeys: map[string][]string{TagTeam: {""}}},
	}
	for _, o := range bad {
		if _, err := NewAllocator(o); err == nil || gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("NewAllocator(%+v) error = %v, want an EInvalid error", o, err)
		}
	}
	a, err := NewAllocator(AllocOptions{})
	if err != nil || a.policy != gpucost.PolicyRequested || a.weight != DefaultWeight || len(a.keys[TagTeam]) == 0 {
		t.Errorf("NewAllocator(zero) = %+v, %v; want requested, weight %v, default tag keys", a, err, DefaultWeight)
	}
}

func TestBilledHours(t *testing.T) {
	tests := []struct {
		qty  float64
		unit string
		want float64
	}{
		{24, "Hrs", 24},
		{10, "Hours", 10},
		{10, "10 Hours", 10}, // the reader multiplied the pack already
		{0.5, "hour", 0.5},
		{3, "h", 3},
		{7200, "seconds", 2},
		{90, "minutes", 1.5},
		{25, "Hrs", 24}, // more than the period: the period
		{0, "Hrs", 24},
		{-3, "Hrs", 24},
		{5, "GB", 24},
		{5, "", 24},
		{24.00000001, "Hours", 24},
	}
	for _, tt := range tests {
		l := gpucost.CostLine{ConsumedQuantity: tt.qty, ConsumedUnit: tt.unit}
		if got := billedHours(&l, 24); got != tt.want {
			t.Errorf("billedHours(%v %q, period 24 h) = %v, want %v", tt.qty, tt.unit, got, tt.want)
		}
	}
}

func TestWindowMask(t *testing.T) {
	w := newWindow(t0.Add(90*time.Minute), t0.Add(150*time.Minute+time.Second)) // 01:30–02:30:01
	h0, h1 := w.span()
	hour0 := unixMinute(t0) / 60
	if h0 != hour0+1 || h1 != hour0+3 {
		t.Errorf("span = %d, %d; want %d, %d", h0, h1, hour0+1, hour0+3)
	}
	if got, want := w.mask(hour0+1), uint64(allMinutes)&^(1<<30-1); got != want {
		t.Errorf("mask(01:00) = %x, want %x", got, want)
	}
	if got, want := w.mask(hour0+2), uint64(1<<31-1); got != want { // 02:00–02:30 and the minute 02:30 begun
		t.Errorf("mask(02:00) = %x, want %x", got, want)
	}
	if got := w.mask(hour0); got != 0 {
		t.Errorf("mask(00:00) = %x, want 0", got)
	}
}

// TestTagOwnersCache checks that TagOwners, which remembers recent maps, agrees with TagOwner,
// keys shared between team and project and empty values included, for maps asked about again.
func TestTagOwnersCache(t *testing.T) {
	keys := map[string][]string{TagTeam: {"a", "b", "x"}, TagProject: {"x", "c"}}
	o := &TagOwners{Keys: keys}
	var asked []gpucost.Labels
	names := []string{"a", "b", "c", "x", "y"}
	values := []string{"", "1", "2"}
	for mask := range 1 << len(names) {
		for v := range 3 {
			tags := gpucost.Labels{}
			for i, k := range names {
				if mask&(1<<i) != 0 {
					tags[k] = values[(i+v)%3]
				}
			}
			asked = append(asked, tags)
			for _, m := range asked[max(0, len(asked)-10):] {
				if got, want := o.Of(m), TagOwner(m, keys); got != want {
					t.Errorf("Of(%v) = %+v, want TagOwner's %+v", m, got, want)
				}
			}
		}
	}
}
