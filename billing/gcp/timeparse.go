package gcp

import (
	"math"
	"strconv"
	"time"
	"unsafe"

	"github.com/gpucost/gpucost/billing/internal/timetext"
)

// parseTime parses the timestamps an export carries: "2024-06-03 14:00:00 UTC", the form
// BigQuery writes TIMESTAMP values in CSV and JSON exports, with fractional seconds or a T and Z
// ("2024-06-03T14:00:00.000Z"), a ±hh:mm offset or no zone (UTC); or seconds since the epoch
// ("1717423200", "1.7174232E9"), as the BigQuery API returns them.
func parseTime(b []byte) (time.Time, bool) {
	if len(b) >= 10 && b[4] == '-' && b[7] == '-' {
		return timetext.ParseISO(b)
	}
	if len(b) == 0 || len(b) > 32 {
		return time.Time{}, false
	}
	f, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(b), len(b)), 64)
	if err != nil || math.IsNaN(f) || f < -62135596800 || f > 253402300799 { // years 1–9999
		return time.Time{}, false
	}
	sec := math.Floor(f)
	return time.Unix(int64(sec), int64(math.Round((f-sec)*1e6))*1e3).UTC(), true
}

// invoiceMonth turns invoice.month, "YYYYMM", into the start of the billing period: midnight
// of the month's first day in America/Los_Angeles, the zone Google invoices in (Google's FOCUS
// view: PARSE_TIMESTAMP("%Y%m", invoice.month, "America/Los_Angeles"); the FinOps Foundation's
// converter: assign_timezone America/Los_Angeles). The offset follows US daylight saving time,
// computed here rather than from a zone database so the binary needs none: since 2007 it runs
// from the second Sunday of March to the first Sunday of November, so the 1st of April to
// November is PDT (UTC−7) and of December to March PST (UTC−8); before 2007 (first Sunday of
// April to last Sunday of October) the 1st of May to October was PDT.
func invoiceMonth(s string) (time.Time, bool) {
	if len(s) == 7 && s[4] == '-' { // "2024-06"
		s = s[:4] + s[5:]
	}
	if len(s) != 6 {
		return time.Time{}, false
	}
	year, ok1 := timetext.Digits([]byte(s[:4]))
	month, ok2 := timetext.Digits([]byte(s[4:]))
	if !ok1 || !ok2 || month < 1 || month > 12 || year < 1 {
		return time.Time{}, false
	}
	offset := 8
	if year >= 2007 && month >= 4 && month <= 11 || year < 2007 && month >= 5 && month <= 10 {
		offset = 7
	}
	return time.Date(year, time.Month(month), 1, offset, 0, 0, 0, time.UTC), true
}
