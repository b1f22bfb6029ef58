package gpucost

import (
	"strconv"
	"time"
)

// Duration is a time.Duration that JSON writes as a number of seconds, under a key that ends
// _s: the one unit of every span of time gpucost's JSON carries (docs/architecture.md "Output
// conventions"), where a Go duration would write nanoseconds.
type Duration time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// String writes d as time.Duration does: "1h30m0s".
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalJSON writes d in seconds: 90m is 5400, 1.5s is 1.5.
func (d Duration) MarshalJSON() ([]byte, error) {
	return strconv.AppendFloat(nil, time.Duration(d).Seconds(), 'f', -1, 64), nil
}

// UnmarshalJSON reads a number of seconds, as MarshalJSON writes it, to the nanosecond.
func (d *Duration) UnmarshalJSON(b []byte) error {
	s, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return Errorf(EInvalid, "duration %s: give a number of seconds", b)
	}
	*d = Duration(time.Duration(s * float64(time.Second)))
	return nil
}
