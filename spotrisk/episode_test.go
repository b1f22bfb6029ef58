package spotrisk

import (
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost/spot"
)

func TestEpisodeStart(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	h := func(x float64) time.Time { return t0.Add(time.Duration(x * float64(time.Hour))) }
	cases := []struct {
		name string
		at   []time.Time
		now  time.Time
		want time.Time
	}{
		{"none", nil, h(10), time.Time{}},
		{"one", []time.Time{h(3)}, h(10), h(3)},
		{"a chain 6 h apart at most, in any order", []time.Time{h(12), h(1), h(7)}, h(13), h(1)},
		{"a gap over 6 h starts a new episode", []time.Time{h(0), h(6.5), h(8)}, h(9), h(6.5)},
		{"interruptions after now are not seen", []time.Time{h(2), h(4), h(20)}, h(5), h(2)},
	}
	for _, c := range cases {
		if got := EpisodeStart(c.at, c.now, 6*time.Hour); !got.Equal(c.want) {
			t.Errorf("%s: EpisodeStart(%v, %v, 6h) = %v, want %v", c.name, c.at, c.now, got, c.want)
		}
	}
}

// TestInterruptionKeyStable checks that the alert's key names its episode: one key over
// checks 3, 5 and 8 hours after three interruptions an hour apart (the window end's hour would
// give three), and a new key when interruptions come back after a quiet spell longer than the
// window.
func TestInterruptionKeyStable(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	var evs []spot.Event
	for i, run := range []string{"a", "b", "c"} { // interrupted at 1, 2 and 3 h
		evs = append(evs, events(run, t0.Add(time.Duration(i)*time.Hour), 1, 1, true)...)
	}
	check := func(now time.Time) string {
		t.Helper()
		got := CheckInterruptions(map[string][]spot.Event{"ft": evs}, now, DefaultInterruptionRule, nil)
		if len(got) != 1 {
			t.Fatalf("CheckInterruptions at %v = %d alerts, want 1: %+v", now, len(got), got)
		}
		return got[0].Key()
	}
	want := "spot-interruptions:" + Pool{Provider: "aws", InstanceType: "g5.xlarge", Region: "us-east-1", Zone: "us-east-1a"}.String() + ":2026-11-20T01:00:00Z"
	for _, h := range []int{3, 5, 8} {
		if got := check(t0.Add(time.Duration(h) * time.Hour)); got != want {
			t.Errorf("Key() %d h in = %q, want %q", h, got, want)
		}
	}
	for i, run := range []string{"d", "e"} { // interrupted at 21 and 22 h
		evs = append(evs, events(run, t0.Add(time.Duration(20+i)*time.Hour), 1, 1, true)...)
	}
	if got, want := check(t0.Add(22*time.Hour)), strings.Replace(want, "01:00", "21:00", 1); got != want {
		t.Errorf("Key() of the second episode = %q, want %q", got, want)
	}
}
