package server

import "testing"

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{{"2GiB", 2 << 30}, {"512MiB", 512 << 20}, {"100MB", 100e6}, {"4096", 4096}, {"1.5GiB", 3 << 29},
		{" 3 KiB ", 3 << 10}, {"2TB", 2e12}, {"1B", 1}, {"1PiB", 0}} {
		got, err := ParseSize(tc.in)
		if tc.want == 0 {
			if err == nil {
				t.Errorf("ParseSize(%q) = %d, nil error; want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "0", "-1GiB", "lots", "2XB", "0.5B", "NaN"} {
		_, err := ParseSize(bad)
		if err == nil || err.Error() != "use a size such as 2GiB, 500MiB or 100MB" {
			t.Errorf("ParseSize(%q) = %v; want the error that names the form of a size", bad, err)
		}
	}
}
