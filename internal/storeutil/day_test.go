package storeutil

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// testDay is a day with a hole (hours 3 and 5 only), a whole hour and a part hour, fractional,
// negative-zero and NaN values, and a sparse histogram.
func testDay(t *testing.T) gpucost.DayRollup {
	t.Helper()
	s := &gpucost.Series{GPU: gpucost.GPU{Host: "h", UUID: "GPU-1"}}
	day := time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC)
	hist := make([]uint32, gpucost.HistBins)
	hist[0], hist[37], hist[100] = 10, 3, 7
	hours := []gpucost.Rollup{
		{Series: s, Start: day.Add(3 * time.Hour), Width: time.Hour, Samples: 3600, Coverage: 1<<60 - 1,
			UtilSum: 123456, UtilMax: 100, MemMaxMiB: 40000.5, MemP95MiB: 39000, MemTotalMiB: 81920,
			PowerSamples: 3600, PowerSum: 901234.25, PowerMax: 400.5, TempMaxC: math.NaN(),
			ProfSamples: 60, SMActiveSum: 12.375, SMOccupancySum: math.Copysign(0, -1), GrEngineActiveSum: 0.1,
			IdleMask: 0b1011, UtilHist: hist},
		{Series: s, Start: day.Add(5 * time.Hour), Width: time.Hour, Samples: 17, Coverage: 0b110,
			UtilSum: 0.3, UtilMax: 0.1, MemMaxMiB: math.NaN(), MemP95MiB: math.NaN(), MemTotalMiB: math.NaN(),
			PowerMax: math.NaN(), TempMaxC: 71, IdleMask: 0b110, UtilHist: []uint32{17}},
	}
	d, err := gpucost.NewDayRollup(hours)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestDayRoundTrip(t *testing.T) {
	d := testDay(t)
	b := AppendDay(nil, &d)
	var got gpucost.DayRollup
	if err := DecodeDay(b, &got); err != nil {
		t.Fatalf("DecodeDay(AppendDay(d)) = %v", err)
	}
	if again := AppendDay(nil, &got); !bytes.Equal(again, b) {
		t.Errorf("AppendDay(DecodeDay(b)) = %x, want %x", again, b)
	}
	if len(got.Hours) != 2 || got.Hours[0].Hour != 3 || got.Hours[1].Hour != 5 {
		t.Fatalf("decoded hours = %+v, want hours 3 and 5", got.Hours)
	}
	h := got.Hours[0]
	if h.Coverage != 1<<60-1 || h.IdleMask != 0b1011 || h.Samples != 3600 || h.PowerSum != 901234.25 ||
		h.SMActiveSum != 12.375 || !math.Signbit(h.SMOccupancySum) || h.GrEngineActiveSum != 0.1 {
		t.Errorf("decoded hour 3 = %+v", h)
	}
	if got.Hours[1].UtilSum != 0.3 || got.Hours[1].Coverage != 0b110 {
		t.Errorf("decoded hour 5 = %+v", got.Hours[1])
	}
	if got.UtilMax != 100 || got.MemMaxMiB != 40000.5 || got.TempMaxC != 71 || got.PowerMax != 400.5 {
		t.Errorf("decoded maxima = %v %v %v %v, want 100 40000.5 71 400.5", got.UtilMax, got.MemMaxMiB, got.TempMaxC, got.PowerMax)
	}
	if got.UtilHist[0] != 27 || got.UtilHist[37] != 3 || got.UtilHist[100] != 7 {
		t.Errorf("decoded histogram bins 0, 37, 100 = %d %d %d, want 27 3 7", got.UtilHist[0], got.UtilHist[37], got.UtilHist[100])
	}
}

func TestDayCorrupt(t *testing.T) {
	d := testDay(t)
	b := AppendDay(nil, &d)
	for n := range len(b) {
		var got gpucost.DayRollup
		if err := DecodeDay(b[:n], &got); err != ErrCorruptDay {
			t.Errorf("DecodeDay(first %d of %d bytes) = %v, want ErrCorruptDay", n, len(b), err)
		}
	}
	var got gpucost.DayRollup
	if err := DecodeDay(append(b, 0), &got); err != ErrCorruptDay {
		t.Errorf("DecodeDay(a byte too many) = %v, want ErrCorruptDay", err)
	}
}

func FuzzDecodeDay(f *testing.F) {
	d := gpucost.DayRollup{Hours: []gpucost.DayHour{{Hour: 1, Samples: 2, UtilSum: 0.5}}}
	f.Add(AppendDay(nil, &d))
	f.Fuzz(func(t *testing.T, b []byte) {
		var got gpucost.DayRollup
		if DecodeDay(b, &got) != nil {
			return
		}
		if again := AppendDay(nil, &got); !bytes.Equal(again, b) {
			t.Skip("a value has more than one encoding") // uvarints with padding bytes decode too
		}
	})
}

// TestDayColumns round-trips days whose columns take every mode — zero, one value, whole values
// of each width from 1 to 8 bytes, values not whole, −0, NaN and infinities — and checks every
// field bit for bit.
func TestDayColumns(t *testing.T) {
	s := &gpucost.Series{GPU: gpucost.GPU{Host: "h", UUID: "GPU-1"}}
	day := time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC)
	negZero := math.Copysign(0, -1)
	cases := map[string]func(h int) gpucost.Rollup{
		"same": func(h int) gpucost.Rollup {
			return gpucost.Rollup{Samples: 360, PowerSamples: 360, Coverage: 1<<60 - 1, IdleMask: 1<<60 - 1,
				UtilSum: 360, PowerSum: 12.5, SMActiveSum: negZero, SMOccupancySum: math.Inf(1), GrEngineActiveSum: math.NaN()}
		},
		"each": func(h int) gpucost.Rollup {
			return gpucost.Rollup{Samples: 1 << (2 * h), PowerSamples: h, ProfSamples: 1 << (h + 39), Coverage: uint64(h) << 50,
				IdleMask: 1<<uint(h) | 1<<63, UtilSum: float64(uint64(1) << (2 * h)), PowerSum: float64(h) + 0.25,
				SMActiveSum: float64(h * 7), SMOccupancySum: float64(h%3) - 1, GrEngineActiveSum: float64(uint64(1)<<51) + float64(h)}
		},
		"whole but one": func(h int) gpucost.Rollup {
			v := float64(h * 1000)
			if h == 23 {
				v = negZero
			}
			return gpucost.Rollup{Samples: 6 * h, Coverage: 1<<60 - 1, UtilSum: v, PowerSum: float64(1 << 52), SMActiveSum: float64(h % 2)}
		},
	}
	for name, hour := range cases {
		for _, hours := range [][]int{{0}, {7, 8}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}} {
			var rs []gpucost.Rollup
			for _, h := range hours {
				r := hour(h)
				r.Series, r.Start, r.Width = s, day.Add(time.Duration(h)*time.Hour), time.Hour
				hist := make([]uint32, gpucost.HistBins)
				hist[h], hist[100-h] = uint32(1+h*1000), 3
				r.UtilHist, r.UtilMax, r.TempMaxC = hist, float64(h), math.NaN()
				rs = append(rs, r)
			}
			want, err := gpucost.NewDayRollup(rs)
			if err != nil {
				t.Fatal(err)
			}
			b := AppendDay(nil, &want)
			var got gpucost.DayRollup
			if err := DecodeDay(b, &got); err != nil {
				t.Fatalf("%s, hours %v: DecodeDay(AppendDay(d)) = %v", name, hours, err)
			}
			if len(got.Hours) != len(want.Hours) {
				t.Fatalf("%s, hours %v: decoded %d hours, want %d", name, hours, len(got.Hours), len(want.Hours))
			}
			for i := range want.Hours {
				g, w := got.Hours[i], want.Hours[i]
				for _, f := range []func(h *gpucost.DayHour) float64{
					func(h *gpucost.DayHour) float64 { return h.UtilSum }, func(h *gpucost.DayHour) float64 { return h.PowerSum },
					func(h *gpucost.DayHour) float64 { return h.SMActiveSum }, func(h *gpucost.DayHour) float64 { return h.SMOccupancySum },
					func(h *gpucost.DayHour) float64 { return h.GrEngineActiveSum },
				} {
					if math.Float64bits(f(&g)) != math.Float64bits(f(&w)) {
						t.Errorf("%s, hours %v: hour %d decoded %+v, want %+v", name, hours, w.Hour, g, w)
					}
				}
				g.UtilSum, g.PowerSum, g.SMActiveSum, g.SMOccupancySum, g.GrEngineActiveSum = 0, 0, 0, 0, 0
				w.UtilSum, w.PowerSum, w.SMActiveSum, w.SMOccupancySum, w.GrEngineActiveSum = 0, 0, 0, 0, 0
				if g != w {
					t.Errorf("%s, hours %v: hour %d decoded %+v, want %+v", name, hours, w.Hour, g, w)
				}
			}
			if got.UtilHist != want.UtilHist || math.Float64bits(got.UtilMax) != math.Float64bits(want.UtilMax) ||
				!math.IsNaN(got.TempMaxC) {
				t.Errorf("%s, hours %v: decoded histogram and maxima differ", name, hours)
			}
			if again := AppendDay(nil, &got); !bytes.Equal(again, b) {
				t.Errorf("%s, hours %v: AppendDay(DecodeDay(b)) = %x, want %x", name, hours, again, b)
			}
			for n := range len(b) {
				if err := DecodeDay(b[:n], &got); err != ErrCorruptDay {
					t.Errorf("%s, hours %v: DecodeDay(first %d of %d bytes) = %v, want ErrCorruptDay", name, hours, n, len(b), err)
				}
			}
		}
	}
}

// BenchmarkDecodeDay decodes days like those of a serving GPU in sqlitetest.HourFleet: 24 whole
// hours, some minutes idle, sums of whole percents, fractional power sums, 26 histogram bins.
//
//	go test ./internal/storeutil -run XXX -bench DecodeDay
func BenchmarkDecodeDay(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 9))
	s := &gpucost.Series{GPU: gpucost.GPU{Host: "h", UUID: "GPU-1"}}
	day := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	var rows [][]byte
	for range 64 {
		var hours []gpucost.Rollup
		for h := range 24 {
			hist := make([]uint32, gpucost.HistBins)
			for range 26 {
				hist[10+rng.IntN(26)] += uint32(1 + rng.IntN(30))
			}
			hours = append(hours, gpucost.Rollup{Series: s, Start: day.Add(time.Duration(h) * time.Hour), Width: time.Hour,
				Samples: 360, PowerSamples: 360, Coverage: 1<<60 - 1, IdleMask: rng.Uint64() & rng.Uint64() & (1<<60 - 1),
				UtilSum: float64(5000 + rng.IntN(4000)), PowerSum: float64(60000+rng.IntN(9000000)) / 100 * 1.0001,
				UtilHist: hist, UtilMax: 35, MemMaxMiB: 2048, MemTotalMiB: 81920, PowerMax: 390.5, TempMaxC: 77})
		}
		d, err := gpucost.NewDayRollup(hours)
		if err != nil {
			b.Fatal(err)
		}
		rows = append(rows, AppendDay(nil, &d))
	}
	var d gpucost.DayRollup
	for i := 0; b.Loop(); i++ {
		if err := DecodeDay(rows[i%len(rows)], &d); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(rows[0])), "bytes/day")
}
