package awscur

import (
	"time"
)

var zeroTime time.Time

// parseTime parses the timestamps CUR files carry: "2024-09-01T00:00:00Z" (the CUR 2.0 format,
// YYYY-MM-DDTHH:mm:ssZ), with fractional seconds ("…00.000Z"), a space instead of the T or no
// zone ("2024-09-01 00:00:00", as Athena and spreadsheets write them), a ±hh:mm offset, or a bare
// date. A time without a zone is UTC, as every CUR time is.
func parseTime(b []byte) (time.Time, bool) {
	if len(b) < 10 || b[4] != '-' || b[7] != '-' {
		return time.Time{}, false
	}
	year, ok1 := digits(b[0:4])
	month, ok2 := digits(b[5:7])
	day, ok3 := digits(b[8:10])
	if !ok1 || !ok2 || !ok3 || month < 1 || month > 12 || day < 1 || day > daysIn(month, year) {
		return time.Time{}, false
	}
	rest := b[10:]
	var hour, minute, sec, nsec int
	if len(rest) > 0 {
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
	if len(b) < 9 || (b[0] != 'T' && b[0] != ' ') || b[3] != ':' || b[6] != ':' {
		return 0, 0, 0, 0, nil, false
	}
	h, ok1 := digits(b[1:3])
	m, ok2 := digits(b[4:6])
	s, ok3 := digits(b[7:9])
	if !ok1 || !ok2 || !ok3 || h > 23 || m > 59 || s > 60 {
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

// zone parses "", "Z", "UTC", "+hh:mm", "-hhmm" or "+hh" and returns the offset east of UTC in
// seconds.
func zone(b []byte) (int, bool) {
	switch string(b) {
	case "", "Z", "z", " UTC", "UTC":
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
