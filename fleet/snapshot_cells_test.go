package fleet

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
	"unsafe"

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
	if bareLines(want) != 3*5-1 || want.Stats.Matched != 1 || want.Stats.GPULines != 30 {
		t.Fatalf("Build(in order): %d bare lines, %d matched of %d GPU lines; want 14, 1 of 30", bareLines(want), want.Stats.Matched, want.Stats.GPULines)
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
		if bareLines(got) != bareLines(want) || got.Stats.Matched != 1 {
			t.Errorf("seed %d: Build(shuffled) has %d bare lines, %d matched; want %d, 1", seed, bareLines(got), got.Stats.Matched, bareLines(want))
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

// cellIndex finds a resource's charge period's cell whether the lines come in time order or
// not, and tells resources apart.
func TestCellIndex(t *testing.T) {
	var x cellIndex
	var cb cellBlocks
	unix := func(d int) (int64, int64) {
		return day1.AddDate(0, 0, d).Unix(), day1.AddDate(0, 0, d+1).Unix()
	}
	cells := map[[2]any]*cell{}
	for _, k := range []struct {
		id string
		d  int
	}{{"a", 0}, {"b", 0}, {"a", 1}, {"b", 1}, {"a", 2}, {"a", 5}, {"b", 2}, {"a", 3}, {"a", 4}, {"b", 5}} { // a's days 3 and 4 after 5
		s, e := unix(k.d)
		if c := x.find(k.id, s, e, &cb); c != nil {
			t.Fatalf("find(%s, day %d) before add = %v, want nil", k.id, k.d, c.line.Start())
		}
		c := cb.add(Line{LineResource: &LineResource{ResourceID: k.id}, start: day1.AddDate(0, 0, k.d).UnixNano(), end: day1.AddDate(0, 0, k.d+1).UnixNano()})
		cells[[2]any{k.id, k.d}] = c
		x.add(k.id, s, e, c)
	}
	if x.all == nil {
		t.Errorf("no map of all cells after lines out of order")
	}
	for k, want := range cells {
		s, e := unix(k[1].(int))
		if c := x.find(k[0].(string), s, e, &cb); c != want {
			t.Errorf("find(%s, day %d) = %p, want %p", k[0], k[1], c, want)
		}
	}
	s, _ := unix(2)
	if c := x.find("a", s, s+int64(time.Hour/time.Second), &cb); c != nil {
		t.Errorf("find(a, day 2, one hour) = %v, want nil: another period", c.line.Start())
	}
	if c := x.find("c", s, s+86400, &cb); c != nil {
		t.Errorf("find(c, day 2) = %v, want nil: another resource", c.line.Start())
	}
}

// A cell is 48 bytes: a year of daily lines of 10,000 resources is 3.65 M of them
// (docs/architecture.md "Speed of the reports").
func TestCellSize(t *testing.T) {
	if n := unsafe.Sizeof(cell{}); n > 48 {
		t.Errorf("unsafe.Sizeof(cell{}) = %d bytes, want at most 48", n)
	}
}

// bareLines counts the GPU lines of s no telemetry covers.
func bareLines(s *Snapshot) int {
	n := 0
	for c := range s.cells.all() {
		if c.line.bare() {
			n++
		}
	}
	return n
}

// A line's marks and its billed GPU time share one field: adding time keeps the marks, and
// marking keeps the time.
func TestLineMarksKeepUnits(t *testing.T) {
	for _, c := range []struct {
		name         string
		adds         []int64
		merged, bare bool
		want         int64
	}{
		{"none", nil, false, false, 0},
		{"a day of 8 GPUs", []int64{8 * 24 * unitsPerHour}, false, false, 8 * 24 * unitsPerHour},
		{"merged, then more", []int64{unitsPerHour, 3 * unitsPerHour}, true, false, 4 * unitsPerHour},
		{"bare", []int64{5}, false, true, 5},
		{"both, a year of 10,000 GPUs", []int64{10_000 * 8760 * unitsPerHour}, true, true, 10_000 * 8760 * unitsPerHour},
		{"nothing less than none", []int64{7, -9}, true, true, 7},
	} {
		var ln Line
		for i, n := range c.adds {
			if i == 1 && c.merged {
				ln.setMerged()
			}
			ln.addUnits(n)
		}
		if c.merged && len(c.adds) < 2 {
			ln.setMerged()
		}
		if c.bare {
			ln.setBare()
		}
		if ln.units() != c.want || ln.merged() != c.merged || ln.bare() != c.bare {
			t.Errorf("%s: units(), merged(), bare() = %d, %v, %v, want %d, %v, %v", c.name, ln.units(), ln.merged(), ln.bare(), c.want, c.merged, c.bare)
		}
	}
}
