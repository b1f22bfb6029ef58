package billing

import (
	"time"

	"github.com/gpucost/gpucost"
)

// ParseGrain returns the Aggregator grain import billing's --grain names: Day for "day", an
// hour for "hour".
func ParseGrain(s string) (time.Duration, error) {
	switch s {
	case "day":
		return Day, nil
	case "hour":
		return time.Hour, nil
	}
	return 0, gpucost.Errorf(gpucost.EInvalid, "--grain %q: use day or hour", s)
}
