package azure

import (
	"time"

	"github.com/gpucost/gpucost/billing/internal/timetext"
)

// parseDate parses the dates cost details files carry. Exports and the Cost Details API write
// ISO dates ("2024-09-01", or with a time: "2024-09-01T00:00:00.0000000Z"); files downloaded from
// the portal and the older usage details write the US form MM/DD/YYYY ("09/01/2024", "9/1/2024",
// with or without "12:00:00 AM"), the form the FinOps Foundation's Azure converter parses
// (focus_converters, conversion_configs/azure/D003_S001.yaml: "%m/%d/%Y"). A date without a zone
// is UTC, as every cost details date is. A day/month/year date is refused rather than guessed.
func parseDate(b []byte) (time.Time, bool) {
	if len(b) >= 10 && b[4] == '-' {
		return timetext.ParseISO(b)
	}
	return parseUS(b)
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
	year, ok3 := timetext.Digits(b[j+1 : j+5])
	if !ok3 || !timetext.ValidDate(year, month, day) {
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
	m, ok4 := timetext.Digits(rest[k+1 : k+3])
	s, ok5 := timetext.Digits(rest[k+4 : k+6])
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
