package telemetry

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

var t0 = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

func gpu(n int) gpucost.GPU {
	return gpucost.GPU{UUID: "GPU-" + string(rune('a'+n)), Host: "node1", Model: "NVIDIA L4", Index: n}
}

func sample(g gpucost.GPU, at time.Duration, util float64) gpucost.Sample {
	s := gpucost.NewSample(t0.Add(at), g)
	s.Util = util
	return s
}

func TestRollupMinuteAndHour(t *testing.T) {
	g := gpu(0)
	b := NewBatch(0)
	utils := []float64{0, 10, 20, 30, 40, 50, 60, 70, 80, 90} // seconds 0, 6, …, 54 of minute 0
	for i, u := range utils {
		s := sample(g, time.Duration(6*i)*time.Second, u)
		s.MemUsedMiB, s.MemTotalMiB = float64(1000+100*i), 24576
		s.PowerW, s.TempC = 70+float64(i), 40+float64(i%3)
		b.Add(s)
	}
	b.Add(sample(g, 5*time.Minute+30*time.Second, 2)) // minute 5: idle, nothing but util
	out := Rollup(b, 5)
	if len(out) != 3 {
		t.Fatalf("Rollup gave %d rollups, want 2 minutes and 1 hour: %+v", len(out), out)
	}
	m0, m5, h := out[0], out[1], out[2]
	check := func(name string, got, want float64) {
		t.Helper()
		if got != want && !(got != got && want != want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if m0.Width != time.Minute || !m0.Start.Equal(t0) || m0.Samples != 10 || m0.Coverage != 0x41041041041041 {
		t.Errorf("minute 0 = %v %v samples %d coverage %#x", m0.Start, m0.Width, m0.Samples, m0.Coverage)
	}
	check("m0.UtilSum", m0.UtilSum, 450)
	check("m0.UtilMax", m0.UtilMax, 90)
	check("m0.UtilP50", m0.UtilP50, 40) // rank ⌈0.5·10⌉ = 5
	check("m0.UtilP95", m0.UtilP95, 90) // rank 10
	check("m0.MemMaxMiB", m0.MemMaxMiB, 1900)
	check("m0.MemP95MiB", m0.MemP95MiB, 1900)
	check("m0.MemTotalMiB", m0.MemTotalMiB, 24576)
	check("m0.PowerSum", m0.PowerSum, 745)
	check("m0.PowerMax", m0.PowerMax, 79)
	check("m0.TempMaxC", m0.TempMaxC, 42)
	if m0.PowerSamples != 10 || m0.IdleMinutes != 0 || m0.IdleMask != 0 || m0.UtilHist != nil {
		t.Errorf("minute 0: power samples %d, idle %d/%b, hist %v", m0.PowerSamples, m0.IdleMinutes, m0.IdleMask, m0.UtilHist)
	}
	if m5.Coverage != 1<<30 || m5.IdleMinutes != 1 || m5.IdleMask != 1 {
		t.Errorf("minute 5: coverage %#x idle %d/%b, want bit 30 and idle", m5.Coverage, m5.IdleMinutes, m5.IdleMask)
	}
	check("m5.MemMaxMiB", m5.MemMaxMiB, math.NaN())
	check("m5.TempMaxC", m5.TempMaxC, math.NaN())
	if h.Width != time.Hour || h.Samples != 11 || h.Coverage != 1|1<<5 || h.IdleMask != 1<<5 || h.IdleMinutes != 1 {
		t.Errorf("hour: %v samples %d coverage %#x idle %d/%#x", h.Width, h.Samples, h.Coverage, h.IdleMinutes, h.IdleMask)
	}
	check("h.UtilSum", h.UtilSum, 452)
	check("h.UtilP50", h.UtilP50, 40) // values 0,2,10,…,90: rank 6 is 40
	check("h.UtilP95", h.UtilP95, 90)
	if len(h.UtilHist) != HistBins || h.UtilHist[0] != 1 || h.UtilHist[2] != 1 || h.UtilHist[90] != 1 {
		t.Errorf("hour histogram = %v", h.UtilHist)
	}
}

// TestRollupMatchesReference rolls random samples, shuffled, with duplicates and absent readings,
// and compares every field with a straightforward sort-and-count implementation.
func TestRollupMatchesReference(t *testing.T) {
	for _, interval := range []time.Duration{time.Second, 7 * time.Second} {
		rng := rand.New(rand.NewPCG(1, uint64(interval)))
		samples := randomSamples(rng, 5, 150*time.Minute, interval)
		rng.Shuffle(len(samples), func(i, j int) { samples[i], samples[j] = samples[j], samples[i] })
		b := NewBatch(0)
		for _, s := range samples {
			b.Add(s)
		}
		got := Rollup(b, 10)
		slices.SortStableFunc(got, func(x, y gpucost.Rollup) int {
			return cmpString(x.Series.GPU.UUID+x.Series.Labels.String(), y.Series.GPU.UUID+y.Series.Labels.String())
		})
		want := referenceRollup(samples, 10)
		if len(got) != len(want) {
			t.Fatalf("interval %v: Rollup gave %d rollups, want %d", interval, len(got), len(want))
		}
		for i := range got {
			if diff := rollupDiff(&got[i], &want[i]); diff != "" {
				t.Fatalf("interval %v: rollup %d (%s %v %v): %s", interval, i, got[i].Series.GPU.UUID, got[i].Start, got[i].Width, diff)
			}
		}
	}
}

// randomSamples returns time-ordered samples of n GPUs over span, one every interval with
// jitter, with integer utilisations, some absent readings and some repeated samples.
func randomSamples(rng *rand.Rand, n int, span, interval time.Duration) []gpucost.Sample {
	var out []gpucost.Sample
	for g := range n {
		labels := gpucost.Labels{"pod": "p" + string(rune('0'+g%3))}
		for at := time.Duration(g) * 13 * time.Second; at < span; at += interval {
			s := gpucost.NewSample(t0.Add(at+time.Duration(rng.IntN(900))*time.Millisecond), gpu(g))
			s.Labels = labels
			s.Util = float64(rng.IntN(101))
			if g == 3 && s.Util < 100 {
				s.Util += 0.37 // not a whole percent
			}
			if g == 1 && at > time.Hour {
				s.Util = float64(rng.IntN(12)) // idle for a while
			}
			if rng.IntN(10) > 0 {
				s.MemUsedMiB, s.MemTotalMiB = float64(rng.IntN(4)*1024), 16384
			}
			if rng.IntN(5) > 0 {
				s.PowerW = float64(rng.IntN(30000)) / 100
			}
			s.TempC = float64(30 + rng.IntN(50))
			if g%2 == 0 {
				s.SMActive, s.SMOccupancy, s.GrEngineActive = float64(rng.IntN(9))/8, float64(rng.IntN(5))/4, 0.5
			}
			if rng.IntN(50) == 0 {
				s.Util = math.NaN() // no utilisation: not rolled up
			}
			out = append(out, s)
			if rng.IntN(40) == 0 {
				out = append(out, s) // the same instant twice
			}
		}
	}
	return out
}

// referenceRollup computes the rollups of samples by sorting: the specification of Rollup.
func referenceRollup(samples []gpucost.Sample, idleBelow float64) []gpucost.Rollup {
	samples = slices.Clone(samples)
	for i, s := range samples {
		if gpucost.IsAbsent(s.Util) {
			samples[i].Util = 100 * s.GrEngineActive // the MIG fallback of Batch.Add
		}
	}
	type keyed struct {
		key string
		s   gpucost.Sample
	}
	ks := make([]keyed, len(samples))
	for i, s := range samples {
		ks[i] = keyed{s.GPU.UUID + s.Labels.String(), s}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int {
		if c := cmpString(a.key, b.key); c != 0 {
			return c
		}
		return a.s.Time.Compare(b.s.Time)
	})
	var out []gpucost.Rollup
	var minutes []gpucost.Sample
	var hour []gpucost.Rollup
	var hourSamples []gpucost.Sample
	flushMinute := func() {
		if len(minutes) > 0 {
			r := refRollup(minutes, time.Minute, idleBelow)
			out = append(out, r)
			hour = append(hour, r)
			hourSamples = append(hourSamples, minutes...)
			minutes = nil
		}
	}
	flushHour := func() {
		flushMinute()
		if len(hour) > 0 {
			h := refRollup(hourSamples, time.Hour, idleBelow)
			for _, m := range hour {
				bit := uint64(1) << uint(m.Start.Sub(h.Start)/time.Minute)
				h.Coverage |= bit
				if m.IdleMask != 0 {
					h.IdleMask |= bit
				}
			}
			h.IdleMinutes = bits.OnesCount64(h.IdleMask)
			out = append(out, h)
			hour, hourSamples = nil, nil
		}
	}
	var prev, first keyed // the previous sample and the first of the current minute
	for i, k := range ks {
		s := k.s
		if gpucost.IsAbsent(s.Util) || i > 0 && k.key == prev.key && s.Time.Equal(prev.s.Time) {
			prev = k
			continue
		}
		if len(minutes) > 0 && (k.key != first.key || !s.Time.Truncate(time.Minute).Equal(first.s.Time.Truncate(time.Minute))) {
			if k.key != first.key || !s.Time.Truncate(time.Hour).Equal(first.s.Time.Truncate(time.Hour)) {
				flushHour()
			} else {
				flushMinute()
			}
		}
		if len(minutes) == 0 {
			first = k
		}
		minutes = append(minutes, s)
		prev = k
	}
	flushHour()
	return out
}

func refRollup(ss []gpucost.Sample, width time.Duration, idleBelow float64) gpucost.Rollup {
	r := gpucost.Rollup{Start: ss[0].Time.Truncate(width), Width: width, Samples: len(ss),
		UtilMax: math.NaN(), MemMaxMiB: math.NaN(), MemTotalMiB: math.NaN(), PowerMax: math.NaN(), TempMaxC: math.NaN()}
	var utils, mems []float64
	hist := make([]uint32, HistBins)
	for _, s := range ss {
		r.UtilSum += s.Util
		utils = append(utils, s.Util)
		hist[int(math.Floor(s.Util+0.5))]++
		r.UtilMax = nanMax(r.UtilMax, s.Util)
		if !gpucost.IsAbsent(s.MemUsedMiB) {
			mems = append(mems, s.MemUsedMiB)
		}
		r.MemMaxMiB = nanMax(r.MemMaxMiB, s.MemUsedMiB)
		r.MemTotalMiB = nanMax(r.MemTotalMiB, s.MemTotalMiB)
		if !gpucost.IsAbsent(s.PowerW) {
			r.PowerSamples++
			r.PowerSum += s.PowerW
		}
		r.PowerMax = nanMax(r.PowerMax, s.PowerW)
		r.TempMaxC = nanMax(r.TempMaxC, s.TempC)
		if !gpucost.IsAbsent(s.SMActive) {
			r.ProfSamples++
			r.SMActiveSum += s.SMActive
			r.SMOccupancySum += orZero(s.SMOccupancy)
			r.GrEngineActiveSum += orZero(s.GrEngineActive)
		}
		if width == time.Minute {
			r.Coverage |= 1 << uint(s.Time.Second())
		}
	}
	slices.Sort(utils)
	slices.Sort(mems)
	at := func(v []float64, pct int) float64 {
		if len(v) == 0 {
			return math.NaN()
		}
		return v[int(math.Ceil(float64(pct)*float64(len(v))/100))-1]
	}
	r.MemP95MiB = at(mems, 95)
	if width == time.Hour {
		r.UtilHist = hist
		var expanded []float64
		for v, c := range hist {
			for range c {
				expanded = append(expanded, float64(v))
			}
		}
		r.UtilP50, r.UtilP95 = at(expanded, 50), at(expanded, 95)
	} else {
		r.UtilP50, r.UtilP95 = at(utils, 50), at(utils, 95)
		if r.UtilSum/float64(r.Samples) < idleBelow {
			r.IdleMinutes, r.IdleMask = 1, 1
		}
	}
	return r
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// rollupDiff describes how got differs from want, "" if not at all. Sums may differ in their
// last bits, having been added in another order.
func rollupDiff(got, want *gpucost.Rollup) string {
	if !got.Start.Equal(want.Start) || got.Width != want.Width {
		return "start/width " + got.Start.String() + " " + got.Width.String() + ", want " + want.Start.String() + " " + want.Width.String()
	}
	ints := []struct {
		name      string
		got, want int64
	}{
		{"Samples", int64(got.Samples), int64(want.Samples)},
		{"Coverage", int64(got.Coverage), int64(want.Coverage)},
		{"PowerSamples", int64(got.PowerSamples), int64(want.PowerSamples)},
		{"ProfSamples", int64(got.ProfSamples), int64(want.ProfSamples)},
		{"IdleMinutes", int64(got.IdleMinutes), int64(want.IdleMinutes)},
		{"IdleMask", int64(got.IdleMask), int64(want.IdleMask)},
	}
	for _, f := range ints {
		if f.got != f.want {
			return f.name + " = " + itoa(f.got) + ", want " + itoa(f.want)
		}
	}
	floats := []struct {
		name      string
		got, want float64
	}{
		{"UtilSum", got.UtilSum, want.UtilSum}, {"UtilMax", got.UtilMax, want.UtilMax},
		{"UtilP50", got.UtilP50, want.UtilP50}, {"UtilP95", got.UtilP95, want.UtilP95},
		{"MemMaxMiB", got.MemMaxMiB, want.MemMaxMiB}, {"MemP95MiB", got.MemP95MiB, want.MemP95MiB},
		{"MemTotalMiB", got.MemTotalMiB, want.MemTotalMiB},
		{"PowerSum", got.PowerSum, want.PowerSum}, {"PowerMax", got.PowerMax, want.PowerMax},
		{"TempMaxC", got.TempMaxC, want.TempMaxC},
		{"SMActiveSum", got.SMActiveSum, want.SMActiveSum}, {"SMOccupancySum", got.SMOccupancySum, want.SMOccupancySum},
		{"GrEngineActiveSum", got.GrEngineActiveSum, want.GrEngineActiveSum},
	}
	for _, f := range floats {
		if !close(f.got, f.want) {
			return f.name + " = " + ftoa(f.got) + ", want " + ftoa(f.want)
		}
	}
	if !slices.Equal(got.UtilHist, want.UtilHist) {
		return "UtilHist differs"
	}
	return ""
}

func close(a, b float64) bool {
	if a != a || b != b {
		return a != a && b != b
	}
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b))
}

func itoa(v int64) string   { return strconv.FormatInt(v, 10) }
func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// TestRollupOrders rolls up the same samples added in different orders and wants the very same
// rollups, bit for bit: one GPU after another; as an agent polls them, every GPU at one instant
// and then the next; polled but with some readings arriving late, behind those of later
// instants; and shuffled. The samples have jitter, gaps, absent readings, utilisations that
// are not whole percents or are -0, profiling readings on some GPUs and exact repeats.
func TestRollupOrders(t *testing.T) {
	cases := []struct {
		gpus     int
		span     time.Duration
		interval time.Duration
	}{
		{5, 150 * time.Minute, time.Second},
		{7, 150 * time.Minute, 7 * time.Second},
		{200, 70 * time.Minute, 10 * time.Second}, // windows of several minutes, sorted two at a time
		{40, 5 * time.Hour, time.Minute},
	}
	for _, c := range cases {
		rng := rand.New(rand.NewPCG(3, uint64(c.interval)))
		bySeries := orderSamples(rng, c.gpus, c.span, c.interval)
		polled := slices.Clone(bySeries)
		slices.SortStableFunc(polled, func(a, b gpucost.Sample) int { return a.Time.Compare(b.Time) })
		late := slices.Clone(polled)
		for i := range late { // every 50th reading arrives up to 2 minutes' worth of samples late
			if i%50 == 0 {
				j := min(i+rng.IntN(c.gpus*int(2*time.Minute/c.interval)), len(late)-1)
				s := late[i]
				copy(late[i:j], late[i+1:j+1])
				late[j] = s
			}
		}
		shuffled := slices.Clone(bySeries)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })

		want := rollupOf(bySeries)
		orders := []struct {
			name    string
			samples []gpucost.Sample
		}{{"as polled", polled}, {"polled, some late", late}, {"shuffled", shuffled}}
		for _, o := range orders {
			got := rollupOf(o.samples)
			if len(got) != len(want) {
				t.Fatalf("%d GPUs every %v, %s: %d rollups, want %d as by series", c.gpus, c.interval, o.name, len(got), len(want))
			}
			for i := range got {
				if diff := rollupBits(&got[i], &want[i]); diff != "" {
					t.Fatalf("%d GPUs every %v, %s: rollup %d (%s %v %v): %s", c.gpus, c.interval, o.name, i,
						want[i].Series.GPU.UUID, want[i].Start, want[i].Width, diff)
				}
			}
		}
	}
}

// TestRollupRoundsOrders is TestRollupOrders for samples that come in rounds, every GPU at the
// same instants, which Rollup reads in place: polled, with a GPU gone for a while (so that some
// windows do not come in rounds), with some readings late, one GPU after another, and shuffled.
func TestRollupRoundsOrders(t *testing.T) {
	for _, interval := range []time.Duration{time.Second, 10 * time.Second} {
		var polled []gpucost.Sample
		fleetSamples(20, 70*time.Minute, interval, true, func(s gpucost.Sample) {
			at := s.Time.Sub(t0)
			if s.GPU.Host == "node000" && s.GPU.Index == 3 && at > 20*time.Minute && at < 30*time.Minute {
				return // gone for a while
			}
			switch at / time.Second % 97 {
			case 0:
				s.Util = math.NaN()
			case 1:
				s.Util, s.MemUsedMiB = math.Copysign(0, -1), math.Copysign(0, -1)
			case 2:
				s.Util = 12.5
			}
			polled = append(polled, s)
		})
		late := slices.Clone(polled)
		for i := 0; i+500 < len(late); i += 7919 {
			s := late[i]
			copy(late[i:i+500], late[i+1:i+501])
			late[i+500] = s
		}
		bySeries := slices.Clone(polled)
		slices.SortStableFunc(bySeries, func(a, b gpucost.Sample) int { return cmpString(a.GPU.UUID, b.GPU.UUID) })
		shuffled := slices.Clone(polled)
		rng := rand.New(rand.NewPCG(2, uint64(interval)))
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		want := rollupOf(bySeries)
		for name, samples := range map[string][]gpucost.Sample{"as polled": polled, "some late": late, "shuffled": shuffled} {
			got := rollupOf(samples)
			if len(got) != len(want) {
				t.Fatalf("every %v, %s: %d rollups, want %d as by series", interval, name, len(got), len(want))
			}
			for i := range got {
				if diff := rollupBits(&got[i], &want[i]); diff != "" {
					t.Fatalf("every %v, %s: rollup %d (%s %v %v): %s", interval, name, i,
						want[i].Series.GPU.UUID, want[i].Start, want[i].Width, diff)
				}
			}
		}
	}
}

// orderSamples returns randomSamples of n GPUs, one GPU after another, each in time order,
// with some utilisations -0 (both copies of a repeated sample alike) and a gap of 20 minutes.
func orderSamples(rng *rand.Rand, n int, span, interval time.Duration) []gpucost.Sample {
	var out []gpucost.Sample
	for _, s := range randomSamples(rng, n, span, interval) {
		at := s.Time.Sub(t0)
		if at > 40*time.Minute && at < time.Hour {
			continue
		}
		if at/time.Second%23 == 0 {
			s.Util = math.Copysign(0, -1)
		}
		out = append(out, s)
	}
	return out
}

// rollupOf rolls samples up and orders the rollups by series name, keeping each series' own
// order: batches filled in different orders number their series differently.
func rollupOf(samples []gpucost.Sample) []gpucost.Rollup {
	b := NewBatch(0)
	for _, s := range samples {
		b.Add(s)
	}
	out := Rollup(b, 10)
	slices.SortStableFunc(out, func(x, y gpucost.Rollup) int {
		return cmpString(x.Series.GPU.UUID+x.Series.Labels.String(), y.Series.GPU.UUID+y.Series.Labels.String())
	})
	return out
}

// rollupBits describes the first field in which got and want differ in any bit, "" if none.
func rollupBits(got, want *gpucost.Rollup) string {
	if got.Series.GPU != want.Series.GPU || !maps.Equal(got.Series.Labels, want.Series.Labels) {
		return "series " + got.Series.GPU.UUID + got.Series.Labels.String() + ", want " + want.Series.GPU.UUID + want.Series.Labels.String()
	}
	if got.Start != want.Start || got.Width != want.Width {
		return "start/width " + got.Start.String() + " " + got.Width.String() + ", want " + want.Start.String() + " " + want.Width.String()
	}
	g, w := rollupWords(got), rollupWords(want)
	for i := range g {
		if g[i] != w[i] {
			return fmt.Sprintf("word %d of %v = %#x, want %#x", i, rollupWordNames, g[i], w[i])
		}
	}
	if !slices.Equal(got.UtilHist, want.UtilHist) {
		return fmt.Sprintf("UtilHist = %v, want %v", got.UtilHist, want.UtilHist)
	}
	return ""
}

var rollupWordNames = []string{"Samples", "Coverage", "UtilSum", "UtilMax", "UtilP50", "UtilP95", "MemMaxMiB",
	"MemP95MiB", "MemTotalMiB", "PowerSamples", "PowerSum", "PowerMax", "TempMaxC", "ProfSamples", "SMActiveSum",
	"SMOccupancySum", "GrEngineActiveSum", "IdleMinutes", "IdleMask"}

// rollupWords returns r's counts and the bits of its readings, in the order of rollupWordNames.
func rollupWords(r *gpucost.Rollup) []uint64 {
	f := math.Float64bits
	return []uint64{uint64(r.Samples), r.Coverage, f(r.UtilSum), f(r.UtilMax), f(r.UtilP50), f(r.UtilP95),
		f(r.MemMaxMiB), f(r.MemP95MiB), f(r.MemTotalMiB), uint64(r.PowerSamples), f(r.PowerSum), f(r.PowerMax),
		f(r.TempMaxC), uint64(r.ProfSamples), f(r.SMActiveSum), f(r.SMOccupancySum), f(r.GrEngineActiveSum),
		uint64(r.IdleMinutes), r.IdleMask}
}

// TestRollupUnchanged pins Rollup's results to those of the implementation before the windowed
// one (commit 7175737), bit for bit, through a digest of every rollup of fleets in both orders
// and of random samples in and out of order, with -0 readings.
func TestRollupUnchanged(t *testing.T) {
	want := map[string]string{
		"fleet 1s by series": "e561e0bf91aadc34aed5dd45", "fleet 1s as polled": "1acde07d63f43f2bca091d1f",
		"fleet 4s by series": "4bb6fd20afb6e8e37cb37d5f", "fleet 4s as polled": "b16158385f0daf0ec156b067",
		"fleet 10s by series": "b2f688287f06b5157b3e7378", "fleet 10s as polled": "3531e860c24947a99ef1b1fb",
		"fleet 1m0s by series": "3f2f67b36380f90bc623fed8", "fleet 1m0s as polled": "989e1d8363112fdbe5615dcc",
		"random 1s in order": "aab47ea83a85db6a44dd96d2", "random 1s shuffled": "1a899332002ede68d8f96a04",
		"random 7s in order": "e0349b3127df6984e4a8a15a", "random 7s shuffled": "f0ed21dba17b2f899de9f2ce",
	}
	got := map[string]string{}
	for _, iv := range []time.Duration{time.Second, 4 * time.Second, 10 * time.Second, time.Minute} {
		for _, polled := range []bool{false, true} {
			b := NewBatch(0)
			fleetSamples(12, 130*time.Minute, iv, polled, b.Add)
			got[fmt.Sprintf("fleet %v %s", iv, map[bool]string{false: "by series", true: "as polled"}[polled])] = rollupDigest(Rollup(b, 5))
		}
	}
	for _, iv := range []time.Duration{time.Second, 7 * time.Second} {
		for _, shuffle := range []bool{false, true} {
			rng := rand.New(rand.NewPCG(5, uint64(iv)))
			ss := randomSamples(rng, 4, 150*time.Minute, iv)
			for i := range ss {
				switch rng.IntN(40) {
				case 0:
					ss[i].Util = math.Copysign(0, -1)
				case 1:
					ss[i].MemUsedMiB = math.Copysign(0, -1)
				case 2:
					ss[i].MemUsedMiB = 0
				}
			}
			if shuffle {
				rng.Shuffle(len(ss), func(i, j int) { ss[i], ss[j] = ss[j], ss[i] })
			}
			b := NewBatch(0)
			for _, s := range ss {
				b.Add(s)
			}
			got[fmt.Sprintf("random %v %s", iv, map[bool]string{false: "in order", true: "shuffled"}[shuffle])] = rollupDigest(Rollup(b, 10))
		}
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: rollups digest %s, want %s: Rollup's results changed", name, got[name], w)
		}
	}
}

// rollupDigest returns the first 12 bytes of the SHA-256 of every field of rs, in hex.
func rollupDigest(rs []gpucost.Rollup) string {
	h := sha256.New()
	var buf []byte
	for i := range rs {
		r := &rs[i]
		buf = append(buf[:0], r.Series.GPU.UUID...)
		buf = append(buf, r.Series.Labels.String()...)
		words := rollupWords(r)
		// The order the digests were first taken in: time and width, then the counts and bits.
		head := []uint64{uint64(r.Start.UnixNano()), uint64(r.Width), words[0], words[1]}
		for _, v := range append(append(head, words[2:]...), uint64(len(r.UtilHist))) {
			buf = binary.LittleEndian.AppendUint64(buf, v)
		}
		for _, c := range r.UtilHist {
			buf = binary.LittleEndian.AppendUint32(buf, c)
		}
		h.Write(buf)
	}
	return fmt.Sprintf("%x", h.Sum(nil)[:12])
}

// TestSmallQuantiles checks the sorting networks by the 0–1 principle (a network that sorts
// every sequence of 0s and 1s sorts every sequence) and smallQuantiles against quantiles.
func TestSmallQuantiles(t *testing.T) {
	networks := []struct {
		n    int
		sort func(*[8]int64)
	}{{4, sort4}, {6, sort6}, {8, sort8}}
	for _, nw := range networks {
		for bits := range 1 << nw.n {
			var k [8]int64
			for i := range k {
				k[i] = int64(bits >> i & 1)
				if i >= nw.n {
					k[i] = 2 // padding, which these networks leave alone
				}
			}
			nw.sort(&k)
			if !slices.IsSorted(k[:nw.n]) {
				t.Fatalf("sort%d(%0*b) = %v, not sorted", nw.n, nw.n, bits, k[:nw.n])
			}
		}
	}
	rng := rand.New(rand.NewPCG(9, 9))
	for range 20000 {
		a := make([]float64, 3+rng.IntN(6))
		for i := range a {
			a[i] = float64(rng.IntN(8)) // many ties
			if rng.IntN(3) == 0 {
				a[i] = rng.Float64() * 100
			}
		}
		w50, w95 := quantiles(slices.Clone(a))
		g50, g95 := smallQuantiles(a)
		if math.Float64bits(g50) != math.Float64bits(w50) || math.Float64bits(g95) != math.Float64bits(w95) {
			t.Fatalf("smallQuantiles(%v) = %v, %v, want %v, %v", a, g50, g95, w50, w95)
		}
	}
}

// TestRunsQuantile95 checks runsQuantile95 against selection, and that it gives up where it
// should: on more than 8 distinct values and on a p95 of zero, whose sign depends on order.
func TestRunsQuantile95(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for range 600 {
		distinct := 1 + rng.IntN(11)
		vals := make([]float64, distinct)
		for i := range vals {
			vals[i] = float64(rng.IntN(5) * 1024)
		}
		var a []float64
		for range 1 + rng.IntN(60) {
			v := vals[rng.IntN(distinct)]
			for range 1 + rng.IntN(30) { // runs of equal readings
				a = append(a, v)
			}
		}
		want := selectK(slices.Clone(a), rank(95, len(a))-1)
		got, ok := runsQuantile95(a)
		switch {
		case ok && math.Float64bits(got) != math.Float64bits(want):
			t.Fatalf("runsQuantile95 of %d values = %v, want %v", len(a), got, want)
		case ok && got == 0:
			t.Fatalf("runsQuantile95 of %d values = 0, ok; want it to give up", len(a))
		case !ok && want != 0 && len(slices.Compact(slices.Sorted(slices.Values(a)))) <= 8:
			t.Fatalf("runsQuantile95 of %d values with few distinct gave up", len(a))
		}
	}
}

// TestLayoutWindows checks the windows of batches in several orders: they cover the batch in
// order, their minutes come apart and in order, every sample's minute lies within its window's,
// those said to come in rounds do, and a polled batch falls into many windows, most of them in
// rounds, a shuffled one into one.
func TestLayoutWindows(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	samples := orderSamples(rng, 100, 30*time.Minute, 10*time.Second)
	jittered := slices.Clone(samples) // in time order, GPUs in a different order every round
	slices.SortStableFunc(jittered, func(a, b gpucost.Sample) int { return a.Time.Compare(b.Time) })
	var polled []gpucost.Sample
	fleetSamples(100, 30*time.Minute, 10*time.Second, true, func(s gpucost.Sample) { polled = append(polled, s) })
	late := slices.Clone(polled)
	s := late[100] // a reading of the first minutes, arriving with those of the ninth
	copy(late[100:], late[101:5000])
	late[4999] = s
	shuffled := slices.Clone(samples)
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	cases := []struct {
		name          string
		samples       []gpucost.Sample
		inOrder       bool
		windows, most int // how many windows the batch falls into at least and at most
	}{
		{"by series", samples, true, 0, 0},
		{"as polled", polled, false, 3, 9},
		{"polled, one late", late, false, 2, 4}, // the late reading joins the first two
		{"in time order", jittered, false, 3, 9},
		{"shuffled", shuffled, false, 1, 1},
	}
	windows := map[string]int{}
	for _, c := range cases {
		b := NewBatch(0)
		for _, s := range c.samples {
			b.Add(s)
		}
		l := b.layout()
		windows[c.name] = len(l.windows)
		if l.inOrder != c.inOrder {
			t.Fatalf("%s: layout().inOrder = %v, want %v", c.name, l.inOrder, c.inOrder)
		}
		if c.inOrder {
			continue
		}
		if len(l.windows) < c.windows || len(l.windows) > c.most {
			t.Errorf("%s: %d windows, want %d to %d", c.name, len(l.windows), c.windows, c.most)
		}
		next, inRounds := 0, 0
		for k, w := range l.windows {
			if w.lo != next || w.hi <= w.lo || k > 0 && w.min <= l.windows[k-1].max {
				t.Fatalf("%s: window %d = %+v after %+v", c.name, k, w, l.windows[max(k-1, 0)])
			}
			for i := w.lo; i < w.hi; i++ {
				if m := floorDiv(b.time[i], nsMinute); m < w.min || m > w.max {
					t.Fatalf("%s: sample %d of minute %d lies in window %+v", c.name, i, m, w)
				}
				if g := w.rounds; g > 0 && i-g >= w.lo && (b.seriesOf[i] != b.seriesOf[i-g] || b.time[i] < b.time[i-g]) {
					t.Fatalf("%s: window %+v: sample %d breaks its rounds", c.name, w, i)
				}
			}
			if w.rounds > 0 {
				inRounds++
			}
			next = w.hi
		}
		if c.name == "as polled" && 2*inRounds < len(l.windows) || c.name == "shuffled" && inRounds > 0 {
			t.Errorf("%s: %d of %d windows in rounds", c.name, inRounds, len(l.windows))
		}
		if next != b.Len() {
			t.Errorf("%s: windows end at %d of %d samples", c.name, next, b.Len())
		}
	}
	if windows["polled, one late"] >= windows["as polled"] {
		t.Errorf("a late reading left %d windows of %d: want it to join two", windows["polled, one late"], windows["as polled"])
	}
}

// TestRollupLeavesBatch checks that Rollup does not move or change the batch's samples.
func TestRollupLeavesBatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	samples := orderSamples(rng, 20, 90*time.Minute, 10*time.Second)
	rng.Shuffle(len(samples), func(i, j int) { samples[i], samples[j] = samples[j], samples[i] })
	b := NewBatch(0)
	for _, s := range samples {
		b.Add(s)
	}
	ids, times := slices.Clone(b.seriesOf), slices.Clone(b.time)
	var cols [][]uint64
	for _, c := range b.columns() {
		cols = append(cols, floatBits(*c))
	}
	first := Rollup(b, 5)
	if !slices.Equal(ids, b.seriesOf) || !slices.Equal(times, b.time) {
		t.Fatal("Rollup moved the batch's samples")
	}
	for i, c := range b.columns() {
		if !slices.Equal(cols[i], floatBits(*c)) {
			t.Fatalf("Rollup changed column %d of the batch", i)
		}
	}
	again := Rollup(b, 5)
	if len(again) != len(first) || len(first) == 0 {
		t.Fatalf("Rollup gave %d rollups, then %d", len(first), len(again))
	}
	for i := range first {
		if diff := rollupBits(&again[i], &first[i]); diff != "" {
			t.Fatalf("Rollup of the same batch again: rollup %d: %s", i, diff)
		}
	}
}

func floatBits(v []float64) []uint64 {
	out := make([]uint64, len(v))
	for i, x := range v {
		out[i] = math.Float64bits(x)
	}
	return out
}

// nanMax returns the larger of a and b, where NaN (absent) loses to any number.
func nanMax(a, b float64) float64 {
	if a != a || b > a {
		return b
	}
	return a
}
