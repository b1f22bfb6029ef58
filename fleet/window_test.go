package fleet

import (
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

func TestWindowResolve(t *testing.T) {
	now := time.Date(2026, 11, 27, 10, 33, 29, 0, time.UTC)
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	nowMin := now.Truncate(time.Minute)
	tests := []struct {
		name string
		w    Window
		want Period
	}{
		{"default look-back", Window{DefaultSince: "30d"}, Period{Start: nowMin.AddDate(0, 0, -30), End: nowMin}},
		{"nothing is everything", Window{}, Period{}},
		{"duration", Window{Since: "36h"}, Period{Start: nowMin.Add(-36 * time.Hour), End: nowMin}},
		{"weeks", Window{Since: "2w", DefaultSince: "7d"}, Period{Start: nowMin.AddDate(0, 0, -14), End: nowMin}},
		{"minutes", Window{Since: "90m"}, Period{Start: nowMin.Add(-90 * time.Minute), End: nowMin}},
		{"date to now", Window{Since: "2025-10-01", DefaultSince: "30d"}, Period{Start: day(2025, 10, 1), End: nowMin}},
		{"dates, the last day included", Window{Since: "2025-10-01", Until: "2025-10-31"}, Period{Start: day(2025, 10, 1), End: day(2025, 11, 1)}},
		{"one day", Window{Since: "2025-10-05", Until: "2025-10-05"}, Period{Start: day(2025, 10, 5), End: day(2025, 10, 6)}},
		{"leap day included", Window{Since: "2024-02-28", Until: "2024-02-29"}, Period{Start: day(2024, 2, 28), End: day(2024, 3, 1)}},
		{"year end", Window{Since: "2025-12-31", Until: "2025-12-31"}, Period{Start: day(2025, 12, 31), End: day(2026, 1, 1)}},
		{"duration back from --until", Window{Since: "7d", Until: "2025-10-31"}, Period{Start: day(2025, 10, 25), End: day(2025, 11, 1)}},
		{"RFC 3339 with an offset", Window{Since: "2025-10-01T02:00:00+02:00", Until: "2025-10-02T00:00:30Z"},
			Period{Start: day(2025, 10, 1), End: day(2025, 10, 2)}},
		{"until alone", Window{Until: "2025-10-31"}, Period{End: day(2025, 11, 1)}},
		{"month", Window{Month: "2025-10", DefaultSince: "30d"}, Period{Start: day(2025, 10, 1), End: day(2025, 11, 1), Billed: true}},
		{"leap February", Window{Month: "2024-02"}, Period{Start: day(2024, 2, 1), End: day(2024, 3, 1), Billed: true}},
		{"December", Window{Month: "2025-12"}, Period{Start: day(2025, 12, 1), End: day(2026, 1, 1), Billed: true}},
		{"this month so far", Window{Month: "2026-11"}, Period{Start: day(2026, 11, 1), End: nowMin, Billed: true}},
		{"fourth quarter", Window{Quarter: "2025Q4"}, Period{Start: day(2025, 10, 1), End: day(2026, 1, 1), Billed: true}},
		{"first quarter, dashed", Window{Quarter: "2026-Q1"}, Period{Start: day(2026, 1, 1), End: day(2026, 4, 1), Billed: true}},
		{"lower-case q", Window{Quarter: "2025q2"}, Period{Start: day(2025, 4, 1), End: day(2025, 7, 1), Billed: true}},
		{"this quarter so far", Window{Quarter: "2026Q4"}, Period{Start: day(2026, 10, 1), End: nowMin, Billed: true}},
	}
	for _, tt := range tests {
		got, err := tt.w.Resolve(now)
		if err != nil || got != tt.want {
			t.Errorf("%s: %+v.Resolve(%s) = %v to %v (billed %v), %v; want %v to %v (billed %v)", tt.name, tt.w, now.Format(time.RFC3339),
				got.Start, got.End, got.Billed, err, tt.want.Start, tt.want.End, tt.want.Billed)
		}
	}
}

func TestWindowRefusals(t *testing.T) {
	now := time.Date(2026, 11, 27, 10, 33, 0, 0, time.UTC)
	tests := []struct {
		name string
		w    Window
		want []string // in the message: the flag, the value and what to do
	}{
		{"words", Window{Since: "yesterday"}, []string{`--since "yesterday"`, "30d", "2025-10-01", "RFC 3339"}},
		{"negative", Window{Since: "-3d"}, []string{`--since "-3d"`, "a duration"}},
		{"zero", Window{Since: "0s"}, []string{`--since "0s"`}},
		{"overflow", Window{Since: "999999999d"}, []string{`--since "999999999d"`}},
		{"not a day", Window{Since: "2025-02-30"}, []string{`--since "2025-02-30"`, "a date (2025-10-01)"}},
		{"not a leap year", Window{Since: "2025-01-01", Until: "2025-02-29"}, []string{`--until "2025-02-29"`, "the whole day included"}},
		{"until a duration", Window{Until: "7d"}, []string{`--until "7d"`, "a date"}},
		{"backwards", Window{Since: "2025-11-01", Until: "2025-10-01"}, []string{"--since 2025-11-01", "not before the end", "earlier --since"}},
		{"future", Window{Since: "2027-01-01"}, []string{"--since 2027-01-01", "later --until"}},
		{"month and since", Window{Month: "2025-10", Since: "7d"}, []string{"--month 2025-10", "drop --since"}},
		{"quarter and until", Window{Quarter: "2025Q4", Until: "2025-12-01"}, []string{"--quarter 2025Q4", "drop --since and --until"}},
		{"month and quarter", Window{Month: "2025-10", Quarter: "2025Q4"}, []string{"--month 2025-10 and --quarter 2025Q4", "give one"}},
		{"month 13", Window{Month: "2025-13"}, []string{`--month "2025-13"`, "YYYY-MM"}},
		{"month as a date", Window{Month: "2025-10-01"}, []string{`--month "2025-10-01"`, "2025-10"}},
		{"month not begun", Window{Month: "2026-12"}, []string{"--month 2026-12 has not started", "2026-11-27"}},
		{"quarter 5", Window{Quarter: "2025Q5"}, []string{`--quarter "2025Q5"`, "YYYYQn or YYYY-Qn"}},
		{"quarter first", Window{Quarter: "Q4-2025"}, []string{`--quarter "Q4-2025"`}},
		{"quarter short year", Window{Quarter: "25Q4"}, []string{`--quarter "25Q4"`}},
		{"quarter not begun", Window{Quarter: "2027Q1"}, []string{"--quarter 2027Q1 has not started"}},
	}
	for _, tt := range tests {
		p, err := tt.w.Resolve(now)
		if err == nil {
			t.Errorf("%s: %+v.Resolve = %v to %v, want an error", tt.name, tt.w, p.Start, p.End)
			continue
		}
		if gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("%s: %+v.Resolve error %q is %s, want %s", tt.name, tt.w, err, gpucost.ErrorCode(err), gpucost.EInvalid)
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %+v.Resolve error %q does not say %q", tt.name, tt.w, err, w)
			}
		}
	}
}

func TestPeriodLabel(t *testing.T) {
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	for _, tt := range []struct {
		p    Period
		want string
	}{
		{Period{Start: day(2025, 10, 1), End: day(2025, 11, 1), Billed: true}, "2025-10"},
		{Period{Start: day(2025, 10, 1), End: day(2026, 1, 1), Billed: true}, "2025Q4"},
		{Period{Start: day(2025, 10, 1), End: day(2025, 11, 1)}, "2025-10-01 to 2025-10-31"},
		{Period{Start: day(2025, 10, 1), End: day(2025, 10, 2)}, "2025-10-01"},
		{Period{Start: day(2025, 11, 1), End: day(2025, 11, 27).Add(10*time.Hour + 33*time.Minute), Billed: true}, "2025-11-01 to 2025-11-27 10:33"},
	} {
		if got := tt.p.Label(); got != tt.want {
			t.Errorf("%v to %v (billed %v).Label() = %q, want %q", tt.p.Start, tt.p.End, tt.p.Billed, got, tt.want)
		}
	}
}

func TestPeriodLines(t *testing.T) {
	day := func(m time.Month, d int) time.Time { return time.Date(2025, m, d, 0, 0, 0, 0, time.UTC) }
	charged := Period{Start: day(10, 1), End: day(11, 1)}
	if got := charged.Lines(day(10, 8), day(10, 15)); got.From != day(10, 8) || got.To != day(10, 15) || !got.BilledFrom.IsZero() || !got.BilledTo.IsZero() {
		t.Errorf("Lines of a charged period = %+v, want charge dates only", got)
	}
	billed := charged
	billed.Billed = true
	for _, tt := range []struct {
		from, to, wantFrom, wantTo time.Time
	}{
		{day(10, 1), day(11, 1), time.Time{}, time.Time{}},
		{day(10, 1), day(10, 8), time.Time{}, day(10, 8)},
		{day(10, 8), day(10, 15), day(10, 8), day(10, 15)},
		{day(10, 29), day(11, 1), day(10, 29), time.Time{}},
	} {
		got := billed.Lines(tt.from, tt.to)
		if got.From != tt.wantFrom || got.To != tt.wantTo || got.BilledFrom != day(10, 1) || got.BilledTo != day(11, 1) {
			t.Errorf("billed Lines(%s, %s) = %+v; want charged from %v to %v, billed in October", tt.from, tt.to, got, tt.wantFrom, tt.wantTo)
		}
	}
}

// FuzzWindowResolve checks that any flags either resolve to a period that starts before it ends,
// or are refused with an EInvalid error that names a flag.
func FuzzWindowResolve(f *testing.F) {
	for _, s := range [][4]string{{"30d", "", "", ""}, {"2025-10-01", "2025-10-31", "", ""}, {"", "", "2025-10", ""},
		{"", "", "", "2025Q4"}, {"2025-10-01T00:00:00+05:30", "", "", ""}, {"1.5w", "", "", ""}, {"", "", "", "2025-q1"}} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	now := time.Date(2026, 11, 27, 10, 33, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, since, until, month, quarter string) {
		w := Window{Since: since, Until: until, Month: month, Quarter: quarter, DefaultSince: "30d"}
		p, err := w.Resolve(now)
		if err != nil {
			if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "--") {
				t.Fatalf("%+v.Resolve error %q (%s): want an EInvalid naming a flag", w, err, gpucost.ErrorCode(err))
			}
			return
		}
		if !p.Start.Before(p.End) || p.Billed != w.Billed() || p.Start.Location() != time.UTC || p.End.Location() != time.UTC {
			t.Fatalf("%+v.Resolve = %v to %v (billed %v): want a UTC period that starts before it ends", w, p.Start, p.End, p.Billed)
		}
	})
}
