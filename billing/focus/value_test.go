package focus

import (
	"fmt"
	"math"
	"testing"
	"time"
)

func TestParseTime(t *testing.T) {
	utc := func(y int, mo time.Month, d, h, mi, s, ns int) time.Time {
		return time.Date(y, mo, d, h, mi, s, ns, time.UTC)
	}
	for _, tc := range []struct {
		in   string
		want time.Time // zero: not a time
	}{
		{"2024-09-01T00:00:00Z", utc(2024, 9, 1, 0, 0, 0, 0)},
		{"2024-09-01 00:00:00", utc(2024, 9, 1, 0, 0, 0, 0)},
		{"2024-09-01T00:00:00.000Z", utc(2024, 9, 1, 0, 0, 0, 0)},
		{"2024-09-01T13:14:15.123456789Z", utc(2024, 9, 1, 13, 14, 15, 123456789)},
		{"2024-09-01T13:14:15.1234567891Z", utc(2024, 9, 1, 13, 14, 15, 123456789)},
		{"2024-09-01T02:00:00+02:00", utc(2024, 9, 1, 0, 0, 0, 0)},
		{"2024-08-31T19:00:00-0500", utc(2024, 9, 1, 0, 0, 0, 0)},
		{"2024-09-01T05:30:00+05", utc(2024, 9, 1, 0, 30, 0, 0)},
		{"2024-09-01 00:00:00 UTC", utc(2024, 9, 1, 0, 0, 0, 0)},
		{"2024-09-01T00:00:00,5Z", utc(2024, 9, 1, 0, 0, 0, 500_000_000)},
		{"2024-02-29", utc(2024, 2, 29, 0, 0, 0, 0)},
		{"1999-12-31T23:59:59Z", utc(1999, 12, 31, 23, 59, 59, 0)},
		{"2023-02-29T00:00:00Z", time.Time{}},
		{"2024-13-01T00:00:00Z", time.Time{}},
		{"2024-09-01T24:00:00Z", time.Time{}},
		{"2024-09-01T00:00:00 PST", time.Time{}},
		{"2024-09-01T00:00", time.Time{}},
		{"09/01/2024", time.Time{}},
		{"2024-09-01T00:00:00.Z", time.Time{}},
	} {
		got, ok := parseTime([]byte(tc.in))
		if ok != !tc.want.IsZero() || ok && !got.Equal(tc.want) || ok && got.Location() != time.UTC {
			t.Errorf("parseTime(%q) = %v, %v; want %v", tc.in, got, ok, tc.want)
		}
	}
}

func TestParseNanos(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0.00000080000", 800, true},
		{"-2.61370000000", -2_613_700_000, true},
		{"0.0000000005", 0, true},     // half to even: 0
		{"0.0000000015", 2, true},     // half to even: 2
		{"0.00000000150001", 2, true}, // above half
		{"-0.0000000025", -2, true},   // half to even: -2
		{"-0.00000000250000000001", -3, true},
		{"999999999.9999999995", 1_000_000_000_000_000_000, true},
		{"1234567890.5", 1_234_567_890_500_000_000, true},
		{"1e-3", 1_000_000, true},
		{"+.5", 500_000_000, true},
		{"1.2.3", 0, false},
		{"", 0, false},
		{"12,5", 0, false},
		{"99999999999", 0, false}, // out of range
	} {
		got, err := parseNanos([]byte(tc.in))
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseNanos(%q) = %d, %v; want %d, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestScaleToNanos(t *testing.T) {
	for _, tc := range []struct {
		u     int64
		scale int
		want  int64
		ok    bool
	}{
		{12345, 2, 123_450_000_000, true},
		{15, 10, 2, true},   // 1.5 nano: even up
		{25, 10, 2, true},   // 2.5: even down
		{-35, 10, -4, true}, // -3.5: even, away
		{1, 0, 1_000_000_000, true},
		{math.MaxInt64, 0, 0, false},
		{math.MaxInt64, 28, 1, true}, // 0.92 nano
		{math.MaxInt64, 38, 0, true},
		{7, 9, 7, true},
	} {
		got, ok := scaleToNanos(tc.u, tc.scale)
		if ok != tc.ok || got != tc.want {
			t.Errorf("scaleToNanos(%d, %d) = %d, %v; want %d, %v", tc.u, tc.scale, got, ok, tc.want, tc.ok)
		}
	}
}

func TestAppendNanos(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 1: "0.000000001", -1_500_000_000: "-1.5", 20_520_000_000: "20.52", math.MinInt64 + 1: "-9223372036.854775807"} {
		if got := string(appendNanos(nil, n)); got != want {
			t.Errorf("appendNanos(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestStrCache checks that a column of unique values stops interning and one of repeating values
// keeps it.
func TestStrCache(t *testing.T) {
	var unique, repeating strCache
	for i := range 3 * maxInterned {
		if got, want := unique.get([]byte(fmt.Sprint("v", i))), fmt.Sprint("v", i); got != want {
			t.Fatalf("get(%s) = %s", want, got)
		}
		repeating.get([]byte(fmt.Sprint("v", i%100)))
	}
	if !unique.noIntern || repeating.noIntern || len(repeating.m) != 100 {
		t.Errorf("unique values: interning %v; repeating values: interning %v, %d held", !unique.noIntern, !repeating.noIntern, len(repeating.m))
	}
	enum := strCache{enum: true}
	for in, want := range map[string]string{"usage-based": "Usage-Based", "Usage-based": "Usage-Based", "USAGE-BASED": "Usage-Based",
		"Usage-Based": "Usage-Based", "Custom": "Custom", "On-Demand": "Standard", "Commitment-Based": "Committed", "Spot": "Dynamic"} {
		for range 2 { // the second time from the table
			if got := enum.get([]byte(in)); got != want {
				t.Errorf("enum get(%q) = %q, want %q", in, got, want)
			}
		}
	}
}
