package query

import (
	"time"

	"github.com/gpucost/gpucost/fleet"
)

// BillWindow is BillPeriod of the window w with lookback more before it (the days a baseline
// reads). A month or quarter (w.Billed) stays Billed, its lines read by billing period, unless
// a lookback reads the days before it.
func BillWindow(w fleet.Period, lookback time.Duration) (fleet.Period, error) {
	p, err := BillPeriod(w.Start.Add(-lookback), w.End)
	p.Billed = w.Billed && lookback == 0
	return p, err
}
