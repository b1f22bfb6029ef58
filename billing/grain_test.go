package billing

import (
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

func TestParseGrain(t *testing.T) {
	for in, want := range map[string]time.Duration{"day": Day, "hour": time.Hour} {
		if got, err := ParseGrain(in); got != want || err != nil {
			t.Errorf("ParseGrain(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseGrain("week"); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("ParseGrain(week) = %v; want an invalid error", err)
	}
}
