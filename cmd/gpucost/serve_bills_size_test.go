package main

import "testing"

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{{"2GiB", 2 << 30}, {"512MiB", 512 << 20}, {"100MB", 100e6}, {"4096", 4096}, {"1.5GiB", 3 << 29}} {
		if got, err := parseSize(tc.in); err != nil || got != tc.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "0", "-1GiB", "lots", "2XB"} {
		if _, err := parseSize(bad); err == nil {
			t.Errorf("parseSize(%q) = nil error", bad)
		}
	}
}
