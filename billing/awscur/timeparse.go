package awscur

import (
	"time"

	"github.com/gpucost/gpucost/billing/internal/timetext"
)

var zeroTime time.Time

// parseTime parses the timestamps CUR files carry: "2024-09-01T00:00:00Z" (the CUR 2.0 format,
// YYYY-MM-DDTHH:mm:ssZ), with fractional seconds ("…00.000Z"), a space instead of the T or no
// zone ("2024-09-01 00:00:00", as Athena and spreadsheets write them), a ±hh:mm offset, or a bare
// date. A time without a zone is UTC, as every CUR time is.
func parseTime(b []byte) (time.Time, bool) { return timetext.ParseISO(b) }
