package gcp

import (
	"math"
	"strconv"
	"time"
	"unsafe"
)

// parseTime parses the timestamps an export carries: "2024-06-03 14:00:00 UTC", the form
// BigQuery writes TIMESTAMP values in CSV and JSON exports, with fractional seconds or a T and Z
// ("2024-06-03T14:00:00.000Z"), a ±hh:mm offset or no zone (UTC); or seconds since the epoch
// ("1717423200", "1.7174232E9"), as the BigQuery API returns them.
func parseTime(b []byte) (time.Time, bool) {
	if len(b) >= 10 && b[4] == '-' && b[7] == '-' {
		return parseDate(b)
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

// parseDate parses "YYYY-MM-DD[( |T)hh:mm:ss[.fff]][ ][zone]".
func parseDate(b []byte) (time.Time, bool) {
	year, ok1 := digits(b[0:4])
	month, ok2 := digits(b[5:7])
	day, ok3 := digits(b[8:10])
	if !ok1 || !ok2 || !ok3 || month < 1 || month > 12 || day < 1 || day > daysIn(month, year) {
		return time.Time{}, false
	}
	rest := b[10:]
	var hour, minute, sec, nsec int
	if len(rest) > 0 && (rest[0] == 'T' || rest[0] == ' ') && len(rest) >= 9 && rest[3] == ':' {
		var ok bool
		if hour, minute, sec, nsec, rest, ok = clock(rest); !ok {
			return time.Time{}, false
		}
	}
	offset, ok := zone(rest)
	if !ok {
		return time.Time{}, false
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC)
	return t.Add(-time.Duration(offset) * time.Second), true
}

// clock parses "Thh:mm:ss[.fff]" (or with a space) and returns what follows.
func clock(b []byte) (hour, minute, sec, nsec int, rest []byte, ok bool) {
	if b[6] != ':' {
		return 0, 0, 0, 0, nil, false
	}
	h, ok1 := digits(b[1:3])
	m, ok2 := digits(b[4:6])
	s, ok3 := digits(b[7:9])
	if !ok1 || !ok2 || !ok3 || h > 23 || m > 59 || s > 59 {
		return 0, 0, 0, 0, nil, false
	}
	rest = b[9:]
	if len(rest) > 0 && rest[0] == '.' {
		i, scale := 1, 100_000_000
		for ; i < len(rest) && rest[i] >= '0' && rest[i] <= '9'; i++ {
			nsec += int(rest[i]-'0') * scale
			scale /= 10
		}
		if i == 1 {
			return 0, 0, 0, 0, nil, false
		}
		rest = rest[i:]
	}
	return h, m, s, nsec, rest, true
}

// zone parses "", "Z", "UTC" or " UTC", "+hh:mm", "-hhmm" or "+hh" and returns the offset east
// of UTC in seconds.
func zone(b []byte) (int, bool) {
	if len(b) > 0 && b[0] == ' ' {
		b = b[1:]
	}
	switch string(b) {
	case "", "Z", "z", "UTC":
		return 0, true
	}
	if b[0] != '+' && b[0] != '-' {
		return 0, false
	}
	sign := 1
	if b[0] == '-' {
		sign = -1
	}
	b = b[1:]
	var h, m int
	var ok bool
	switch {
	case len(b) == 2:
		h, ok = digits(b)
	case len(b) == 4:
		h, ok = digits(b[:2])
		if ok {
			m, ok = digits(b[2:])
		}
	case len(b) == 5 && b[2] == ':':
		h, ok = digits(b[:2])
		if ok {
			m, ok = digits(b[3:])
		}
	}
	if !ok || h > 23 || m > 59 {
		return 0, false
	}
	return sign * (h*3600 + m*60), true
}

func digits(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
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
	year, ok1 := digits([]byte(s[:4]))
	month, ok2 := digits([]byte(s[4:]))
	if !ok1 || !ok2 || month < 1 || month > 12 || year < 1 {
		return time.Time{}, false
	}
	offset := 8
	if year >= 2007 && month >= 4 && month <= 11 || year < 2007 && month >= 5 && month <= 10 {
		offset = 7
	}
	return time.Date(year, time.Month(month), 1, offset, 0, 0, 0, time.UTC), true
}
