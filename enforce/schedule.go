package enforce

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Schedule is an off-hours policy's trigger: the windows of the week, in Zone, when the
// resources in scope are stopped or scaled to zero, and the holidays, whole days in Zone, that
// are off too. Outside them the policy starts what it stopped, at the size it recorded.
type Schedule struct {
	Off      []Window
	Zone     *time.Location
	ZoneName string      // as the file wrote it, for messages
	Holidays []time.Time // midnight in Zone of each holiday
}

// Window is one weekly off window on each of Days: from From to To, or, when To is not after
// From, an overnight window that is off on each listed day before To and from From:
// "Mon-Fri 20:00-08:00" is off Monday 00:00–08:00, each weeknight 20:00–08:00 and Friday
// 20:00–24:00, so that with "Sat-Sun 00:00-24:00" the weekend runs from Friday night to
// Monday morning.
type Window struct {
	Days     [7]bool // by time.Weekday
	From, To int     // minutes after midnight; To may be 1440
	Text     string  // as written
}

var dayNames = []string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}

// ParseWindow reads "Mon-Fri 20:00-08:00", "Sat,Sun 00:00-24:00" or "daily 19:00-07:00".
func ParseWindow(s string) (Window, error) {
	w := Window{Text: strings.TrimSpace(s)}
	days, hours, ok := strings.Cut(w.Text, " ")
	if !ok {
		return w, fmt.Errorf("%q: write DAYS HH:MM-HH:MM, such as \"Mon-Fri 20:00-08:00\"", s)
	}
	if err := w.parseDays(days); err != nil {
		return w, err
	}
	from, to, ok := strings.Cut(strings.TrimSpace(hours), "-")
	var err error
	if !ok {
		return w, fmt.Errorf("%q: the hours must be FROM-TO, such as 20:00-08:00", s)
	}
	if w.From, err = clockMinutes(from); err != nil {
		return w, fmt.Errorf("%q: %w", s, err)
	}
	if w.To, err = clockMinutes(to); err != nil {
		return w, fmt.Errorf("%q: %w", s, err)
	}
	if w.From == w.To || w.From == 1440 {
		return w, fmt.Errorf("%q: the window is empty; write a start and an end that differ, 00:00-24:00 for a whole day", s)
	}
	return w, nil
}

func (w *Window) parseDays(days string) error {
	if strings.EqualFold(days, "daily") {
		w.Days = [7]bool{true, true, true, true, true, true, true}
		return nil
	}
	for _, part := range strings.Split(days, ",") {
		a, b, isRange := strings.Cut(part, "-")
		i, j := dayIndex(a), dayIndex(b)
		if !isRange {
			j = i
		}
		if i < 0 || j < 0 {
			return fmt.Errorf("%q: days are Mon, Tue, Wed, Thu, Fri, Sat, Sun, ranges such as Mon-Fri, lists such as Sat,Sun, or daily", days)
		}
		for d := i; ; d = (d + 1) % 7 {
			w.Days[d] = true
			if d == j {
				break
			}
		}
	}
	return nil
}

func dayIndex(s string) int {
	s = strings.ToLower(strings.TrimSpace(s))
	if len(s) < 3 {
		return -1
	}
	return slices.Index(dayNames, s[:3])
}

// clockMinutes reads HH:MM (00:00 to 24:00) as minutes after midnight.
func clockMinutes(s string) (int, error) {
	h, m, ok := strings.Cut(strings.TrimSpace(s), ":")
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if !ok || err1 != nil || err2 != nil || hh < 0 || hh > 24 || mm < 0 || mm > 59 || hh == 24 && mm > 0 {
		return 0, fmt.Errorf("%q is not a time of day; write HH:MM from 00:00 to 24:00", s)
	}
	return hh*60 + mm, nil
}

// At reports whether t falls in an off window or on a holiday, and when that stretch of off
// time ends (the first minute after t that is on), looking at most eight days ahead.
func (s Schedule) At(t time.Time) (off bool, until time.Time) {
	t = t.In(s.zone()).Truncate(time.Minute)
	if !s.offAt(t) {
		return false, time.Time{}
	}
	// Step to the next minute at which the state may change: window edges and midnights.
	for u := t; u.Sub(t) < 8*24*time.Hour; u = s.nextEdge(u) {
		if !s.offAt(u) {
			return true, u
		}
	}
	return true, time.Time{}
}

// offAt reports whether the minute at t (in Zone) is off.
func (s Schedule) offAt(t time.Time) bool {
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, s.zone())
	if slices.ContainsFunc(s.Holidays, func(h time.Time) bool { return h.Equal(day) }) {
		return true
	}
	min := t.Hour()*60 + t.Minute()
	today := t.Weekday()
	for _, w := range s.Off {
		if w.From < w.To {
			if w.Days[today] && min >= w.From && min < w.To {
				return true
			}
			continue
		}
		// Overnight: a listed day's early hours and its evening.
		if w.Days[today] && (min >= w.From || min < w.To) {
			return true
		}
	}
	return false
}

// nextEdge returns the next minute after t at which a window opens or closes, or midnight.
func (s Schedule) nextEdge(t time.Time) time.Time {
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, s.zone())
	next := day.AddDate(0, 0, 1)
	for _, w := range s.Off {
		for _, m := range []int{w.From, w.To} {
			e := day.Add(time.Duration(m) * time.Minute)
			if e.After(t) && e.Before(next) {
				next = e
			}
		}
	}
	return next
}

func (s Schedule) zone() *time.Location {
	if s.Zone == nil {
		return time.UTC
	}
	return s.Zone
}

// String is the schedule as people read it: "off Mon-Fri 20:00-08:00 Europe/Berlin, holidays 2026-12-25".
func (s Schedule) String() string {
	parts := make([]string, len(s.Off))
	for i, w := range s.Off {
		parts[i] = w.Text
	}
	out := "off " + strings.Join(parts, "; ") + " " + s.zone().String()
	if len(s.Holidays) > 0 {
		days := make([]string, len(s.Holidays))
		for i, h := range s.Holidays {
			days[i] = h.Format(time.DateOnly)
		}
		out += ", holidays " + strings.Join(days, ", ")
	}
	return out
}
