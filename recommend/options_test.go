package recommend

import (
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

func TestNewOptions(t *testing.T) {
	o, err := NewOptions("250.50", true, 500)
	if err != nil || o.MinSaving != gpucost.USD(250_500_000_000) || !o.OtherProviders || o.MoveDataGB != 500 {
		t.Errorf("NewOptions(250.50, true, 500) = %+v, %v", o, err)
	}
	for _, tc := range []struct {
		min  string
		gb   float64
		want string
	}{
		{"-1", 0, `--min-saving "-1": use dollars`},
		{"lots", 0, `--min-saving "lots"`},
		{"100", -1, "--move-data-gb -1: give the GB"},
		{"100", 1e9, "--move-data-gb 1e+09"},
	} {
		_, err := NewOptions(tc.min, false, tc.gb)
		if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewOptions(%q, %v) = %v; want EInvalid %q", tc.min, tc.gb, err, tc.want)
		}
	}
}
