package analyze

import (
	"testing"

	"github.com/gpucost/gpucost"
)

// TestParseAlertState takes all and each state, no-data for "no data", and refuses the rest.
func TestParseAlertState(t *testing.T) {
	for in, want := range map[string]string{"all": "all", "firing": "firing", "resolved": "resolved", "no-data": "no data", "no data": "no data"} {
		if got, err := ParseAlertState(in); got != want || err != nil {
			t.Errorf("ParseAlertState(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "pending", "Firing"} {
		if _, err := ParseAlertState(in); gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("ParseAlertState(%q) error = %v, want %s", in, err, gpucost.EInvalid)
		}
	}
}
