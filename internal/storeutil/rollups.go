package storeutil

import (
	"time"

	"github.com/gpucost/gpucost"
)

const (
	// MaxStartHours bounds rollup starts: they are less than this many hours after 1970 (the
	// SQLite store's row keys hold 24 bits of them; the PostgreSQL store keeps the same range).
	MaxStartHours = 1 << 24
	// HistBins is the most utilization histogram bins a stored rollup holds (0–100 %).
	HistBins = gpucost.HistBins
)

// CheckRollups returns an EInvalid naming the first rollup a store cannot hold: one without a
// series, of a width other than a minute or an hour, not starting on its width's boundary,
// starting before 1970 or MaxStartHours after, or with more than HistBins histogram bins.
func CheckRollups(rs []gpucost.Rollup) error {
	for i := range rs {
		r := &rs[i]
		switch {
		case r.Series == nil:
			return gpucost.Errorf(gpucost.EInvalid, "rollup %d (%s): no series", i, r.Start)
		case r.Width != time.Minute && r.Width != time.Hour:
			return gpucost.Errorf(gpucost.EInvalid, "rollup %d of %s: width %s; only minute and hour rollups are stored",
				i, r.Series.GPU.UUID, r.Width)
		case !r.Start.Truncate(r.Width).Equal(r.Start):
			return gpucost.Errorf(gpucost.EInvalid, "rollup %d of %s: start %s is not on a %s boundary",
				i, r.Series.GPU.UUID, r.Start, r.Width)
		case r.Start.Unix() < 0 || r.Start.Unix()/3600 >= MaxStartHours:
			return gpucost.Errorf(gpucost.EInvalid, "rollup %d of %s: start %s is outside 1970–3800",
				i, r.Series.GPU.UUID, r.Start)
		case len(r.UtilHist) > HistBins:
			return gpucost.Errorf(gpucost.EInvalid, "rollup %d of %s: %d histogram bins, at most %d",
				i, r.Series.GPU.UUID, len(r.UtilHist), HistBins)
		}
	}
	return nil
}
