package analyze

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
	_ "time/tzdata" // zones for TestIdlePatternZones on machines without a zoneinfo database

	"github.com/gpucost/gpucost"
)

// span is an idle period's place: minutes from t0 and length in minutes.
type span struct {
	from, minutes int
	open          bool
}

func TestIdlePeriods(t *testing.T) {
	nan := math.NaN()
	s := series("GPU-1", "node-a", "V100", gpucost.Labels{"pod": "nb-1"})
	tests := []struct {
		name    string
		rollups []*gpucost.Rollup
		want    []span
	}{
		{"across an hour boundary", hourRollups(s, t0, join(repeat(50, 30), repeat(0, 90), repeat(50, 60))),
			[]span{{30, 90, false}}},
		{"exactly the minimum", hourRollups(s, t0, join(repeat(50, 10), repeat(0, 30), repeat(50, 20))),
			[]span{{10, 30, false}}},
		{"one minute short", hourRollups(s, t0, join(repeat(50, 10), repeat(0, 29), repeat(50, 21))), nil},
		{"broken by a busy minute", hourRollups(s, t0, join(repeat(0, 40), []float64{50}, repeat(0, 19))),
			[]span{{0, 40, false}}},
		{"broken by an uncovered minute", hourRollups(s, t0, join(repeat(0, 35), []float64{nan}, repeat(0, 84))),
			[]span{{0, 35, false}, {36, 84, true}}},
		{"broken by a missing hour", append(hourRollups(s, t0, join(repeat(50, 30), repeat(0, 30))),
			hourRollups(s, t0.Add(2*time.Hour), join(repeat(0, 30), repeat(50, 30)))...),
			[]span{{30, 30, false}, {120, 30, false}}},
		{"several in one hour", hourRollups(s, t0, join(repeat(0, 30), repeat(50, 1), repeat(0, 29))),
			[]span{{0, 30, false}}},
		{"open at the end of the data", hourRollups(s, t0, join(repeat(50, 60), repeat(0, 180))),
			[]span{{60, 180, true}}},
		{"idle throughout", hourRollups(s, t0, repeat(0, 24*60)), []span{{0, 24 * 60, true}}},
		{"from minute rollups", minuteRollups(s, t0.Add(5*time.Minute), utilMinutes(join(repeat(0, 45), repeat(9, 1)))),
			[]span{{5, 45, false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewIdle(Options{Price: priceAll(usd("3.06"))})
			for _, r := range tt.rollups {
				d.Add(r)
			}
			rep := d.Result()
			var got []span
			for _, p := range rep.Periods {
				got = append(got, span{int(p.Start.Sub(t0) / time.Minute), int(p.Duration.D() / time.Minute), p.Open})
				if p.End.Sub(p.Start) != p.Duration.D() || p.Series.Labels["pod"] != "nb-1" || p.Series.GPU.UUID != "GPU-1" {
					t.Errorf("Idle(%s) period %+v: end, duration or series inconsistent", tt.name, p)
				}
				wantCost := costOf(usd("3.06"), int64(p.Duration.D()/time.Minute)*7)
				if !p.Priced || p.Cost != wantCost || p.GPUHours != p.Duration.D().Hours() {
					t.Errorf("Idle(%s) period at %v: cost %s, %v GPU-hours; want %s, %v",
						tt.name, p.Start, p.Cost.Decimal(), p.GPUHours, wantCost.Decimal(), p.Duration.D().Hours())
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Idle(%s).Periods = %+v, want %+v", tt.name, got, tt.want)
			}
		})
	}
}

func TestIdlePeriodCostAndMIG(t *testing.T) {
	whole := series("GPU-1", "h", "V100", nil)
	mig := migSeries("MIG-1", "GPU-2", "1g.10gb", nil)
	noPrice := series("GPU-3", "h", "Mystery", nil)
	price := func(s *gpucost.Series) (gpucost.Money, bool) { return usd("3.06"), s != noPrice }
	d := NewIdle(Options{Price: price, MinIdle: 60 * time.Minute})
	for _, rs := range [][]*gpucost.Rollup{
		hourRollups(whole, t0, join(repeat(0, 90), repeat(50, 30))),
		hourRollups(mig, t0, repeat(0, 70)),
		hourRollups(noPrice, t0, repeat(0, 60)),
	} {
		for _, r := range rs {
			d.Add(r)
		}
	}
	rep := d.Result()
	if len(rep.Periods) != 3 {
		t.Fatalf("Idle(3 series).Periods = %+v, want 3", rep.Periods)
	}
	wantMIG := costOf(usd("3.06"), 70) // 70 minutes × 1/7 GPU
	if p := rep.Periods[0]; p.Cost != usd("4.59") || p.GPUHours != 1.5 {
		t.Errorf("Idle(90 minutes at $3.06) = %s, %v GPU-hours; want 4.59, 1.5", p.Cost.Decimal(), p.GPUHours)
	}
	if p := rep.Periods[1]; p.Cost != wantMIG || math.Abs(p.GPUHours-70.0/60/7) > 1e-12 {
		t.Errorf("Idle(1g MIG, 70 minutes) = %s, %v GPU-hours; want %s, %v", p.Cost.Decimal(), p.GPUHours,
			wantMIG.Decimal(), 70.0/60/7)
	}
	if p := rep.Periods[2]; p.Priced || !p.Cost.IsZero() {
		t.Errorf("Idle(unpriced series) = %+v, want unpriced and no cost", p)
	}
	if want := usd("4.59").Add(wantMIG); rep.Cost != want || rep.Unpriced != 1 || rep.Currency != "USD" {
		t.Errorf("Idle(3 series) total = %s %s, %d unpriced; want USD %s, 1", rep.Currency, rep.Cost.Decimal(),
			rep.Unpriced, want.Decimal())
	}
}

// nightly returns days of hour rollups of s, idle from 19:00 to 08:00 UTC and busy otherwise.
func nightly(s *gpucost.Series, days int) []*gpucost.Rollup {
	var utils []float64
	for range days {
		utils = append(utils, join(repeat(0, 8*60), repeat(70, 11*60), repeat(0, 5*60))...)
	}
	return hourRollups(s, t0, utils)
}

func TestIdlePattern(t *testing.T) {
	tests := []struct {
		name     string
		loc      *time.Location
		from, to int
	}{
		{"UTC", time.UTC, 19, 8},
		{"whole-hour offset", time.FixedZone("UTC+2", 2*3600), 21, 10},
		// A half-hour offset splits each UTC hour over two local hours: 19:00–08:00 UTC is
		// 00:30–13:30 local, and only the hours wholly inside, 01:00–13:00, are fully idle.
		{"half-hour offset", time.FixedZone("UTC+5:30", 5*3600+1800), 1, 13},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewIdle(Options{Location: tt.loc})
			for _, r := range nightly(series("GPU-1", "h", "T4", nil), 14) {
				d.Add(r)
			}
			rep := d.Result()
			if len(rep.Patterns) != 1 {
				t.Fatalf("Idle(nightly).Patterns = %d, want 1", len(rep.Patterns))
			}
			p := rep.Patterns[0]
			if from, to, ok := p.DailyWindow(0.9); !ok || from != tt.from || to != tt.to {
				t.Errorf("DailyWindow(0.9) in %s = %d, %d, %v; want %d, %d, true", tt.loc, from, to, ok, tt.from, tt.to)
			}
			if got := p.IdleMinutes(); got != 14*13*60 {
				t.Errorf("IdleMinutes() = %d, want %d", got, 14*13*60)
			}
		})
	}
	d := NewIdle(Options{})
	for _, r := range nightly(series("GPU-1", "h", "T4", nil), 7) {
		d.Add(r)
	}
	p := d.Result().Patterns[0]
	if got := p.Share(time.Wednesday, 3); got != 1 {
		t.Errorf("Share(Wednesday, 03:00) = %v, want 1", got)
	}
	if got := p.Share(time.Wednesday, 12); got != 0 {
		t.Errorf("Share(Wednesday, 12:00) = %v, want 0", got)
	}
	var empty IdlePattern
	if got := empty.Share(time.Monday, 0); !math.IsNaN(got) {
		t.Errorf("IdlePattern{}.Share(Monday, 00:00) = %v, want NaN", got)
	}
}

func TestDailyWindow(t *testing.T) {
	grid := func(idleHours ...int) *IdlePattern {
		p := &IdlePattern{}
		for d := range 7 {
			for h := range 24 {
				p.Covered[d][h] = 60
			}
			for _, h := range idleHours {
				p.Idle[d][h] = 60
			}
		}
		return p
	}
	tests := []struct {
		name     string
		p        *IdlePattern
		from, to int
		ok       bool
	}{
		{"all day", grid(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23), 0, 24, true},
		{"never", grid(), 0, 0, false},
		{"until midnight", grid(20, 21, 22, 23), 20, 24, true},
		{"longest of two", grid(1, 2, 12, 13, 14), 12, 15, true},
		{"across midnight", grid(22, 23, 0, 1), 22, 2, true},
		{"uncovered hours do not count", &IdlePattern{}, 0, 0, false},
	}
	for _, tt := range tests {
		from, to, ok := tt.p.DailyWindow(0.9)
		if from != tt.from || to != tt.to || ok != tt.ok {
			t.Errorf("DailyWindow(%s) = %d, %d, %v; want %d, %d, %v", tt.name, from, to, ok, tt.from, tt.to, tt.ok)
		}
	}
}

// TestIdlePatternZones checks the pattern's cells against the time package, minute by minute,
// in zones with daylight saving and odd offsets, over a week that crosses a DST change.
func TestIdlePatternZones(t *testing.T) {
	start := time.Date(2025, 3, 5, 0, 0, 0, 0, time.UTC) // New York and London change in this fortnight
	for _, name := range []string{"UTC", "America/New_York", "Europe/London", "Asia/Kolkata", "Australia/Eucla"} {
		loc, err := time.LoadLocation(name)
		if err != nil {
			t.Fatalf("time.LoadLocation(%q): %v", name, err)
		}
		var utils []float64
		for m := range 24 * 60 * 28 {
			utils = append(utils, float64((m*7919)%97%20)) // idle when below 5: an irregular mix
		}
		d := NewIdle(Options{Location: loc})
		for _, r := range hourRollups(series("GPU-1", "h", "T4", nil), start, utils) {
			d.Add(r)
		}
		var want IdlePattern
		for m, u := range utils {
			lt := start.Add(time.Duration(m) * time.Minute).In(loc)
			want.Covered[lt.Weekday()][lt.Hour()]++
			if u < testIdleBelow {
				want.Idle[lt.Weekday()][lt.Hour()]++
			}
		}
		got := d.Result().Patterns[0]
		if got.Idle != want.Idle || got.Covered != want.Covered {
			t.Errorf("Idle(Location %s).Patterns[0] differs from time.Time.In: idle %v\nwant %v", name, got.Idle, want.Idle)
		}
	}
}

// TestIdlePeriodsMatchMinuteScan compares the bit-mask run finder with a plain minute-by-minute
// scan over random fleets: idle and busy stretches, uncovered minutes and missing hours.
func TestIdlePeriodsMatchMinuteScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		s := series(fmt.Sprintf("GPU-%d", trial), "h", "T4", nil)
		minIdle := 1 + rng.IntN(90)
		var utils []float64 // per minute; NaN uncovered
		for len(utils) < 48*60 {
			v := []float64{0, 1, 50, math.NaN()}[rng.IntN(4)]
			utils = append(utils, repeat(v, 1+rng.IntN(150))...)
		}
		utils = utils[:48*60]
		missing := map[int]bool{rng.IntN(48): true, rng.IntN(48): true} // hours with no rollup
		d := NewIdle(Options{MinIdle: time.Duration(minIdle) * time.Minute})
		for h := range 48 {
			if !missing[h] {
				d.Add(hour(s, t0.Add(time.Duration(h)*time.Hour), utils[h*60:h*60+60]...))
			}
		}
		var got, want []span
		for _, p := range d.Result().Periods {
			got = append(got, span{int(p.Start.Sub(t0) / time.Minute), int(p.Duration.D() / time.Minute), p.Open})
		}
		lastCovered := -1
		for m, u := range utils {
			if !missing[m/60] && !math.IsNaN(u) {
				lastCovered = m
			}
		}
		run := 0
		for m := 0; m <= len(utils); m++ {
			if m < len(utils) && !missing[m/60] && utils[m] < testIdleBelow {
				run++
				continue
			}
			if run >= minIdle {
				want = append(want, span{m - run, run, m-1 == lastCovered && lastIsRollupEnd(m, missing)})
			}
			run = 0
		}
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: Idle(MinIdle %dm).Periods = %+v\nwant %+v", trial, minIdle, got, want)
		}
	}
}

// lastIsRollupEnd reports whether minute m-1 was in the last rollup fed: no later hour has a
// rollup. A run open at the end of the data is one that reaches the last rollup's last minute.
func lastIsRollupEnd(m int, missing map[int]bool) bool {
	for h := (m-1)/60 + 1; h < 48; h++ {
		if !missing[h] {
			return false
		}
	}
	return m%60 == 0 || m == 48*60
}
