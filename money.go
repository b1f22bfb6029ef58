package gpucost

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Money is an exact decimal amount in one currency. The amount is held as an integer count of
// nano-units (10⁻⁹ of the currency unit), so sums are exact; float64 is never used to add money.
// The range is ±9.2 billion units, ample for any GPU bill.
type Money struct {
	Nanos    int64
	Currency string // ISO 4217 code, "USD" when empty
}

// nanosPerUnit is the number of Nanos in one currency unit.
const nanosPerUnit = 1_000_000_000

// USD returns an amount of US dollars given in nano-dollars.
func USD(nanos int64) Money { return Money{Nanos: nanos, Currency: "USD"} }

// ParseMoney parses a plain decimal such as "12.5", "-0.000123" or "1e-3" in the given currency.
// Digits beyond the ninth decimal place are rounded half to even.
func ParseMoney(s, currency string) (Money, error) {
	n, err := ParseNanos(s)
	if err != nil {
		return Money{}, err
	}
	return Money{Nanos: n, Currency: currency}, nil
}

func parseNanos(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if n, ok := plainNanos(t); ok {
		return n, nil
	}
	if t == "" {
		return 0, Errorf(EInvalid, "%q is not a decimal number", s)
	}
	if i := strings.IndexAny(t, "eE"); i >= 0 {
		// Refuse exponents no amount of money has before big.Rat spends minutes on them.
		if exp, err := strconv.Atoi(strings.TrimPrefix(t[i+1:], "+")); err != nil || exp > 30 || exp < -60 {
			return 0, Errorf(EInvalid, "%q is not a decimal number in range for money", s)
		}
	}
	return ratNanos(s, t)
}

// ratNanos parses t, the trimmed s, exactly with big.Rat and rounds it half to even to nano-units.
func ratNanos(s, t string) (int64, error) {
	r, ok := new(big.Rat).SetString(t)
	if !ok {
		return 0, Errorf(EInvalid, "%q is not a decimal number", s)
	}
	r.Mul(r, big.NewRat(nanosPerUnit, 1))
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	// Round half to even on the remainder.
	twice := new(big.Int).Mul(new(big.Int).Abs(m), big.NewInt(2))
	if c := twice.Cmp(r.Denom()); c > 0 || (c == 0 && q.Bit(0) == 1) {
		if r.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	if !q.IsInt64() {
		return 0, Errorf(EInvalid, "%q is out of range for an amount of money", s)
	}
	return q.Int64(), nil
}

// ParseNanos parses a plain decimal amount, such as "12.5" or "-0.000000123456789012", into
// nano-units, rounding digits past the ninth decimal place half to even. It takes a string or a
// byte slice, so readers parse cells without allocating; the common forms (a sign, at most nine
// whole digits, any number of decimals) take an integer fast path and anything else, such as an
// exponent, goes through big.Rat.
func ParseNanos[T string | []byte](b T) (int64, error) {
	if n, ok := plainNanos(b); ok {
		return n, nil
	}
	return parseNanos(string(b))
}

// plainNanos is ParseNanos' fast path; it returns false for anything but [+-]digits[.digits]
// with at most nine whole digits, so 18 kept digits cannot overflow.
func plainNanos[T string | []byte](b T) (int64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg, b = b[0] == '-', b[1:]
	}
	var n int64
	i, whole := 0, 0
	for ; i < len(b) && b[i] != '.'; i++ {
		c := b[i] - '0'
		if c > 9 || whole == 9 {
			return 0, false
		}
		n = n*10 + int64(c)
		whole++
	}
	frac := 0
	if i < len(b) { // b[i] == '.'
		for i++; i < len(b) && frac < 9; i++ {
			c := b[i] - '0'
			if c > 9 {
				return 0, false
			}
			n = n*10 + int64(c)
			frac++
		}
	}
	if whole == 0 && frac == 0 {
		return 0, false
	}
	for range 9 - frac {
		n *= 10
	}
	if i < len(b) { // the digits past the ninth decimal place decide the rounding
		first := b[i] - '0'
		if first > 9 {
			return 0, false
		}
		tail := false
		for i++; i < len(b); i++ {
			c := b[i] - '0'
			if c > 9 {
				return 0, false
			}
			tail = tail || c != 0
		}
		if first > 5 || first == 5 && (tail || n&1 == 1) {
			n++
		}
	}
	if neg {
		n = -n
	}
	return n, true
}

// PerHour is a price per hour, exact like Money.
type PerHour = Money

// Add returns m + o. It panics if the currencies differ: callers never add currencies together.
func (m Money) Add(o Money) Money {
	if m.currency() != o.currency() {
		panic(fmt.Sprintf("gpucost: adding %s to %s", o.currency(), m.currency()))
	}
	return Money{Nanos: m.Nanos + o.Nanos, Currency: m.currency()}
}

// Sub returns m − o, in the same currency.
func (m Money) Sub(o Money) Money { return m.Add(Money{Nanos: -o.Nanos, Currency: o.Currency}) }

// MulFloat returns m × f rounded to the nearest nano-unit. It is used for quantities such as
// GPU-hours, which are measurements rather than money; the product is exact to 10⁻⁹.
func (m Money) MulFloat(f float64) Money {
	return Money{Nanos: int64(math.Round(float64(m.Nanos) * f)), Currency: m.currency()}
}

// DivInt returns m / n rounded to the nearest nano-unit.
func (m Money) DivInt(n int64) Money {
	q := new(big.Rat).SetFrac(big.NewInt(m.Nanos), big.NewInt(n))
	f, _ := q.Float64()
	return Money{Nanos: int64(math.Round(f)), Currency: m.currency()}
}

// IsZero reports whether the amount is zero.
func (m Money) IsZero() bool { return m.Nanos == 0 }

// Less reports whether m < o.
func (m Money) Less(o Money) bool { return m.Nanos < o.Nanos }

func (m Money) currency() string {
	if m.Currency == "" {
		return "USD"
	}
	return m.Currency
}

// Decimal returns the amount as a plain decimal string with trailing zeros trimmed, such as
// "1.2345" or "-3".
func (m Money) Decimal() string {
	neg := m.Nanos < 0
	u := uint64(m.Nanos)
	if neg {
		u = -u
	}
	s := fmt.Sprintf("%d.%09d", u/nanosPerUnit, u%nanosPerUnit)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if neg {
		s = "-" + s
	}
	return s
}

// Round returns the amount rounded half away from zero to the given number of decimal places.
func (m Money) Round(places int) Money {
	if places >= 9 {
		return m
	}
	unit := int64(math.Pow10(9 - places))
	half := unit / 2
	n := m.Nanos
	if n >= 0 {
		n = (n + half) / unit * unit
	} else {
		n = (n - half) / unit * unit
	}
	return Money{Nanos: n, Currency: m.Currency}
}

// Fixed returns the amount rounded to the given number of decimal places, as "1234.57".
func (m Money) Fixed(places int) string {
	r := m.Round(places)
	neg := r.Nanos < 0
	u := uint64(r.Nanos)
	if neg {
		u = -u
	}
	s := fmt.Sprintf("%d", u/nanosPerUnit)
	if places > 0 {
		frac := fmt.Sprintf("%09d", u%nanosPerUnit)
		s += "." + frac[:places]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// String returns the amount with its currency, rounded to cents: "USD 1234.57".
func (m Money) String() string { return m.currency() + " " + m.Fixed(2) }

// Dollars returns the amount as "$1,234.57" for USD and "EUR 1,234.57" for other currencies.
func (m Money) Dollars() string {
	s := m.Fixed(2)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	out := b.String() + "." + frac
	if m.currency() == "USD" {
		out = "$" + out
	} else {
		out = m.currency() + " " + out
	}
	if neg {
		out = "-" + out
	}
	return out
}

// MarshalText writes the amount as a plain decimal, so JSON output keeps every digit.
func (m Money) MarshalText() ([]byte, error) { return []byte(m.Decimal()), nil }
