package storeutil

import (
	"bytes"
	"math"
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
