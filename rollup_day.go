package gpucost

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"time"
)

// DayRollup is one series' UTC day of hour rollups, kept by the stores beside the hours they
// come from (docs/architecture.md "Speed of the reports"). It holds what the telemetry reports
// read of an hour and no more: each hour's coverage, idle minutes, sample counts and sums, kept
// hour by hour so that a reader adds the same floats in the same order as it would reading the
// hours; and the day's maxima and utilisation histogram, whose sums and maxima do not depend on
// order. The hours' quantiles (UtilP50, UtilP95) are not kept.
type DayRollup struct {
	Series *Series
	Day    time.Time // UTC midnight
	Hours  []DayHour // the hours the day holds, in time order

	UtilMax, MemMaxMiB, MemP95MiB, MemTotalMiB float64 // the hours' maxima; NaN when none has one
	PowerMax, TempMaxC                         float64
	UtilHist                                   [HistBins]uint64 // the hours' histograms added
}

// DayHour is what a DayRollup keeps of one hour rollup.
type DayHour struct {
	Hour     int    // 0–23, UTC
	Coverage uint64 // as Rollup.Coverage
	IdleMask uint64 // as Rollup.IdleMask

	Samples, PowerSamples, ProfSamples int

	UtilSum, PowerSum, SMActiveSum, SMOccupancySum, GrEngineActiveSum float64
}

// NewDayRollup returns the day of hours: hour rollups of one series and one UTC day, in time
// order, at most one an hour. It returns an error naming the first rollup that breaks this.
func NewDayRollup(hours []Rollup) (DayRollup, error) {
	if len(hours) == 0 {
		return DayRollup{}, fmt.Errorf("day rollup of no hours: give at least one hour rollup")
	}
	first := hours[0]
	day := first.Start.UTC().Truncate(24 * time.Hour)
	d := DayRollup{Series: first.Series, Day: day, Hours: make([]DayHour, 0, len(hours)),
		UtilMax: math.NaN(), MemMaxMiB: math.NaN(), MemP95MiB: math.NaN(), MemTotalMiB: math.NaN(),
		PowerMax: math.NaN(), TempMaxC: math.NaN()}
	last := -1
	for i := range hours {
		r := &hours[i]
		h := int(r.Start.Sub(day) / time.Hour)
		switch {
		case r.Width != time.Hour:
			return DayRollup{}, fmt.Errorf("day rollup: rollup %d is %v wide: give hour rollups only", i, r.Width)
		case r.Series != first.Series:
			return DayRollup{}, fmt.Errorf("day rollup: rollup %d is of another series than rollup 0: give one series' hours", i)
		case r.Start.Before(day) || h >= 24 || !r.Start.Equal(day.Add(time.Duration(h)*time.Hour)):
			return DayRollup{}, fmt.Errorf("day rollup: rollup %d starts at %v, not on an hour of %s", i, r.Start, day.Format(time.DateOnly))
		case h <= last:
			return DayRollup{}, fmt.Errorf("day rollup: rollup %d (hour %d) comes after hour %d: give the hours in time order, one each", i, h, last)
		}
		last = h
		d.add(h, r)
	}
	return d, nil
}

// add keeps what the day needs of r, its hour h.
func (d *DayRollup) add(h int, r *Rollup) {
	d.Hours = append(d.Hours, DayHour{Hour: h, Coverage: r.Coverage, IdleMask: r.IdleMask,
		Samples: r.Samples, PowerSamples: r.PowerSamples, ProfSamples: r.ProfSamples,
		UtilSum: r.UtilSum, PowerSum: r.PowerSum, SMActiveSum: r.SMActiveSum,
		SMOccupancySum: r.SMOccupancySum, GrEngineActiveSum: r.GrEngineActiveSum})
	d.UtilMax = maxKnown(d.UtilMax, r.UtilMax)
	d.MemMaxMiB = maxKnown(d.MemMaxMiB, r.MemMaxMiB)
	d.MemP95MiB = maxKnown(d.MemP95MiB, r.MemP95MiB)
	d.MemTotalMiB = maxKnown(d.MemTotalMiB, r.MemTotalMiB)
	d.PowerMax = maxKnown(d.PowerMax, r.PowerMax)
	d.TempMaxC = maxKnown(d.TempMaxC, r.TempMaxC)
	d.addHist(r.UtilHist, r.Samples)
}

// addHist adds an hour's histogram as the reports merge one (analyze's groupAcc.addHist): four
// bins at a time, stopping once it has met the hour's n samples, so that the day's histogram is
// the one its hours add up to there even for an hour whose bins hold more than its samples.
func (d *DayRollup) addHist(h []uint32, n int) {
	h = h[:min(len(h), HistBins)]
	left := int64(n)
	i := 0
	for ; i+4 <= len(h); i += 4 {
		d.UtilHist[i] += uint64(h[i])
		d.UtilHist[i+1] += uint64(h[i+1])
		d.UtilHist[i+2] += uint64(h[i+2])
		d.UtilHist[i+3] += uint64(h[i+3])
		if left -= int64(h[i]) + int64(h[i+1]) + int64(h[i+2]) + int64(h[i+3]); left <= 0 {
			return
		}
	}
	for ; i < len(h); i++ {
		d.UtilHist[i] += uint64(h[i])
	}
}

// Covered returns how many minutes of the day held samples.
func (d *DayRollup) Covered() int {
	n := 0
	for _, h := range d.Hours {
		n += bits.OnesCount64(h.Coverage)
	}
	return n
}

// Samples returns the day's samples.
func (d *DayRollup) Samples() int {
	n := 0
	for _, h := range d.Hours {
		n += h.Samples
	}
	return n
}

// maxKnown returns the larger of m and v, ignoring a NaN v; m may be NaN, meaning none yet. It
// is the rule the reports take maxima by, so a day's maximum is the one its hours give.
func maxKnown(m, v float64) float64 {
	if v > m || (m != m && v == v) {
		return v
	}
	return m
}

// DayStore keeps a DayRollup beside each series' day of hour rollups, written in the same
// transaction as the hours, so a report reads one row where it would read 24 hours.
type DayStore interface {
	// ScanDays calls fn for each stored day of a series matching f whose whole day lies in
	// [f.From, f.To) (a zero bound is open): series by series in the order ScanRollups gives
	// them, and in time order within a series. The *DayRollup is reused and valid only during
	// the call; its Series is not reused and may be kept.
	ScanDays(ctx context.Context, f RollupFilter, fn func(*DayRollup) error) error

	// ScanHoursByDay calls hour for each stored hour rollup of a series matching f that starts
	// in [f.From, f.To), as ScanRollups does, except that each stored day lying wholly in both
	// f and [wholeFrom, wholeTo) comes as one call of day in place of its hours: series by
	// series in the order of ScanRollups, and in time order within a series. The *Rollup and
	// *DayRollup are reused and valid only during the call; their Series may be kept.
	ScanHoursByDay(ctx context.Context, f RollupFilter, wholeFrom, wholeTo time.Time,
		hour func(*Rollup) error, day func(*DayRollup) error) error
}
