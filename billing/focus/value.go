package focus

import (
	"math"
	"strconv"
	"time"
	"unsafe"

	"github.com/gpucost/gpucost"
)

// transient returns b as a string without copying. The string is valid only while b is, so it is
// used for parsing and map look-ups and never kept.
func transient(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// isNull reports whether a text value is null: empty, or the word NULL in any case. FOCUS's
// NullHandling attribute has nullable columns "use NULL for absent values"; CSV has no null of its
// own, so exports write an empty field or the literal (the FOCUS sample data writes NULL
// unquoted, SQL clients and notebooks null or Null).
func isNull(b []byte) bool {
	return len(b) == 0 || len(b) == 4 && b[0]|0x20 == 'n' && b[1]|0x20 == 'u' && b[2]|0x20 == 'l' && b[3]|0x20 == 'l'
}

// isNullText is isNull for a string.
func isNullText(s string) bool { return isNull(unsafe.Slice(unsafe.StringData(s), len(s))) }

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// parseNanos parses a decimal amount into nano-units, as gpucost.ParseNanos does: FOCUS exports
// carry up to 15 decimal places, rounded half to even past the ninth.
func parseNanos(b []byte) (int64, error) { return gpucost.ParseNanos(b) }

// nanosFromFloat converts a double, as AWS's FOCUS Parquet stores costs, to nano-units: the
// amount is the shortest decimal that reads back as f (what the provider meant), rounded to nine
// places half to even. Multiplying by 10⁹ gives the same answer unless the product is within a
// few ulps of half a nano-unit, where it goes the slow, exact way.
func nanosFromFloat(f float64) (int64, error) {
	p := f * 1e9
	if math.Abs(p) < 1<<52 {
		fl := math.Floor(p)
		if d := p - fl - 0.5; math.Abs(d) > math.Abs(p)*0x1p-48+0x1p-60 {
			return int64(math.Round(p)), nil
		}
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, gpucost.Errorf(gpucost.EInvalid, "%v is not an amount of money", f)
	}
	return parseNanos([]byte(strconv.FormatFloat(f, 'f', -1, 64)))
}

// parseQuantity parses a quantity. Plain decimals of up to 15 significant digits, as FOCUS
// exports write, are exact as a ratio of two exactly representable numbers, whose quotient is
// correctly rounded (Clinger's fast path); the rest goes to strconv.
func parseQuantity(b []byte) (float64, bool) {
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		i, neg = 1, b[0] == '-'
	}
	var m uint64
	nd, frac := 0, 0
	for ; i < len(b); i++ {
		c := b[i] - '0'
		if c > 9 {
			break
		}
		m = m*10 + uint64(c)
		nd++
	}
	if i < len(b) && b[i] == '.' {
		for i++; i < len(b); i++ {
			c := b[i] - '0'
			if c > 9 {
				break
			}
			m = m*10 + uint64(c)
			nd++
			frac++
		}
	}
	if i != len(b) || nd == 0 || nd > 19 {
		return parseFloat(b)
	}
	for frac > 0 && m%10 == 0 {
		m /= 10
		frac--
	}
	if m > 1<<53 || frac > 22 {
		return parseFloat(b)
	}
	x := float64(m) / pow10f[frac]
	if neg {
		x = -x
	}
	return x, true
}

var pow10f = [23]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseFloat parses a quantity with strconv.
func parseFloat(b []byte) (float64, bool) {
	f, err := strconv.ParseFloat(transient(b), 64)
	return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
}

// parseTime parses a FOCUS date/time. The spec asks for ISO 8601 in UTC, "2024-09-01T00:00:00Z";
// exports also write a space for the T, no zone (read as UTC), fractions of a second, numeric
// offsets, a trailing " UTC" (BigQuery) or a bare date.
func parseTime(b []byte) (time.Time, bool) {
	if len(b) < 10 || b[4] != '-' || b[7] != '-' {
		return time.Time{}, false
	}
	y, ok1 := digits(b[0:4])
	mo, ok2 := digits(b[5:7])
	d, ok3 := digits(b[8:10])
	if !ok1 || !ok2 || !ok3 || mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) {
		return time.Time{}, false
	}
	sec := daysSinceEpoch(y, mo, d) * 86400
	rest := b[10:]
	if len(rest) == 0 {
		return time.Unix(sec, 0).UTC(), true
	}
	if len(rest) < 9 || (rest[0] != 'T' && rest[0] != ' ') || rest[3] != ':' || rest[6] != ':' {
		return time.Time{}, false
	}
	h, ok1 := digits(rest[1:3])
	mi, ok2 := digits(rest[4:6])
	s, ok3 := digits(rest[7:9])
	if !ok1 || !ok2 || !ok3 || h > 23 || mi > 59 || s > 59 {
		return time.Time{}, false
	}
	sec += int64(h*3600 + mi*60 + s)
	nsec, rest, ok := fraction(rest[9:])
	if !ok {
		return time.Time{}, false
	}
	off, ok := zoneOffset(rest)
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(sec-off, nsec).UTC(), true
}

// fraction parses an optional ".123" (or ",123", ISO 8601 allows both) and returns the
// nanoseconds and what follows.
func fraction(b []byte) (int64, []byte, bool) {
	if len(b) == 0 || b[0] != '.' && b[0] != ',' {
		return 0, b, true
	}
	var n int64
	i := 1
	for ; i < len(b) && b[i]-'0' <= 9; i++ {
		if i <= 9 {
			n = n*10 + int64(b[i]-'0')
		}
	}
	if i == 1 {
		return 0, b, false
	}
	for k := i; k <= 9; k++ {
		n *= 10
	}
	return n, b[i:], true
}

// zoneOffset parses "", "Z", " UTC", "+hh:mm", "+hhmm" or "+hh" into seconds east of UTC.
func zoneOffset(b []byte) (int64, bool) {
	switch s := transient(b); s {
	case "", "Z", "z", " UTC", "UTC", " Z", "+00:00", "+0000":
		return 0, true
	}
	if b[0] != '+' && b[0] != '-' {
		return 0, false
	}
	z := b[1:]
	var hh, mm int
	var ok1, ok2 bool
	switch {
	case len(z) == 2:
		hh, ok1 = digits(z)
		ok2 = true
	case len(z) == 5 && z[2] == ':':
		hh, ok1 = digits(z[0:2])
		mm, ok2 = digits(z[3:5])
	case len(z) == 4:
		hh, ok1 = digits(z[0:2])
		mm, ok2 = digits(z[2:4])
	}
	if !ok1 || !ok2 || hh > 23 || mm > 59 {
		return 0, false
	}
	off := int64(hh*3600 + mm*60)
	if b[0] == '-' {
		off = -off
	}
	return off, true
}

func digits(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		if c-'0' > 9 {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysSinceEpoch is days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (Howard
// Hinnant's days_from_civil).
func daysSinceEpoch(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y
	if era < 0 {
		era -= 399
	}
	era /= 400
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era*146097 + doe - 719468)
}

// describe shortens a bad value for a message.
func describe(b []byte) string {
	s := string(b)
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return strconv.Quote(s)
}

// hint says what a value of kind k should look like.
func hint(k kind) string {
	switch k {
	case kMoney:
		return "a decimal number such as 12.5 or -0.000123"
	case kFloat:
		return "a number such as 1.5"
	case kTime:
		return "an ISO 8601 date and time such as 2024-09-01T00:00:00Z"
	case kTags:
		return `a JSON object such as {"team": "ml"}`
	}
	return "a value"
}
