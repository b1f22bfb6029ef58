package analyze

import (
	"math"
	"time"

	"github.com/gpucost/gpucost"
)

// Test fixtures: rollups built from per-minute readings, the way the store builds them.

const testIdleBelow = 5 // a minute is idle when its mean util is below 5%

var t0 = time.Date(2025, 1, 6, 0, 0, 0, 0, time.UTC) // a Monday

func series(uuid, host, model string, labels gpucost.Labels) *gpucost.Series {
	return &gpucost.Series{GPU: gpucost.GPU{UUID: uuid, Host: host, Model: model, Index: 0}, Labels: labels}
}

func migSeries(uuid, parent, profile string, labels gpucost.Labels) *gpucost.Series {
	s := series(uuid, "host-m", "NVIDIA A100-SXM4-80GB", labels)
	s.GPU.Parent, s.GPU.Profile = parent, profile
	return s
}

// hour returns an hour rollup of s from per-minute utilisation: one sample per covered minute,
// NaN marking a minute without samples. Fewer than 60 values leave the rest uncovered.
func hour(s *gpucost.Series, start time.Time, utils ...float64) *gpucost.Rollup {
	r := &gpucost.Rollup{Series: s, Start: start, Width: time.Hour, UtilMax: math.NaN(),
		MemMaxMiB: math.NaN(), MemP95MiB: math.NaN(), MemTotalMiB: math.NaN(), PowerMax: math.NaN(),
		TempMaxC: math.NaN(), UtilHist: make([]uint32, 101)}
	for i, u := range utils {
		if math.IsNaN(u) {
			continue
		}
		r.Samples++
		r.Coverage |= 1 << i
		r.UtilSum += u
		r.UtilMax = nanMax(r.UtilMax, u)
		r.UtilHist[int(math.Round(u))]++
		if u < testIdleBelow {
			r.IdleMinutes++
			r.IdleMask |= 1 << i
		}
	}
	return r
}

// repeat returns n copies of v.
func repeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// join concatenates per-minute readings.
func join(parts ...[]float64) []float64 {
	var out []float64
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// hourRollups returns consecutive hour rollups of s from start covering the per-minute readings.
func hourRollups(s *gpucost.Series, start time.Time, utils []float64) []*gpucost.Rollup {
	var out []*gpucost.Rollup
	for i := 0; i < len(utils); i += 60 {
		out = append(out, hour(s, start.Add(time.Duration(i)*time.Minute), utils[i:min(i+60, len(utils))]...))
	}
	return out
}

// minute is a minute rollup's readings; NaN fields are absent.
type minute struct {
	util, memPct, temp, powerW, smOcc float64
}

// utilMinute is a minute with only a utilisation reading.
func utilMinute(u float64) minute {
	return minute{util: u, memPct: math.NaN(), temp: math.NaN(), powerW: math.NaN(), smOcc: math.NaN()}
}

// minuteRollup returns s's minute rollup at start holding m as one sample.
func minuteRollup(s *gpucost.Series, start time.Time, m minute) *gpucost.Rollup {
	r := &gpucost.Rollup{Series: s, Start: start, Width: time.Minute, Samples: 1, Coverage: 1,
		UtilSum: m.util, UtilMax: m.util, UtilP50: m.util, UtilP95: m.util,
		MemMaxMiB: math.NaN(), MemP95MiB: math.NaN(), MemTotalMiB: math.NaN(), PowerMax: math.NaN(), TempMaxC: m.temp}
	if m.util < testIdleBelow {
		r.IdleMinutes, r.IdleMask = 1, 1
	}
	if !math.IsNaN(m.memPct) {
		r.MemTotalMiB = 80000
		r.MemMaxMiB, r.MemP95MiB = m.memPct*800, m.memPct*800
	}
	if !math.IsNaN(m.powerW) {
		r.PowerSamples, r.PowerSum, r.PowerMax = 1, m.powerW, m.powerW
	}
	if !math.IsNaN(m.smOcc) {
		r.ProfSamples, r.SMOccupancySum, r.SMActiveSum = 1, m.smOcc, m.smOcc
	}
	return r
}

// minuteRollups returns consecutive minute rollups of s from start; a NaN util marks a
// missing minute (a gap).
func minuteRollups(s *gpucost.Series, start time.Time, ms []minute) []*gpucost.Rollup {
	var out []*gpucost.Rollup
	for i, m := range ms {
		if math.IsNaN(m.util) {
			continue
		}
		out = append(out, minuteRollup(s, start.Add(time.Duration(i)*time.Minute), m))
	}
	return out
}

func utilMinutes(utils []float64) []minute {
	out := make([]minute, len(utils))
	for i, u := range utils {
		out[i] = utilMinute(u)
	}
	return out
}

func usd(s string) gpucost.Money {
	m, err := gpucost.ParseMoney(s, "USD")
	if err != nil {
		panic(err)
	}
	return m
}

// priceAll prices every series at p.
func priceAll(p gpucost.Money) func(*gpucost.Series) (gpucost.Money, bool) {
	return func(*gpucost.Series) (gpucost.Money, bool) { return p, true }
}
