package teleimport

import (
	"testing"

	"github.com/gpucost/gpucost"
)

func TestCheckFlags(t *testing.T) {
	given := func(flags ...string) func(string) bool {
		return func(f string) bool {
			for _, g := range flags {
				if g == f {
					return true
				}
			}
			return false
		}
	}
	for _, tc := range []struct {
		f     Format
		given []string
		want  string
	}{
		{NvidiaSMI, []string{"gpu"}, ""},
		{SMIPmon, []string{"start", "interval"}, ""},
		{DCGM, nil, ""},
		{DCGM, []string{"gpu"}, "--gpu is for --format nvidia-smi, not dcgm"},
		{NvidiaSMI, []string{"interval"}, "--interval is for --format nvidia-smi-pmon, not nvidia-smi"},
	} {
		err := CheckFlags(tc.f, given(tc.given...))
		if got := ""; err != nil {
			got = err.Error()
			if got != tc.want || gpucost.ErrorCode(err) != gpucost.EInvalid {
				t.Errorf("CheckFlags(%s, %v) = %v, want %q", tc.f, tc.given, err, tc.want)
			}
		} else if tc.want != "" {
			t.Errorf("CheckFlags(%s, %v) = nil, want %q", tc.f, tc.given, tc.want)
		}
	}
}
