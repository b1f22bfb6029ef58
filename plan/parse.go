package plan

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// The parsers below read the quantities people write on a command line or in a file. Each
// error is a gpucost.EInvalid error that starts with the value as given, quoted, and says what
// would work, so the caller only puts the flag or field in front: `--slo "x": use pNN=…`.

// ParseSLO reads a latency objective: "p99=200ms", "p99.9=1s", or "200ms" (p99). It returns
// the quantile (0.99) and the duration.
func ParseSLO(s string) (float64, time.Duration, error) {
	bad := gpucost.Errorf(gpucost.EInvalid, "%q: use pNN=DURATION, such as p99=200ms or p99.9=1s", s)
	q, d := "99", strings.TrimSpace(s)
	if name, v, ok := strings.Cut(d, "="); ok {
		n, ok := strings.CutPrefix(strings.ToLower(strings.TrimSpace(name)), "p")
		if !ok {
			return 0, 0, bad
		}
		q, d = n, strings.TrimSpace(v)
	}
	pct, err := strconv.ParseFloat(q, 64)
	if err != nil || !(pct > 0 && pct < 100) { // NaN too
		return 0, 0, bad
	}
	t, err := time.ParseDuration(d)
	if err != nil || t <= 0 {
		return 0, 0, bad
	}
	return pct / 100, t, nil
}

// ParsePercent reads "20%" or "0.2" as 0.2; it may exceed 1.
func ParsePercent(s string) (float64, error) {
	v := strings.TrimSpace(s)
	pct := strings.HasSuffix(v, "%")
	f, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
	if err != nil || !(f >= 0) || math.IsInf(f, 0) { // NaN and Inf too
		return 0, gpucost.Errorf(gpucost.EInvalid, "%q: use a percentage such as 20%% or a share such as 0.2", s)
	}
	if pct {
		f /= 100
	}
	return f, nil
}

// ParseShare reads a share of a whole, "20%" or "0.2", at most 1.
func ParseShare(s string) (float64, error) {
	v := strings.TrimSpace(s)
	pct := strings.HasSuffix(v, "%")
	var f float64
	if _, err := fmt.Sscan(strings.TrimSuffix(v, "%"), &f); err != nil || !(f >= 0) { // NaN too
		return 0, gpucost.Errorf(gpucost.EInvalid, "%q: use a share such as 20%% or 0.2", s)
	}
	if pct {
		f /= 100
	}
	if f > 1 {
		return 0, gpucost.Errorf(gpucost.EInvalid, "%q: a share is at most 100%%", s)
	}
	return f, nil
}

// ParseRate reads an interruption rate per hour: "10%/h", "10%" or "0.1".
func ParseRate(s string) (float64, error) {
	v := strings.TrimSuffix(strings.TrimSpace(s), "/h")
	pct := strings.HasSuffix(v, "%")
	f, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
	if err != nil || !(f > 0) || math.IsInf(f, 0) { // NaN and Inf too
		return 0, gpucost.Errorf(gpucost.EInvalid, "%q: use interruptions per hour, such as 10%%/h or 0.1", s)
	}
	if pct {
		f /= 100
	}
	return f, nil
}

// byteUnits are the size suffixes ParseBytes takes: decimal as storage and networks count.
var byteUnits = []struct {
	suffix string
	bytes  float64
}{{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}

// ParseBytes reads a size such as "98GB", "1.5TiB" or "512MB"; with perSecond, a bandwidth
// such as "1GB/s".
func ParseBytes(s string, perSecond bool) (float64, error) {
	bad := gpucost.Errorf(gpucost.EInvalid, "%q: use a size such as 98GB, 1.5TiB or 512MB%s", s, map[bool]string{true: " per second: 1GB/s"}[perSecond])
	v := strings.TrimSpace(s)
	if perSecond {
		var ok bool
		if v, ok = strings.CutSuffix(v, "/s"); !ok {
			return 0, bad
		}
	}
	for _, u := range byteUnits {
		if n, ok := strings.CutSuffix(v, u.suffix); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
			if err != nil || !(f > 0) || math.IsInf(f, 0) { // NaN and Inf too
				return 0, bad
			}
			return f * u.bytes, nil
		}
	}
	return 0, bad
}

// countUnits are the suffixes ParseCount takes.
var countUnits = []struct {
	suffix string
	mult   float64
}{{"K", 1e3}, {"M", 1e6}, {"B", 1e9}, {"G", 1e9}, {"T", 1e12}}

// ParseCount reads a count such as 7e9, 7B, 70B, 1.5T or 500M.
func ParseCount(s string) (float64, error) {
	v := strings.TrimSpace(s)
	mult := 1.0
	for _, u := range countUnits {
		if n, ok := strings.CutSuffix(strings.ToUpper(v), u.suffix); ok {
			v, mult = n, u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !(f > 0) || math.IsInf(f, 0) { // NaN and Inf too
		return 0, gpucost.Errorf(gpucost.EInvalid, "%q: use a positive count such as 7e9 or 7B", s)
	}
	return f * mult, nil
}

// ParseDollars reads a positive amount of US dollars, such as 3.06.
func ParseDollars(s string) (gpucost.Money, error) {
	m, err := gpucost.ParseMoney(s, "USD")
	if err != nil || m.Nanos <= 0 {
		return m, gpucost.Errorf(gpucost.EInvalid, "%q: use a positive amount of dollars, such as 3.06", s)
	}
	return m, nil
}

// ParseSchedule reads replicas by hour of the day (UTC), "0-7=2,8-19=6,20-23=3" covering
// 0–23, or 24 or 168 comma-separated counts (a day or a week from Monday 00:00).
func ParseSchedule(s string) ([]int, error) {
	bad := gpucost.Errorf(gpucost.EInvalid, `%q: use hour ranges such as "0-7=2,8-19=6,20-23=3" covering 0–23, or 24 or 168 comma-separated counts`, s)
	parts := strings.Split(s, ",")
	if !strings.Contains(s, "=") {
		out := make([]int, len(parts))
		for i, p := range parts {
			n, err := strconv.Atoi(strings.TrimSpace(p))
			if err != nil || n < 0 {
				return nil, bad
			}
			out[i] = n
		}
		if len(out) != 24 && len(out) != 168 {
			return nil, bad
		}
		return out, nil
	}
	out := make([]int, 24)
	set := make([]bool, 24)
	for _, p := range parts {
		hours, count, ok := strings.Cut(p, "=")
		n, err := strconv.Atoi(strings.TrimSpace(count))
		from, to, _ := strings.Cut(strings.TrimSpace(hours), "-")
		if to == "" {
			to = from
		}
		a, err1 := strconv.Atoi(from)
		b, err2 := strconv.Atoi(to)
		if !ok || err != nil || err1 != nil || err2 != nil || n < 0 || a < 0 || b > 23 || a > b {
			return nil, bad
		}
		for h := a; h <= b; h++ {
			out[h], set[h] = n, true
		}
	}
	for h, ok := range set {
		if !ok {
			return nil, gpucost.Errorf(gpucost.EInvalid, "%q: hour %d has no count; cover 0–23", s, h)
		}
	}
	return out, nil
}

// ParseInstruments reads commitment instruments to layer: "3y=0.57:8,1y=0.4,sp=0.28", each
// name=discount with an optional most units an hour.
func ParseInstruments(spec string) ([]Instrument, error) {
	var ins []Instrument
	for part := range strings.SplitSeq(spec, ",") {
		name, rest, ok := strings.Cut(strings.TrimSpace(part), "=")
		d, most, _ := strings.Cut(rest, ":")
		inst := Instrument{Name: name}
		var err error
		if inst.Discount, err = strconv.ParseFloat(d, 64); !ok || err != nil {
			return nil, gpucost.Errorf(gpucost.EInvalid, "%q: write name=discount[:max units], such as 3y=0.57:8,1y=0.4", spec)
		}
		if most != "" {
			if inst.MaxUnits, err = strconv.ParseFloat(most, 64); err != nil {
				return nil, gpucost.Errorf(gpucost.EInvalid, "%q: the max units of %s, %q, is not a number", spec, name, most)
			}
		}
		ins = append(ins, inst)
	}
	return ins, nil
}
