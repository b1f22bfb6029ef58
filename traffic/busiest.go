package traffic

import "time"

// Busiest returns the trace's highest rate and when its interval starts: the first such
// interval, and the trace's start with a rate of 0 when no interval has traffic.
func (t *Trace) Busiest() (float64, time.Time) {
	peak, at := 0.0, 0
	for i, r := range t.Rates {
		if r > peak {
			peak, at = r, i
		}
	}
	return peak, t.Start.Add(time.Duration(at) * t.Step)
}
