package azure

import (
	"time"
)

// parseDate parses the dates cost details files carry. Exports and the Cost Details API write
// ISO dates ("2024-09-01", or with a time: "2024-09-01T00:00:00.0000000Z"); files downloaded from
// the portal and the older usage details write the US form MM/DD/YYYY ("09/01/2024", "9/1/2024",
// with or without "12:00:00 AM"), the form the FinOps Foundation's Azure converter parses
// (focus_converters, conversion_configs/azure/D003_S001.yaml: "%m/%d/%Y"). A date without a zone
// is UTC, as every cost details date is. A day/month/year date is refused rather than guessed.
func parseDate(b []byte) (time.Time, bool) {
	if len(b) >= 10 && b[4] == '-' {
		return parseISO(b)
	}
	return parseUS(b)
}

// parseISO parses YYYY-MM-DD, optionally followed by "Thh:mm:ss[.fff…]" (or a space) and a zone.
func parseISO(b []byte) (time.Time, bool) {
	if len(b) < 10 || b[4] != '-' || b[7] != '-' {
		return time.Time{}, false
	}
	year, ok1 := digits(b[0:4])
	month, ok2 := digits(b[5:7])
	day, ok3 := digits(b[8:10])
	if !ok1 || !ok2 || !ok3 || !validDate(year, month, day) {
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

// parseUS parses M/D/YYYY with one- or two-digit month and day, optionally followed by a
// 24-hour "hh:mm:ss" or a 12-hour "h:mm:ss AM".
func parseUS(b []byte) (time.Time, bool) {
	month, i, ok1 := number(b, 0, 2)
	if !ok1 || i >= len(b) || b[i] != '/' {
		return time.Time{}, false
	}
	day, j, ok2 := number(b, i+1, 2)
	if !ok2 || j >= len(b) || b[j] != '/' || len(b) < j+5 {
		return time.Time{}, false
	}
	year, ok3 := digits(b[j+1 : j+5])
	if !ok3 || !validDate(year, month, day) {
		return time.Time{}, false
	}
	t := time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC)
	rest := b[j+5:]
	if len(rest) == 0 {
		return t, true
	}
	if rest[0] != ' ' {
		return time.Time{}, false
	}
	h, k, ok := number(rest, 1, 2)
	if !ok || len(rest) < k+6 || rest[k] != ':' || rest[k+3] != ':' {
		return time.Time{}, false
	}
	m, ok4 := digits(rest[k+1 : k+3])
	s, ok5 := digits(rest[k+4 : k+6])
	if !ok4 || !ok5 || m > 59 || s > 59 {
		return time.Time{}, false
	}
	switch string(rest[k+6:]) {
	case "":
		if h > 23 {
			return time.Time{}, false
		}
	case " AM", " PM":
		if h < 1 || h > 12 {
			return time.Time{}, false
		}
		h %= 12
		if rest[k+7] == 'P' {
			h += 12
		}
	default:
		return time.Time{}, false
	}
	return t.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(s)*time.Second), true
}

// number reads one to max digits at b[i:] and returns the value and the index after them.
func number(b []byte, i, max int) (int, int, bool) {
	n, j := 0, i
	for ; j < len(b) && j-i < max && b[j] >= '0' && b[j] <= '9'; j++ {
		n = n*10 + int(b[j]-'0')
	}
	return n, j, j > i
}

// clock parses "Thh:mm:ss[.fff]" (or with a space) and returns what follows.
func clock(b []byte) (hour, minute, sec, nsec int, rest []byte, ok bool) {
	if len(b) < 9 || (b[0] != 'T' && b[0] != ' ') || b[3] != ':' || b[6] != ':' {
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
	return n, len(b) > 0
}

func validDate(year, month, day int) bool {
	return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysIn(month, year)
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
