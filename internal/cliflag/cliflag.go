// Package cliflag refuses a command-line flag's value outside its range before a command acts
// on it, so that nothing asked is clamped or replaced without a word (docs/architecture.md
// "Output conventions"). Each check returns a usage error, which internal/exitcode maps to exit
// 2, naming the flag, the value and the range: "--rate -1: give a number above 0".
package cliflag

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// usage marks an error as bad flags or arguments (exitcode.Usage).
type usage struct{ error }

func (u usage) Unwrap() error { return u.error }

// UsageError marks u as a usage error for exitcode.For.
func (usage) UsageError() {}

// Usage marks err as a usage error: bad flags or arguments, exit 2.
func Usage(err error) error { return usage{err} }

// First returns the first of errs that is not nil.
func First(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// RangeError is the usage error of --flag v outside what it takes.
func RangeError(flag string, v any, takes string) error {
	return usage{fmt.Errorf("--%s %v: give %s", flag, v, takes)}
}

// IntAtLeast refuses n below least.
func IntAtLeast(flag string, n, least int) error {
	if n < least {
		return RangeError(flag, n, fmt.Sprintf("%d or more", least))
	}
	return nil
}

// DurAtLeast refuses d below least: 0 for a delay that may be none, 1ns for a period.
func DurAtLeast(flag string, d, least time.Duration) error {
	if d < least {
		if least <= time.Nanosecond {
			return RangeError(flag, d, "a duration above 0, such as 30s")
		}
		return RangeError(flag, d, least.String()+" or more")
	}
	return nil
}

// DurNotNegative refuses a negative d, where 0 means none or the default.
func DurNotNegative(flag string, d time.Duration) error {
	if d < 0 {
		return RangeError(flag, d, "0 or more, such as 30s")
	}
	return nil
}

// FloatIn refuses x outside [lo, hi] and NaN; hi may be +Inf for no upper bound, which x
// itself may still not be.
func FloatIn(flag string, x, lo, hi float64) error {
	if !(x >= lo && x <= hi) || math.IsInf(x, 0) {
		if math.IsInf(hi, 1) {
			return RangeError(flag, x, fmt.Sprintf("a finite number, %v or more", lo))
		}
		return RangeError(flag, x, fmt.Sprintf("a number from %v to %v", lo, hi))
	}
	return nil
}

// FloatAbove refuses x at or below lo, NaN and infinity.
func FloatAbove(flag string, x, lo float64) error {
	if !(x > lo) || math.IsInf(x, 0) {
		return RangeError(flag, x, fmt.Sprintf("a finite number above %v", lo))
	}
	return nil
}

// Limit refuses a rate limit or throttle below 0, NaN or infinite; 0 turns it off.
func Limit(flag string, x float64) error {
	if !(x >= 0) || math.IsInf(x, 0) {
		return RangeError(flag, x, "a finite number, 0 or more: a limit cannot be negative, and 0 turns it off")
	}
	return nil
}

// OneOf refuses v unless it is one of valid.
func OneOf(flag, v string, valid ...string) error {
	if !slices.Contains(valid, v) {
		return usage{fmt.Errorf("--%s %q: use one of %s", flag, v, strings.Join(valid, ", "))}
	}
	return nil
}

// OneOfFold refuses v unless it is one of valid in any case, or empty (not given).
func OneOfFold(flag, v string, valid ...string) error {
	if v == "" || slices.ContainsFunc(valid, func(s string) bool { return strings.EqualFold(s, v) }) {
		return nil
	}
	return OneOf(flag, v, valid...)
}
