package budget

import (
	"math"
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
// level is the deseasonalised mean of the last 2 weeks.
const (
	historyDays  = 56
	seasonalDays = 14
	levelDays    = 14
	trendWeeks   = 4                  // weeks of history a trend is fitted from, at least
	z90          = 1.2815515655446004 // the standard normal's 90th percentile
)

// Projection is a period's forecast spend: what was spent up to the last complete day with
// cost, what the days after it are predicted to cost, and a p10–p90 band around the total.
type Projection struct {
	Method      string
	Through     time.Time     // the last day counted as spent; zero with no history
	Spent       gpucost.Money // in the period up to Through
	Predicted   gpucost.Money // the period's days after Through
	Projected   gpucost.Money // Spent + Predicted
	Low, High   gpucost.Money // the p10 and p90 of Projected
	Level       gpucost.Money // a day's deseasonalised cost
	Factors     [7]float64    // by time.Weekday; 1 is the average day
	Trend       float64       // the level's change per day, relative to Level; 0 without 4 weeks of history
	HistoryDays int           // days of history the forecast read
	Days        []DayCost     // the predicted days
}

// Forecast projects the spend of the period [periodStart, periodEnd) from daily cost. Days on or
// after today are not complete and are left out; so are the days after the last one with cost,
// which a bill that arrives a day or two late has not filled yet: those are predicted. With two
// weeks of history or more, each day is predicted as the recent level times its weekday's
// factor, both from up to eight weeks, with the level following the trend of the weekly means
// when there are four weeks or more; with less than two weeks, as the mean day. The band comes from the
// relative residuals of the history around that model, as if each day erred independently,
// plus the error of the level itself. Totals are exact sums of Money; floats scale only factors.
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
	level, sigma, paramSD := p.fit(hist, firstWeekday)
	p.Level = gpucost.Money{Nanos: int64(math.Round(level)), Currency: cur}
	var variance, trendSpread float64
	for k := max(start, last+1); k < end; k++ {
		day := time.Unix(k*86400, 0).UTC()
		// The level is the mean of the last two weeks, centred 6.5 days before the last one.
		c := p.Level.MulFloat(p.Factors[day.Weekday()] * max(0, 1+p.Trend*(float64(k-last)+6.5)))
		p.Days = append(p.Days, DayCost{Day: day, Cost: c})
		p.Predicted.Nanos += c.Nanos
		variance += math.Pow(float64(c.Nanos)*sigma, 2)
		trendSpread += float64(c.Nanos) * (float64(k-last) + 6.5)
	}
	p.Projected = p.Spent.Add(p.Predicted)
	if pred := float64(p.Predicted.Nanos); pred > 0 {
		// The level's and factors' errors, and the trend's, move every predicted day together.
		variance += math.Pow(pred*paramSD[0], 2) + math.Pow(trendSpread*paramSD[1], 2)
		rel := z90 * math.Sqrt(variance) / pred
		p.Low = p.Spent.Add(p.Predicted.MulFloat(max(0, 1-rel)))
		p.High = p.Spent.Add(p.Predicted.MulFloat(1 + rel))
	} else {
		p.Low, p.High = p.Projected, p.Projected
	}
	return p
}

// fit sets the method and weekday factors from hist, the daily cost in nanos from a day of
// weekday w0 on, and returns the daily level, the relative residuals' standard deviation and
// the relative standard errors of the level (with the factors) and of the trend per day.
func (p *Projection) fit(hist []float64, w0 time.Weekday) (level, sigma float64, paramSD [2]float64) {
	for i := range p.Factors {
		p.Factors[i] = 1
	}
	if len(hist) < seasonalDays {
		p.Method = MethodRunRate
		level = mean(hist)
		sigma = relSD(hist, func(int) float64 { return level })
		return level, sigma, [2]float64{sigma / math.Sqrt(float64(len(hist))), 0}
	}
	p.Method = MethodSeasonal
	// Whole weeks ending at the last day, so each weekday counts as often as every other.
	weeks := hist[len(hist)%7:]
	w0 = (w0 + time.Weekday(len(hist)%7)) % 7
	if mean(weeks) <= 0 {
		return 0, 0, paramSD
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
	factor := func(i int) float64 { return p.Factors[(int(w0)+i)%7] }
	// The level: the last two weeks' mean, deseasonalised by dividing by the weeks' mean factor
	// (1 over whole weeks), so a weekday with no spend does not divide by zero.
	recent := weeks[len(weeks)-levelDays:]
	level = mean(recent)
	n := len(weeks) / 7
	if n >= trendWeeks && level > 0 {
		slope, se := weeklySlope(weeks)
		p.Trend, paramSD[1] = slope/7/level, se/7/level
	}
	// Residuals around each week's own level, so a trend across weeks is not counted as noise.
	sigma = relSD(weeks, func(i int) float64 { return mean(weeks[i/7*7:i/7*7+7]) * factor(i) })
	paramSD[0] = sigma * math.Sqrt(1/float64(levelDays)+1/float64(n))
	return level, sigma, paramSD
}

// weeklySlope returns the least-squares slope of the weekly means of days (whole weeks) per
// week, and its standard error.
func weeklySlope(days []float64) (slope, se float64) {
	n := len(days) / 7
	ys := make([]float64, n)
	var sx, sy, sxx, sxy float64
	for j := range n {
		x, y := float64(j), mean(days[7*j:7*j+7])
		ys[j] = y
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	d := float64(n)*sxx - sx*sx
	if d == 0 || n < 3 {
		return 0, 0
	}
	slope = (float64(n)*sxy - sx*sy) / d
	icept := (sy - slope*sx) / float64(n)
	var ss float64
	for j, y := range ys {
		r := y - icept - slope*float64(j)
		ss += r * r
	}
	return slope, math.Sqrt(ss/float64(n-2)) / math.Sqrt(sxx-sx*sx/float64(n))
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

// relSD is the standard deviation of xs[i] − fit(i) relative to the mean of the fits.
func relSD(xs []float64, fit func(i int) float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	var ss, sf float64
	for i, x := range xs {
		f := fit(i)
		ss += (x - f) * (x - f)
		sf += f
	}
	mf := sf / float64(len(xs))
	if mf <= 0 {
		return 0
	}
	return math.Sqrt(ss/float64(len(xs)-1)) / mf
}
