package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storeutil"
)

// RunDays runs the cases of gpucost.DayStore: the day rows a store keeps are the days of the
// hour rows it holds, however the hours were written.
func RunDays(t *testing.T, open Open) {
	for _, c := range []struct {
		name string
		fn   func(*testing.T, Open)
	}{
		{"MatchHours", testDaysMatchHours},
		{"MatchMergedHours", testDaysMatchMergedHours},
		{"WholeDaysOfFilter", testDaysOfFilter},
		{"HoursByDay", testHoursByDay},
		{"HoursByDayRuns", testHoursByDayRuns},
	} {
		t.Run(c.name, func(t *testing.T) { c.fn(t, open) })
	}
}

// dayStore opens a store and returns it as a DayStore.
func dayStore(t *testing.T, open Open) gpucost.Store {
	t.Helper()
	db := open(t)
	if _, ok := db.(gpucost.DayStore); !ok {
		t.Fatalf("%T is not a gpucost.DayStore", db)
	}
	return db
}

// CheckDays fails t unless db's days in f are the days of its hours, encoded alike, in the same
// order; it returns how many days it compared.
func CheckDays(t testing.TB, db gpucost.Store, f gpucost.RollupFilter) int {
	t.Helper()
	want := HourDays(t, db, f)
	var got []string
	err := db.(gpucost.DayStore).ScanDays(context.Background(), f, func(d *gpucost.DayRollup) error {
		got = append(got, dayString(d))
		return nil
	})
	if err != nil {
		t.Fatalf("ScanDays(%+v) = %v", f, err)
	}
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Fatalf("ScanDays(%+v): day %d of %d (want %d) = %s, want %s", f, i, len(got), len(want), g, w)
		}
	}
	return len(got)
}

// HourDays returns, as CheckDays compares them, the days that db's hour rollups make of
// whole days in f.
func HourDays(t testing.TB, db gpucost.RollupStore, f gpucost.RollupFilter) []string {
	t.Helper()
	var out []string
	var day []gpucost.Rollup
	flush := func() {
		if len(day) == 0 {
			return
		}
		d, err := gpucost.NewDayRollup(day)
		if err != nil {
			t.Fatal(err)
		}
		if (f.From.IsZero() || !d.Day.Before(f.From)) && (f.To.IsZero() || !d.Day.Add(24*time.Hour).After(f.To)) {
			out = append(out, dayString(&d))
		}
		day = day[:0]
	}
	for _, r := range ScanAll(t, db, time.Hour, f) {
		if len(day) > 0 && (r.Series.Key() != day[0].Series.Key() || !r.Start.Truncate(24*time.Hour).Equal(day[0].Start.Truncate(24*time.Hour))) {
			flush()
		}
		if len(day) > 0 {
			r.Series = day[0].Series
		}
		day = append(day, r)
	}
	flush()
	return out
}

func dayString(d *gpucost.DayRollup) string {
	return fmt.Sprintf("%s %s %x", d.Series.Key(), d.Day.Format(time.DateOnly), storeutil.AppendDay(nil, d))
}

func testDaysMatchHours(t *testing.T, open Open) {
	db := dayStore(t, open)
	samples := FleetSamples(6, 30*time.Hour, 20*time.Second)
	if _, err := db.WriteRollups(context.Background(), RollupsOf(samples)); err != nil {
		t.Fatal(err)
	}
	if n := CheckDays(t, db, gpucost.RollupFilter{}); n != 18 {
		t.Errorf("compared %d days, want 18 (6 GPUs × 3 days)", n)
	}
}

// testDaysMatchMergedHours writes a fleet in parts that merge: the first half of each minute's
// seconds, then the rest (their hours merge by gpucost.MergeHours), then a stretch again
// (unchanged), then a GPU's later hours alone.
func testDaysMatchMergedHours(t *testing.T, open Open) {
	ctx := context.Background()
	db := dayStore(t, open)
	samples := FleetSamples(4, 27*time.Hour, 15*time.Second)
	var early, late []gpucost.Sample
	for _, s := range samples {
		if s.Time.Second() < 30 {
			early = append(early, s)
		} else {
			late = append(late, s)
		}
	}
	for i, part := range [][]gpucost.Sample{early, late, late[:len(late)/3]} {
		if _, err := db.WriteRollups(ctx, RollupsOf(part)); err != nil {
			t.Fatal(err)
		}
		CheckDays(t, db, gpucost.RollupFilter{})
		if t.Failed() {
			t.Fatalf("after write %d", i)
		}
	}
	more := FleetSamples(1, 40*time.Hour, time.Minute)
	if _, err := db.WriteRollups(ctx, RollupsOf(more[27*60:])); err != nil {
		t.Fatal(err)
	}
	CheckDays(t, db, gpucost.RollupFilter{})
}

func testDaysOfFilter(t *testing.T, open Open) {
	db := dayStore(t, open)
	samples := FleetSamples(4, 60*time.Hour, time.Minute)
	if _, err := db.WriteRollups(context.Background(), RollupsOf(samples)); err != nil {
		t.Fatal(err)
	}
	midnight := RollT0.Add(2 * time.Hour)
	for _, tc := range []struct {
		name string
		f    gpucost.RollupFilter
		want int
	}{
		{"open", gpucost.RollupFilter{}, 16},
		{"cut mid-day", gpucost.RollupFilter{From: RollT0.Add(time.Hour), To: midnight.Add(36 * time.Hour)}, 4},
		{"day bounds", gpucost.RollupFilter{From: midnight, To: midnight.Add(48 * time.Hour)}, 8},
		{"a nanosecond late", gpucost.RollupFilter{From: midnight.Add(1), To: midnight.Add(48 * time.Hour)}, 4},
		{"less than a day", gpucost.RollupFilter{From: midnight.Add(time.Hour), To: midnight.Add(23 * time.Hour)}, 0},
		{"one host", gpucost.RollupFilter{Hosts: []string{"host1"}}, 8},
	} {
		if n := CheckDays(t, db, tc.f); n != tc.want {
			t.Errorf("%s: ScanDays gave %d days, want %d", tc.name, n, tc.want)
		}
	}
}

// testHoursByDay checks that ScanHoursByDay gives what ScanRollups does, each whole day of the
// filter and the whole range as its day.
func testHoursByDay(t *testing.T, open Open) {
	db := dayStore(t, open)
	samples := FleetSamples(4, 75*time.Hour, 2*time.Minute)
	if _, err := db.WriteRollups(context.Background(), RollupsOf(samples)); err != nil {
		t.Fatal(err)
	}
	midnight := RollT0.Add(2 * time.Hour)
	for _, tc := range []struct {
		name      string
		f         gpucost.RollupFilter
		from, to  time.Time
		days, hrs int
	}{
		{"open", gpucost.RollupFilter{}, time.Time{}, time.Time{}, 20, 0},
		{"no whole day", gpucost.RollupFilter{}, midnight.Add(time.Hour), midnight.Add(24 * time.Hour), 0, 4 * 75},
		{"cut mid-day", gpucost.RollupFilter{From: RollT0.Add(time.Hour), To: midnight.Add(60 * time.Hour)},
			time.Time{}, time.Time{}, 8, 4 * (1 + 12)},
		{"whole range narrower", gpucost.RollupFilter{From: RollT0, To: midnight.Add(72 * time.Hour)},
			midnight.Add(24 * time.Hour), midnight.Add(48 * time.Hour), 4, 4 * (2 + 48)},
		{"one GPU", gpucost.RollupFilter{GPUs: []string{"GPU-0001"}}, time.Time{}, time.Time{}, 5, 0},
	} {
		checkHoursByDay(t, db, tc.name, tc.f, tc.from, tc.to, tc.days, tc.hrs)
	}
}

// testHoursByDayRuns checks ScanHoursByDay where some series lie wholly in the whole days and
// their neighbours do not (a store may read such a run of series at once): host0's three GPUs
// and GPU-0003 hold only the two whole days from midnight, the others an hour more each side.
func testHoursByDayRuns(t *testing.T, open Open) {
	db := dayStore(t, open)
	midnight := RollT0.Add(2 * time.Hour)
	var samples []gpucost.Sample
	for _, s := range FleetSamples(6, 75*time.Hour, 2*time.Minute) {
		whole := s.GPU.Host == "host0" || s.GPU.UUID == "GPU-0003"
		if !whole && (s.Time.Before(midnight.Add(-time.Hour)) || !s.Time.Before(midnight.Add(49*time.Hour))) ||
			whole && (s.Time.Before(midnight) || !s.Time.Before(midnight.Add(48*time.Hour))) {
			continue
		}
		samples = append(samples, s)
	}
	if _, err := db.WriteRollups(context.Background(), RollupsOf(samples)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		f         gpucost.RollupFilter
		from, to  time.Time
		days, hrs int
	}{
		{"open", gpucost.RollupFilter{}, time.Time{}, time.Time{}, 16, 0},
		{"the two days", gpucost.RollupFilter{From: midnight, To: midnight.Add(48 * time.Hour)}, time.Time{}, time.Time{}, 12, 0},
		{"a day", gpucost.RollupFilter{}, midnight.Add(24 * time.Hour), midnight.Add(48 * time.Hour), 6, 4*24 + 2*26},
		{"host0", gpucost.RollupFilter{Hosts: []string{"host0"}}, time.Time{}, time.Time{}, 6, 0},
	} {
		checkHoursByDay(t, db, tc.name, tc.f, tc.from, tc.to, tc.days, tc.hrs)
	}
}

// byDay returns what ScanHoursByDay(f, from, to) should give, made from the hours ScanRollups
// gives, and how many days and hours it is.
func byDay(t *testing.T, db gpucost.Store, f gpucost.RollupFilter, from, to time.Time) (out []string, days, hours int) {
	whole := func(day time.Time) bool {
		end := day.Add(24 * time.Hour)
		in := func(lo, hi time.Time) bool {
			return (lo.IsZero() || !day.Before(lo)) && (hi.IsZero() || !end.After(hi))
		}
		return in(f.From, f.To) && in(from, to)
	}
	var group []gpucost.Rollup
	flush := func() {
		if len(group) > 0 {
			d, err := gpucost.NewDayRollup(group)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, dayString(&d))
			days++
		}
		group = group[:0]
	}
	for _, r := range ScanAll(t, db, time.Hour, f) {
		day := r.Start.Truncate(24 * time.Hour)
		if len(group) > 0 && (r.Series.Key() != group[0].Series.Key() || !day.Equal(group[0].Start.Truncate(24*time.Hour))) {
			flush()
		}
		if !whole(day) {
			flush()
			out = append(out, hourString(&r))
			hours++
			continue
		}
		if len(group) > 0 {
			r.Series = group[0].Series
		}
		group = append(group, r)
	}
	flush()
	return out, days, hours
}

func hourString(r *gpucost.Rollup) string {
	c := *r
	c.Series = nil
	return fmt.Sprintf("%s %s %+v", r.Series.Key(), r.Start.Format(time.RFC3339), c)
}

// checkHoursByDay checks that ScanHoursByDay gives, for f between from and to, days day rows
// and hrs hours, and the same rollups, in the same order, as the stored hours make (byDay).
func checkHoursByDay(t *testing.T, db gpucost.Store, name string, f gpucost.RollupFilter, from, to time.Time, days, hrs int) {
	t.Helper()
	want, wd, wh := byDay(t, db, f, from, to)
	var got []string
	gd, gh := 0, 0
	err := db.(gpucost.DayStore).ScanHoursByDay(context.Background(), f, from, to,
		func(r *gpucost.Rollup) error {
			gh++
			got = append(got, hourString(r))
			return nil
		}, func(d *gpucost.DayRollup) error {
			gd++
			got = append(got, dayString(d))
			return nil
		})
	if err != nil {
		t.Fatalf("%s: ScanHoursByDay = %v", name, err)
	}
	if gd != days || wd != days || gh != hrs || wh != hrs {
		t.Errorf("%s: ScanHoursByDay gave %d days and %d hours (want %d and %d; the hours make %d and %d)",
			name, gd, gh, days, hrs, wd, wh)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s: ScanHoursByDay gave\n%s\nwant\n%s", name, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
