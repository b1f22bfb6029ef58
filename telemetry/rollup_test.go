package telemetry

import (
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
