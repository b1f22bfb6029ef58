package budget

import (
	"math"
	"slices"
	"time"

	"github.com/gpucost/gpucost"
)

// Forecast methods.
const (
	MethodSeasonal = "weekday-seasonal" // per-weekday factors × recent level, from 2 to 8 weeks of history
	MethodRunRate  = "run-rate"         // the mean day of less than two weeks of history
	MethodNone     = "none"             // no history: nothing is projected
)

// Forecast history: at most 8 weeks are read, at least 2 are needed for weekday factors, and the
// level is the deseasonalised mean of the last 2 weeks. The band needs a week of days: each
// weekday once in the spread.
const (
	historyDays  = 56
	seasonalDays = 14
	levelDays    = 14
	trendWeeks   = 4 // weeks of history a trend is fitted from, at least
	MinBandDays  = 7 // days of history the p10–p90 band is read from, at least
)

// Projection is a period's forecast spend: what was spent up to the last complete day with
// cost, what the days after it are predicted to cost, and a p10–p90 band around the total.
type Projection struct {
	Method      string        `json:"method"`
	Through     time.Time     `json:"through"`   // the last day counted as spent; zero with no history
	Spent       gpucost.Money `json:"spent"`     // in the period up to Through
	Predicted   gpucost.Money `json:"predicted"` // the period's days after Through
	Projected   gpucost.Money `json:"projected"` // Spent + Predicted
	Low         gpucost.Money `json:"low"`
	High        gpucost.Money `json:"high"`         // the p10 and p90 of Projected; zero without a band (see Banded)
	Level       gpucost.Money `json:"level"`        // a day's deseasonalised cost
	Factors     [7]float64    `json:"factors"`      // by time.Weekday; 1 is the average day
	Trend       float64       `json:"trend"`        // the level's change per day, relative to Level; 0 without 4 weeks of history
	HistoryDays int           `json:"history_days"` // days of history the forecast read
	BandDays    int           `json:"band_days"`    // days of history the band was read from; 0: not enough data for one
	Days        []DayCost     `json:"days"`         // the predicted days
}

// Banded reports whether p has a p10–p90 band: it read at least MinBandDays of history, or no
// day of the period is left to predict.
func (p Projection) Banded() bool { return p.BandDays > 0 }

// Forecast projects the spend of the period [periodStart, periodEnd) from daily cost. Days on or
// after today are not complete and are left out; so are the days after the last one with cost,
// which a bill that arrives a day or two late has not filled yet: those are predicted. With two
// weeks of history or more, each day is predicted as the recent level times its weekday's
// factor, both from up to eight weeks, with the level following the trend of the weekly means
// when there are four weeks or more; with less than two weeks, as the mean day. The band is the
// day-to-day spread of the history (see Band). Totals are exact sums of Money; floats scale
// only factors and the band.
func Forecast(daily []DayCost, periodStart, periodEnd, today time.Time) Projection {
	byDay := map[int64]int64{}
	first, last := int64(math.MaxInt64), int64(math.MinInt64)
	cur := "USD"
	for _, d := range daily {
		k := unixDay(d.Day)
		if k >= unixDay(today) {
			continue
		}
		byDay[k] += d.Cost.Nanos
		cur = currencyOf(d.Cost)
		if d.Cost.Nanos != 0 {
			first, last = min(first, k), max(last, k)
		}
	}
	start, end := unixDay(periodStart), unixDay(periodEnd)
	zero := gpucost.Money{Currency: cur}
	p := Projection{Method: MethodNone, Spent: zero, Predicted: zero, Level: zero}
	if first > last {
		p.Projected, p.Low, p.High = zero, zero, zero
		return p
	}
	p.Through = time.Unix(last*86400, 0).UTC()
	for k := start; k <= last && k < end; k++ {
		p.Spent.Nanos += byDay[k]
	}
	from := max(first, last-historyDays+1)
	hist := make([]float64, last-from+1)
	for i := range hist {
		hist[i] = float64(byDay[from+int64(i)])
	}
	p.HistoryDays = len(hist)
	firstWeekday := time.Unix(from*86400, 0).UTC().Weekday()
	p.Level = gpucost.Money{Nanos: int64(math.Round(p.fit(hist, firstWeekday))), Currency: cur}
	for k := max(start, last+1); k < end; k++ {
		day := time.Unix(k*86400, 0).UTC()
		// The level is the mean of the last two weeks, centred 6.5 days before the last one.
		c := p.Level.MulFloat(p.Factors[day.Weekday()] * max(0, 1+p.Trend*(float64(k-last)+6.5)))
		p.Days = append(p.Days, DayCost{Day: day, Cost: c})
		p.Predicted.Nanos += c.Nanos
	}
	p.Projected = p.Spent.Add(p.Predicted)
	p.Low, p.High = zero, zero
	if lo, hi, ok := Band(hist, len(p.Days)); ok {
		p.BandDays = len(hist)
		p.Low = maxMoney(p.Spent, p.Projected.Add(gpucost.Money{Nanos: lo, Currency: cur}))
		p.High = p.Projected.Add(gpucost.Money{Nanos: hi, Currency: cur})
	}
	return p
}

// Band returns the p10 and p90 of the error of n predicted days' total, in nanos, from the
// day-to-day spread of hist (daily cost in nanos): the empirical p10 and p90 of a day's cost
// less the median day (linear interpolation between order statistics), times √n, as if the
// days erred independently. The median, not the mean, so that lo ≤ 0 ≤ hi: one partial day
// at the start of a bill drags the mean below every whole day. It needs MinBandDays of hist;
// with n = 0 the band is zero wide. The spread counts the weekday pattern that the seasonal
// forecast already predicts, so the band is conservative: wide where a week swings, a single
// value only when the middle 80% of days cost the same. See docs/architecture.md "Forecast band".
func Band(hist []float64, n int) (lo, hi int64, ok bool) {
	if n == 0 {
		return 0, 0, len(hist) > 0
	}
	if len(hist) < MinBandDays {
		return 0, 0, false
	}
	dev := slices.Clone(hist)
	slices.Sort(dev)
	m := quantile(dev, 0.5)
	for i := range dev {
		dev[i] -= m
	}
	scale := math.Sqrt(float64(n))
	return int64(math.Round(scale * quantile(dev, 0.1))), int64(math.Round(scale * quantile(dev, 0.9))), true
}

// quantile returns the q-quantile of sorted (not empty), interpolating linearly between the
// order statistics at (len−1)·q.
func quantile(sorted []float64, q float64) float64 {
	h := float64(len(sorted)-1) * q
	i := int(h)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-float64(i))*(sorted[i+1]-sorted[i])
}

// fit sets the method, weekday factors and trend from hist, the daily cost in nanos from a
// day of weekday w0 on, and returns the daily level.
func (p *Projection) fit(hist []float64, w0 time.Weekday) (level float64) {
	for i := range p.Factors {
		p.Factors[i] = 1
	}
	if len(hist) < seasonalDays {
		p.Method = MethodRunRate
		return mean(hist)
	}
	p.Method = MethodSeasonal
	// Whole weeks ending at the last day, so each weekday counts as often as every other.
	weeks := hist[len(hist)%7:]
	w0 = (w0 + time.Weekday(len(hist)%7)) % 7
	if mean(weeks) <= 0 {
		return 0
	}
	// Each day against its own week's mean, so growth across the weeks does not bias the
	// factors of the weekdays late in a week.
	var sums [7]float64
	var counts [7]int
	for j := 0; j < len(weeks); j += 7 {
		wm := mean(weeks[j : j+7])
		if wm <= 0 {
			continue
		}
		for i, c := range weeks[j : j+7] {
			sums[(int(w0)+j+i)%7] += c / wm
			counts[(int(w0)+j+i)%7]++
		}
	}
	for wd := range sums {
		if counts[wd] > 0 {
			p.Factors[wd] = sums[wd] / float64(counts[wd])
		}
	}
	// The level: the last two weeks' mean, deseasonalised by dividing by the weeks' mean factor
	// (1 over whole weeks), so a weekday with no spend does not divide by zero.
	recent := weeks[len(weeks)-levelDays:]
	level = mean(recent)
	n := len(weeks) / 7
	if n >= trendWeeks && level > 0 {
		p.Trend = weeklySlope(weeks) / 7 / level
	}
	return level
}

// weeklySlope returns the least-squares slope of the weekly means of days (whole weeks) per
// week.
func weeklySlope(days []float64) (slope float64) {
	n := len(days) / 7
	var sx, sy, sxx, sxy float64
	for j := range n {
		x, y := float64(j), mean(days[7*j:7*j+7])
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	d := float64(n)*sxx - sx*sx
	if d == 0 || n < 3 {
		return 0
	}
	return (float64(n)*sxy - sx*sy) / d
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
