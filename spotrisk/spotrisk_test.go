package spotrisk

import (
	"math"
	"os"
	"testing"
	"time"

	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/spot"
)

func near(a, b, rel float64) bool { return math.Abs(a-b) <= rel*math.Abs(b) }

// TestGarwood checks the interval against chi-square quantiles worked by hand: χ²(0.975; 2) =
// −2·ln 0.025 = 7.3778, and the tabled χ²(0.025; 6) = 1.2373, χ²(0.975; 8) = 17.5345.
func TestGarwood(t *testing.T) {
	cases := []struct {
		name      string
		k         int
		hours     float64
		low, high float64
	}{
		{"none in 10 h", 0, 10, 0, -2 * math.Log(0.025) / 20},
		{"3 in 100 h", 3, 100, 1.2373 / 200, 17.5345 / 200},
	}
	for _, c := range cases {
		lo, hi := Garwood(c.k, c.hours, 0.95)
		if !near(lo, c.low, 1e-4) || !near(hi, c.high, 1e-4) {
			t.Errorf("%s: Garwood(%d, %v, 0.95) = %v, %v, want %v, %v", c.name, c.k, c.hours, lo, hi, c.low, c.high)
		}
	}
	if lo, hi := Garwood(2, 0, 0.95); lo != 0 || hi != 0 {
		t.Errorf("Garwood(2, 0, 0.95) = %v, %v, want 0, 0", lo, hi)
	}
}

// events builds a run on a g5.xlarge spot instance in us-east-1a from its start to its last
// event, with a terminate notice at noticeAt when that is not zero.
func events(run string, start time.Time, hours float64, noticeAt float64, spotRun bool) []spot.Event {
	at := func(h float64) time.Time { return start.Add(time.Duration(h * float64(time.Hour))) }
	base := spot.Event{Job: "ft", Run: run, Cloud: "aws", InstanceType: "g5.xlarge", Region: "us-east-1", Zone: "us-east-1a",
		Spot: spotRun, Price: "0.40", OnDemand: "1.00"}
	ev := func(kind string, h float64) spot.Event {
		e := base
		e.Kind, e.Time = kind, at(h)
		return e
	}
	out := []spot.Event{ev(spot.EventStart, 0)}
	code := spot.ExitDone
	if noticeAt > 0 {
		n := ev(spot.EventNotice, noticeAt)
		n.NoticeKind = "terminate"
		out = append(out, n)
		code = spot.ExitInterrupted
	}
	exit := ev(spot.EventExit, hours)
	exit.ExitCode = &code
	return append(out, exit)
}

func TestMeasure(t *testing.T) {
	t0 := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
	var evs []spot.Event
	evs = append(evs, events("a", t0, 4, 3.9, true)...)                  // interrupted after 4 h
	evs = append(evs, events("b", t0.Add(5*time.Hour), 6, 5.9, true)...) // interrupted after 6 h
	evs = append(evs, events("c", t0.Add(12*time.Hour), 10, 0, true)...) // finished: 10 h
	evs = append(evs, events("d", t0.Add(30*time.Hour), 8, 0, false)...) // on demand: left out
	rates := Measure(FromEvents("ft", evs), 0.95)
	if len(rates) != 1 {
		t.Fatalf("Measure() = %d pools, want 1: %+v", len(rates), rates)
	}
	r := rates[0]
	if r.Runs != 3 || r.Interruptions != 2 || !near(r.Hours, 20, 1e-12) || !near(r.PerHour, 0.1, 1e-12) {
		t.Errorf("Measure() = %d runs, %d interruptions over %v h at %v/h; want 3, 2, 20 h, 0.1/h", r.Runs, r.Interruptions, r.Hours, r.PerHour)
	}
	// Garwood for 2 in 20 h: χ²(0.025; 4) = 0.4844, χ²(0.975; 6) = 14.4494, over 40.
	if !near(r.Low, 0.4844/40, 1e-3) || !near(r.High, 14.4494/40, 1e-4) {
		t.Errorf("Measure() interval = %v–%v, want %v–%v", r.Low, r.High, 0.4844/40, 14.4494/40)
	}
	// Nothing stored a checkpoint, so the interrupted runs kept nothing: productive 10 h of 20.
	if !near(r.Overhead, 1, 1e-12) {
		t.Errorf("Measure() overhead = %v, want 1 (20 h billable for 10 h kept)", r.Overhead)
	}
	// Cost 20 h × $0.40 = $8; on demand 10 h × $1 = $10; saving $2.
	if r.Cost.Nanos != 8e9 || r.Cost.Currency != "USD" {
		t.Errorf("Measure() cost = %v, want $8", r.Cost)
	}
	if r.Saving.Nanos != 2e9 || r.OnDemand.Nanos != 10e9 {
		t.Errorf("Measure() on demand %v saving %v, want $10 and $2", r.OnDemand, r.Saving)
	}
}

func readFixture(t *testing.T) *catalog.SpotAdvisor {
	t.Helper()
	f, err := os.Open("../catalog/testdata/spot-advisor-data.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, err := catalog.ParseSpotAdvisor(f, "spot-advisor-data.json")
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestResolve(t *testing.T) {
	adv := readFixture(t)
	t0 := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
	rates := Measure(FromEvents("ft", append(events("a", t0, 4, 3.9, true), events("b", t0.Add(5*time.Hour), 6, 5.9, true)...)), 0.95)
	quiet := Measure(FromEvents("ft", events("c", t0, 10, 0, true)), 0.95)
	cases := []struct {
		name   string
		pool   Pool
		rates  []Rate
		source string
		rate   float64
	}{
		{"measured, zone", Pool{InstanceType: "g5.xlarge", Region: "us-east-1", Zone: "us-east-1a"}, rates, SourceMeasured, 0.2},
		{"measured, any zone", Pool{InstanceType: "g5.xlarge", Region: "us-east-1"}, rates, SourceMeasured, 0.2},
		{"no interruption: advisor", Pool{InstanceType: "g5.xlarge", Region: "us-east-1"}, quiet, SourceAdvisor, catalog.MonthlyToHourly(0.08)},
		{"other zone: advisor", Pool{InstanceType: "g5.xlarge", Region: "us-east-1", Zone: "us-east-1b"}, rates, SourceAdvisor, catalog.MonthlyToHourly(0.08)},
		{"no advisor entry: upper bound", Pool{InstanceType: "g5.xlarge", Region: "us-east-1"}, quiet, SourceUpper, -2 * math.Log(0.025) / 20},
	}
	for _, c := range cases {
		a := adv
		if c.source == SourceUpper {
			a = nil
		}
		got, ok := Resolve(c.pool, c.rates, a, nil)
		if !ok || got.Source != c.source || !near(got.PerHour, c.rate, 1e-9) {
			t.Errorf("%s: Resolve(%v) = %+v, %v; want %s at %v", c.name, c.pool, got, ok, c.source, c.rate)
		}
	}
	if got, ok := Resolve(Pool{InstanceType: "p5.48xlarge", Region: "us-east-1"}, rates, adv, nil); ok {
		t.Errorf("Resolve(p5.48xlarge) = %+v, want nothing known", got)
	}
}
