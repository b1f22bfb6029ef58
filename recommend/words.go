package recommend

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Names writes resource ids compactly: ids that differ only in a trailing number become one
// range, "notebook-a10g-01–08"; others are listed with commas.
func Names(ids []string) string {
	ids = slices.Clone(ids)
	slices.Sort(ids)
	var out []string
	for i := 0; i < len(ids); {
		prefix, n, width, ok := splitNumber(ids[i])
		j := i + 1
		for ok && j < len(ids) {
			p, m, w, ok2 := splitNumber(ids[j])
			if !ok2 || p != prefix || w != width || m != n+(j-i) {
				break
			}
			j++
		}
		if j-i > 1 {
			_, last, _, _ := splitNumber(ids[j-1])
			out = append(out, fmt.Sprintf("%s–%0*d", ids[i], width, last))
		} else {
			out = append(out, ids[i])
		}
		i = j
	}
	return strings.Join(out, ", ")
}

// splitNumber splits "notebook-a10g-07" into "notebook-a10g-", 7 and the digits' width 2.
func splitNumber(id string) (prefix string, n, width int, ok bool) {
	k := len(id)
	for k > 0 && id[k-1] >= '0' && id[k-1] <= '9' {
		k--
	}
	if k == len(id) || len(id)-k > 9 {
		return id, 0, 0, false
	}
	n, err := strconv.Atoi(id[k:])
	return id[:k], n, len(id) - k, err == nil
}

// week is a set of hours of the week, [time.Weekday][hour].
type week [7][24]bool

func (w *week) count() int {
	n := 0
	for d := range 7 {
		for h := range 24 {
			if w[d][h] {
				n++
			}
		}
	}
	return n
}

// Schedule says in words when the hours of off are: "from 00:00 to 10:00 UTC daily" when every
// day shares one window, "from 18:00 to 09:00 UTC weekdays and all weekend" when weekdays do,
// otherwise day by day.
func Schedule(off [7][24]bool, zone string) string {
	if zone == "" {
		zone = "UTC"
	}
	w := week(off)
	if from, to, ok := sameWindow(w, allDays); ok {
		return fmt.Sprintf("from %02d:00 to %02d:00 %s daily", from, to, zone)
	}
	weekend := allDay(w, time.Saturday) && allDay(w, time.Sunday)
	var parts []string
	if from, to, ok := sameWindow(w, weekdays); ok {
		parts = append(parts, fmt.Sprintf("from %02d:00 to %02d:00 %s weekdays", from, to, zone))
	} else if !noneOn(w, weekdays) {
		for _, d := range weekdays {
			parts = append(parts, dayWindows(w, d, zone)...)
		}
	}
	switch {
	case weekend:
		parts = append(parts, "all weekend")
	default:
		for _, d := range []time.Weekday{time.Saturday, time.Sunday} {
			parts = append(parts, dayWindows(w, d, zone)...)
		}
	}
	return strings.Join(parts, " and ")
}

var (
	weekdays = []time.Weekday{time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday}
	allDays  = append(slices.Clone(weekdays), time.Saturday, time.Sunday)
)

func allDay(w week, d time.Weekday) bool { return !slices.Contains(w[d][:], false) }

func noneOn(w week, days []time.Weekday) bool {
	for _, d := range days {
		if slices.Contains(w[d][:], true) {
			return false
		}
	}
	return true
}

// sameWindow reports whether every day in days has the same off hours, forming one window
// [from, to) that may wrap past midnight, and not the whole day.
func sameWindow(w week, days []time.Weekday) (from, to int, ok bool) {
	for _, d := range days[1:] {
		if w[d] != w[days[0]] {
			return 0, 0, false
		}
	}
	return window(w[days[0]])
}

// window returns the one circular run of true hours in a day.
func window(day [24]bool) (from, to int, ok bool) {
	starts := 0
	for h := range 24 {
		if day[h] && !day[(h+23)%24] {
			starts++
			from = h
		}
		if !day[h] && day[(h+23)%24] {
			to = h
		}
	}
	return from, to, starts == 1
}

// dayWindows lists one day's off runs: "Saturday 00:00–12:00 UTC".
func dayWindows(w week, d time.Weekday, zone string) []string {
	var out []string
	for h := 0; h < 24; {
		if !w[d][h] {
			h++
			continue
		}
		e := h
		for e < 24 && w[d][e] {
			e++
		}
		out = append(out, fmt.Sprintf("%s %02d:00–%02d:00 %s", d, h, e, zone))
		h = e
	}
	return out
}
