package timetext

import (
	"testing"
	"time"
)

func TestParseISO(t *testing.T) {
	tests := []struct {
		in   string
		want string // RFC 3339 in UTC, empty for a refusal
	}{
		{"2025-06-03T14:00:00Z", "2025-06-03T14:00:00Z"},
		{"2025-06-03T14:00:00.000Z", "2025-06-03T14:00:00Z"},
		{"2025-06-03T14:00:00.5Z", "2025-06-03T14:00:00.5Z"},
		{"2024-09-01T00:00:00.0000000Z", "2024-09-01T00:00:00Z"},
		{"2025-06-03 14:00:00", "2025-06-03T14:00:00Z"},
		{"2025-06-03 14:00:00 UTC", "2025-06-03T14:00:00Z"},
		{"2025-06-03 14:00:00 +02:00", "2025-06-03T12:00:00Z"},
		{"2025-06-03 UTC", "2025-06-03T00:00:00Z"},
		{"2025-06-03T14:00:00+02:00", "2025-06-03T12:00:00Z"},
		{"2025-06-03T14:00:00-0530", "2025-06-03T19:30:00Z"},
		{"2025-06-03T14:00:00+05", "2025-06-03T09:00:00Z"},
		{"2025-06-03", "2025-06-03T00:00:00Z"},
		{"2024-02-29T00:00:00Z", "2024-02-29T00:00:00Z"},
		{"2025-02-29T00:00:00Z", ""},
		{"2025-06-31T00:00:00Z", ""},
		{"2025-13-01T00:00:00Z", ""},
		{"0000-01-01", ""},
		{"2025-06-03T24:00:00Z", ""},
		{"2025-06-03T23:59:60Z", ""},
		{"2025-06-03T14:00Z", ""},
		{"2025-06-03T14:00:00.Z", ""},
		{"2025-06-03T14:00:00+2", ""},
		{"2025-06-03T14:00:00+24:00", ""},
		{"06/03/2025", ""},
		{"", ""},
	}
	for _, tt := range tests {
		got, ok := ParseISO([]byte(tt.in))
		if tt.want == "" {
			if ok {
				t.Errorf("ParseISO(%q) = %v, want a refusal", tt.in, got)
			}
			continue
		}
		if !ok || got.Format(time.RFC3339Nano) != tt.want || got.Location() != time.UTC {
			t.Errorf("ParseISO(%q) = %v, %v; want %s", tt.in, got, ok, tt.want)
		}
	}
}

func TestDaysIn(t *testing.T) {
	for _, y := range []int{1900, 2000, 2023, 2024} {
		for m := 1; m <= 12; m++ {
			want := time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
			if got := DaysIn(m, y); got != want {
				t.Errorf("DaysIn(%d, %d) = %d, want %d", m, y, got, want)
			}
		}
	}
}

// FuzzParseISO checks ParseISO against time.Parse: whatever both read as RFC 3339 must be the
// same instant (time.Parse is laxer in places, a one-digit hour or year 0, so a refusal is no
// failure), and a time ParseISO accepts must round-trip through its RFC 3339 form.
func FuzzParseISO(f *testing.F) {
	for _, s := range []string{"2025-06-03T14:00:00Z", "2025-06-03 14:00:00.123+05:30",
		"2024-06-03 14:00:00 UTC", "2024-09-01T00:00:00.0000000Z", "2024-09-01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := ParseISO([]byte(s))
		want, err := time.Parse(time.RFC3339Nano, s)
		if err == nil && ok && !want.Equal(got) {
			t.Fatalf("ParseISO(%q) = %v, %v; time.Parse = %v", s, got, ok, want)
		}
		if ok {
			if back, err := time.Parse(time.RFC3339Nano, got.Format(time.RFC3339Nano)); err != nil || !back.Equal(got) {
				t.Fatalf("ParseISO(%q) = %v, which does not round-trip: %v", s, got, err)
			}
		}
	})
}
