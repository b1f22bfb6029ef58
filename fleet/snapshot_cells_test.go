package fleet

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// The lines of one resource and charge period are one cell (one Line) whatever order the store
// gives them in, and a GPU line without telemetry is one NoTelemetry charge of its whole cost.
func TestBuildMergesLinesInAnyOrder(t *testing.T) {
	inOrder := &fakeStore{}
	for d := range 5 {
		for _, r := range []string{"a", "b", "c"} {
			inOrder.line(r, day1.AddDate(0, 0, d), 12, 100e9, gpucost.Labels{"team": "t-" + r})
			inOrder.line(r, day1.AddDate(0, 0, d), 12, 20e9, gpucost.Labels{"team": "t-" + r}) // a second line of the day
		}
	}
	inOrder.hours("a", gpucost.Labels{"namespace": "train"}, day1, 24, 50)
	p := Period{Start: day1, End: day1.AddDate(0, 0, 5)}
	want := build(t, inOrder, p)
	if len(want.bare) != 3*5-1 || want.Stats.Matched != 1 || want.Stats.GPULines != 30 {
		t.Fatalf("Build(in order): %d bare lines, %d matched of %d GPU lines; want 14, 1 of 30", len(want.bare), want.Stats.Matched, want.Stats.GPULines)
	}
	if !slices.Equal(want.Stats.Unmatched, []string{"a", "b", "c"}) {
		t.Errorf("Build(in order).Stats.Unmatched = %q, want [a b c]", want.Stats.Unmatched)
	}
	team, _ := ParseDimension("team")
	resource, _ := ParseDimension("resource")
	for seed := range uint64(5) {
		shuffled := &fakeStore{lines: slices.Clone(inOrder.lines), rollups: inOrder.rollups}
		rand.New(rand.NewPCG(seed, 1)).Shuffle(len(shuffled.lines), func(i, j int) {
			shuffled.lines[i], shuffled.lines[j] = shuffled.lines[j], shuffled.lines[i]
		})
		got := build(t, shuffled, p)
		if len(got.bare) != len(want.bare) || got.Stats.Matched != 1 {
			t.Errorf("seed %d: Build(shuffled) has %d bare lines, %d matched; want %d, 1", seed, len(got.bare), got.Stats.Matched, len(want.bare))
		}
		for _, d := range []Dimension{team, resource} {
			if g, w := got.Group(d, nil), want.Group(d, nil); !slices.EqualFunc(g, w, sameFigures) {
				t.Errorf("seed %d: Group(%s) = %+v, want %+v", seed, d, g, w)
			}
		}
	}
	var noTel gpucost.Money
	for c := range want.All() {
		if c.Kind == NoTelemetry && c.Line.ResourceID == "b" {
			noTel = noTel.Add(c.Cost)
		}
	}
	if noTel != gpucost.USD(5*120e9) {
		t.Errorf("NoTelemetry cost of b = %v, want %v", noTel, gpucost.USD(5*120e9))
	}
}

func sameFigures(a, b Figures) bool {
	return a.Group == b.Group && a.TotalCost() == b.TotalCost() && a.IdleCost == b.IdleCost && a.BilledCost == b.BilledCost &&
		a.held == b.held && a.used == b.used && a.noTel == b.noTel && slices.Equal(a.Daily, b.Daily)
}

// resourceCells finds a charge period's cell whether the lines come in time order or not.
func TestResourceCells(t *testing.T) {
	rc := newResourceCells()
	cellAt := func(d int) *cell {
		return &cell{line: Line{Start: day1.AddDate(0, 0, d), End: day1.AddDate(0, 0, d+1)}}
	}
	unix := func(d int) (int64, int64) {
		return day1.AddDate(0, 0, d).Unix(), day1.AddDate(0, 0, d+1).Unix()
	}
	cells := map[int]*cell{}
	for _, d := range []int{0, 1, 2, 5, 3, 4} { // 3 and 4 after 5: out of order
		s, e := unix(d)
		if c := rc.find(s, e); c != nil {
			t.Fatalf("find(day %d) before add = %v, want nil", d, c.line.Start)
		}
		cells[d] = cellAt(d)
		rc.add(cells[d], s, e)
	}
	for _, d := range []int{4, 0, 5, 2, 1, 3} {
		s, e := unix(d)
		if c := rc.find(s, e); c != cells[d] {
			t.Errorf("find(day %d) = %p, want %p", d, c, cells[d])
		}
	}
	s, _ := unix(2)
	if c := rc.find(s, s+int64(time.Hour/time.Second)); c != nil {
		t.Errorf("find(day 2, one hour) = %v, want nil: another period", c.line.Start)
	}
}
