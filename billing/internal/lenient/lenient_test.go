package lenient

import (
	"errors"
	"regexp"
	"testing"
	"time"
)

func TestAmount(t *testing.T) {
	tests := []struct {
		in, want, sign string
		ok             bool
	}{
		{"$10,000.00", "10000.00", "$", true},
		{"-$1,234.5", "-1234.5", "$", true},
		{"$-1,234.5", "-1234.5", "$", true},
		{"€ 12", "12", "€", true},
		{"12.50 EUR", "12.50", "EUR", true},
		{"USD 1,000,000", "1000000", "USD", true},
		{"US$3.20", "3.20", "US$", true},
		{"£0.99", "0.99", "£", true},
		{"1,234,567.891", "1234567.891", "", true},
		{"12.5", "", "", false},     // plain: nothing to coerce
		{"1,5", "", "", false},      // a decimal comma, or a thousand and five
		{"1.234,50", "", "", false}, // European separators
		{"10,00.00", "", "", false}, // groups not of three
		{"1234,567", "", "", false}, // first group too long
		{"$", "", "", false},        // no digits
		{"$12.", "", "", false},     // no decimals after the point
		{"$1e5", "", "", false},     // no exponents
		{"lots", "", "", false},     // no number
		{"$ 12 $", "", "", false},   // two signs
		{"JPY 12,000", "12000", "JPY", true},
		{"$1,234", "1234", "$", true},
		{"1,234", "", "", false},  // 1.234 where the comma is the decimal mark
		{"€1,234", "", "", false}, // likewise
		{"€1,234.00", "1234.00", "€", true},
		{"1,234,567", "1234567", "", true},
	}
	for _, tt := range tests {
		got, sign, err := Amount(nil, []byte(tt.in))
		if (err == nil) != tt.ok || tt.ok && (string(got) != tt.want || sign != tt.sign) {
			t.Errorf("Amount(%q) = %q, %q, %v; want %q, %q, ok %v", tt.in, got, sign, err, tt.want, tt.sign, tt.ok)
		}
	}
}

func TestMatches(t *testing.T) {
	tests := []struct {
		sign, cur string
		want      bool
	}{
		{"$", "USD", true},
		{"$", "CAD", true},
		{"$", "EUR", false},
		{"€", "EUR", true},
		{"€", "USD", false},
		{"US$", "CAD", false},
		{"EUR", "EUR", true},
		{"EUR", "USD", false},
		{"", "JPY", true},
	}
	for _, tt := range tests {
		if got := Matches(tt.sign, tt.cur); got != tt.want {
			t.Errorf("Matches(%q, %q) = %v, want %v", tt.sign, tt.cur, got, tt.want)
		}
	}
}

func TestTime(t *testing.T) {
	oct1 := time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Time
		err  error
	}{
		{"2025/10/01", oct1, nil},
		{"2025/10/01 00:00:00", oct1, nil},
		{"2025/10/01T02:00:00+02:00", oct1, nil},
		{"2025.10.01", oct1, nil},
		{"Wed, 01 Oct 2025 00:00:00 GMT", oct1, nil},
		{"Wed, 01 Oct 2025 02:00:00 +0200", oct1, nil},
		{"Wed, 1 Oct 2025 00:00:00 UTC", oct1, nil},
		{"01/02/2025", time.Time{}, ErrAmbiguous},
		{"13/02/2025", time.Time{}, ErrAmbiguous}, // day-first here, but the file's other rows may not say
		{"10-01-2025", time.Time{}, ErrAmbiguous},
		{"Wed, 01 Oct 2025 00:00:00 EST", time.Time{}, ErrNotDate}, // EST names no offset for sure
		{"2025/02/30", time.Time{}, ErrNotDate},
		{"yesterday", time.Time{}, ErrNotDate},
	}
	for _, tt := range tests {
		got, err := Time([]byte(tt.in))
		if !errors.Is(err, tt.err) || !got.Equal(tt.want) {
			t.Errorf("Time(%q) = %v, %v; want %v, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

// FuzzAmount checks that what Amount returns is a plain decimal, and that it never panics.
func FuzzAmount(f *testing.F) {
	for _, s := range []string{"$10,000.00", "-€1,234.5", "12 EUR", "1,5", "US$", "$-", "-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, _, err := Amount(nil, []byte(s))
		if err != nil {
			return
		}
		if !plain.MatchString(string(out)) {
			t.Errorf("Amount(%q) = %q, not a plain decimal", s, out)
		}
	})
}

var plain = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// FuzzTime checks that Time never panics and that what it reads is in UTC.
func FuzzTime(f *testing.F) {
	for _, s := range []string{"2025/10/01", "2025.10.01 12:00:00Z", "Wed, 01 Oct 2025 00:00:00 GMT", "01/02/2025", "2025/1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if tm, err := Time([]byte(s)); err == nil && tm.Location() != time.UTC {
			t.Errorf("Time(%q) = %v, not in UTC", s, tm)
		}
	})
}
