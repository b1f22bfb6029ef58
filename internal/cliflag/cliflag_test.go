package cliflag

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/gpucost/gpucost/internal/exitcode"
)

func TestChecks(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string // "" for no error
	}{
		{"int at least", IntAtLeast("batch", 1, 1), ""},
		{"int below", IntAtLeast("batch", 0, 1), "--batch 0: give 1 or more"},
		{"period of 0", DurAtLeast("poll", 0, 1), "--poll 0s: give a duration above 0, such as 30s"},
		{"period below a floor", DurAtLeast("flush", time.Second, time.Minute), "--flush 1s: give 1m0s or more"},
		{"period", DurAtLeast("poll", time.Second, 1), ""},
		{"delay of 0", DurNotNegative("grace", 0), ""},
		{"negative delay", DurNotNegative("grace", -time.Second), "--grace -1s: give 0 or more, such as 30s"},
		{"share", FloatIn("weight", 1, 0, 1), ""},
		{"share above", FloatIn("weight", 1.5, 0, 1), "--weight 1.5: give a number from 0 to 1"},
		{"NaN", FloatIn("weight", math.NaN(), 0, 1), "--weight NaN: give a number from 0 to 1"},
		{"no upper bound", FloatIn("rate", math.Inf(1), 0, math.Inf(1)), "--rate +Inf: give a finite number, 0 or more"},
		{"above", FloatAbove("rate", 0, 0), "--rate 0: give a finite number above 0"},
		{"above, ok", FloatAbove("rate", 0.1, 0), ""},
		{"limit off", Limit("bill-rate", 0), ""},
		{"negative limit", Limit("bill-rate", -1), "--bill-rate -1: give a finite number, 0 or more: a limit cannot be negative, and 0 turns it off"},
		{"one of", OneOf("cloud", "aws", "aws", "gcp"), ""},
		{"not one of", OneOf("cloud", "ibm", "aws", "gcp"), `--cloud "ibm": use one of aws, gcp`},
		{"any case", OneOfFold("provider", "AWS", "aws", "gcp"), ""},
		{"not given", OneOfFold("provider", "", "aws"), ""},
		{"no such provider", OneOfFold("provider", "ibm", "aws"), `--provider "ibm": use one of aws`},
	} {
		got := ""
		if tc.err != nil {
			got = tc.err.Error()
			if code := exitcode.For(tc.err); code != exitcode.Invalid {
				t.Errorf("%s: exitcode.For(%v) = %d, want %d", tc.name, tc.err, code, exitcode.Invalid)
			}
		}
		if got != tc.want {
			t.Errorf("%s: error %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestFirst(t *testing.T) {
	a, b := errors.New("a"), errors.New("b")
	if got := First(nil, a, b); got != a {
		t.Errorf("First(nil, a, b) = %v, want a", got)
	}
	if got := First(nil, nil); got != nil {
		t.Errorf("First(nil, nil) = %v, want nil", got)
	}
}

func TestUsageUnwraps(t *testing.T) {
	base := errors.New("--x: bad")
	err := Usage(base)
	if !errors.Is(err, base) || exitcode.For(err) != exitcode.Invalid {
		t.Errorf("Usage(%v): errors.Is %v, exit %d; want true, %d", base, errors.Is(err, base), exitcode.For(err), exitcode.Invalid)
	}
}
