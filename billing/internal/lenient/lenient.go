// Package lenient reads the amounts and dates that a strict bill reader refuses but whose meaning
// is not in doubt: "$10,000.00" (a currency symbol and thousands separators, as spreadsheets
// write money) and "2025/10/01" or "Wed, 01 Oct 2025 00:00:00 GMT" (dates in a form other than
// ISO 8601). gpucost import billing --lenient (billimport.Options.Lenient) turns it on; the
// readers count what they coerced in totals.Stats.Coerced, so the import says so. A value that
// could mean two things stays an error: "01/02/2025" may be the first of February or the second
// of January, "1.234,50" a thousand or one.
package lenient

import (
	"bytes"
	"errors"
	"strings"
	"time"

	"github.com/gpucost/gpucost/billing/internal/timetext"
)

// How the readers say what they did, in totals.Coercion.
const (
	AmountKind = "amounts"
	AmountHow  = "currency symbol and thousands separators removed"
	DateKind   = "dates"
	DateHow    = "YYYY/MM/DD and RFC 1123 forms read as ISO 8601 (UTC)"
)

// ErrAmbiguous is the error of a date written day and month as numbers in an order the text does
// not say: 01/02/2025.
var ErrAmbiguous = errors.New("NN/NN/YYYY is ambiguous, day/month or month/day: write YYYY-MM-DD")

// ErrNotAmount is the error of text that is no amount even leniently.
var ErrNotAmount = errors.New("not an amount")

// ErrNotDate is the error of text that is no date even leniently.
var ErrNotDate = errors.New("not a date")

// symbols are the currency signs Amount takes off, longest first, and the ISO 4217 codes each
// may stand for.
var symbols = []struct {
	sign  string
	codes []string
}{
	{"US$", []string{"USD"}},
	{"CA$", []string{"CAD"}},
	{"AU$", []string{"AUD"}},
	{"NZ$", []string{"NZD"}},
	{"HK$", []string{"HKD"}},
	{"S$", []string{"SGD"}},
	{"C$", []string{"CAD"}},
	{"A$", []string{"AUD"}},
	{"R$", []string{"BRL"}},
	{"$", []string{"USD", "CAD", "AUD", "NZD", "SGD", "HKD", "MXN", "TWD", "BRL"}},
	{"€", []string{"EUR"}},
	{"£", []string{"GBP"}},
	{"¥", []string{"JPY", "CNY"}},
	{"₹", []string{"INR"}},
	{"₩", []string{"KRW"}},
	{"CHF", []string{"CHF"}},
}

// Amount returns the plain decimal text of b, an amount written with a currency sign or code
// before or after it ("$10,000.00", "-€1,234.5", "USD 12.00", "12.00 EUR") and with or without
// thousands separators (commas between groups of three digits), appended to dst. sign is the
// sign or code written, "" if none. It fails on anything else: a comma that does not separate
// thousands ("1,5", "1.234,50") is ambiguous, and so is one comma without a decimal point
// ("1,234", "€1,234": 1.234 where the comma is the decimal mark) unless a sign of a currency
// written with a decimal point says otherwise ("$1,234").
func Amount(dst, b []byte) (out []byte, sign string, err error) {
	s := strings.TrimSpace(string(b))
	neg := false
	take := func() {
		if strings.HasPrefix(s, "-") {
			neg, s = !neg, strings.TrimSpace(s[1:])
		}
	}
	take()
	if s, sign = cutSign(s, strings.HasPrefix, strings.TrimPrefix); sign != "" {
		s = strings.TrimSpace(s)
		take()
	} else if s, sign = cutSign(s, strings.HasSuffix, strings.TrimSuffix); sign != "" {
		s = strings.TrimSpace(s)
	}
	out = dst
	if neg {
		out = append(out, '-')
	}
	whole, frac, dot := strings.Cut(s, ".")
	if whole == "" || strings.ContainsAny(frac, ",") {
		return dst, "", ErrNotAmount
	}
	groups := strings.Split(whole, ",")
	for i, g := range groups {
		if !allDigits(g) || g == "" || len(groups) > 1 && (i > 0 && len(g) != 3 || i == 0 && len(g) > 3) {
			return dst, "", ErrNotAmount
		}
		out = append(out, g...)
	}
	if dot {
		if frac == "" || !allDigits(frac) {
			return dst, "", ErrNotAmount
		}
		out = append(append(out, '.'), frac...)
	}
	if sign == "" && len(groups) == 1 {
		return dst, "", ErrNotAmount // nothing to coerce: the strict reader's answer stands
	}
	if len(groups) == 2 && !dot && (sign == "" || sign == "€" || sign == "EUR") {
		return dst, "", ErrNotAmount // "1,234" is 1.234 where the comma is the decimal mark
	}
	return out, sign, nil
}

func cutSign(s string, has func(s, p string) bool, trim func(s, p string) string) (string, string) {
	for _, c := range symbols {
		if has(s, c.sign) {
			return trim(s, c.sign), c.sign
		}
	}
	for _, c := range symbols {
		for _, code := range c.codes {
			if has(s, code) {
				return trim(s, code), code
			}
		}
	}
	return s, ""
}

func allDigits(s string) bool {
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Matches reports whether the sign or code Amount found may stand for the currency code cur: "$"
// for USD, CAD and the other dollars, "€" for EUR only. An empty sign matches any currency.
func Matches(sign, cur string) bool {
	if sign == "" || sign == cur {
		return true
	}
	for _, c := range symbols {
		if c.sign == sign {
			for _, code := range c.codes {
				if code == cur {
					return true
				}
			}
			return false
		}
	}
	return false
}

// rfc1123 are the layouts of RFC 1123 dates (HTTP and e-mail headers, some exports), which name
// the month and so cannot be misread.
var rfc1123 = []string{time.RFC1123, time.RFC1123Z, "Mon, 2 Jan 2006 15:04:05 MST", "Mon, 2 Jan 2006 15:04:05 -0700", "2 Jan 2006 15:04:05 MST", "02 Jan 2006"}

// Time parses a date in a form that is not ISO 8601 but says plainly which day it is:
// "2025/10/01" or "2025.10.01", with an optional time "00:00:00" (or "T00:00:00") and zone as
// ISO 8601 has them, or RFC 1123 ("Wed, 01 Oct 2025 00:00:00 GMT", the zone GMT, UTC or
// numeric). It returns the instant in UTC.
// A date written NN/NN/YYYY (or with dots or dashes) is ErrAmbiguous, whatever the numbers.
func Time(b []byte) (time.Time, error) {
	b = bytes.TrimSpace(b)
	if len(b) >= 10 && (b[4] == '/' || b[4] == '.') && b[7] == b[4] {
		iso := append([]byte(nil), b...)
		iso[4], iso[7] = '-', '-'
		if t, ok := timetext.ParseISO(iso); ok {
			return t, nil
		}
		return time.Time{}, ErrNotDate
	}
	if len(b) >= 10 && (b[2] == '/' || b[2] == '.' || b[2] == '-') && b[5] == b[2] && allDigits(string(b[0:2])+string(b[3:5])+string(b[6:10])) {
		return time.Time{}, ErrAmbiguous
	}
	s := string(b)
	for _, layout := range rfc1123 {
		if strings.HasSuffix(layout, "MST") && !strings.HasSuffix(s, " GMT") && !strings.HasSuffix(s, " UTC") {
			continue // a zone abbreviation other than GMT names no offset for sure (EST, IST …)
		}
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, ErrNotDate
}
