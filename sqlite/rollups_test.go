package sqlite

// The cases every store passes (round trips, merges, filters, pruning, the telemetry.Writer) are
// in internal/storetest and run against SQLite by TestStoreSuite; these are SQLite's own: the
// series table's columns and the packed row codec.

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storetest"
)

// TestSeriesRow checks the series table's columns, first and last seen included (the suite's
// SeriesRecorded checks what a scan returns).
func TestSeriesRow(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	g := gpucost.GPU{UUID: "MIG-1", Host: "h", Model: "NVIDIA A100-SXM4-80GB", Index: 0, Parent: "GPU-9", Profile: "1g.10gb"}
	s := gpucost.NewSample(storetest.RollT0.Add(61*time.Second), g)
	s.Util, s.Labels = 30, gpucost.Labels{"pod": "a", "namespace": "n"}
	if _, err := db.WriteRollups(ctx, storetest.RollupsOf([]gpucost.Sample{s})); err != nil {
		t.Fatal(err)
	}
	var host, uuid, model, parent, profile, labels string
	var index int
	var first, last int64
	err := db.SQL().QueryRow(`SELECT host, uuid, model, parent, profile, gpu_index, labels, first_seen, last_seen FROM series`).
		Scan(&host, &uuid, &model, &parent, &profile, &index, &labels, &first, &last)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(host, uuid, model, parent, profile, index, labels, first, last)
	want := fmt.Sprint("h", "MIG-1", g.Model, "GPU-9", "1g.10gb", 0, "namespace=n,pod=a", storetest.RollT0.Unix(), storetest.RollT0.Add(time.Hour).Unix())
	if got != want {
		t.Errorf("series row = %s, want %s", got, want)
	}
	hours := storetest.ScanAll(t, db, time.Hour, gpucost.RollupFilter{})
	if len(hours) != 1 || hours[0].Series.GPU != g || hours[0].Series.Labels.String() != "namespace=n,pod=a" {
		t.Errorf("scanned series = %+v", hours)
	}
}

func TestCodecRoundTrip(t *testing.T) {
	s := &gpucost.Series{}
	hist := make([]uint32, histBins)
	hist[3], hist[50], hist[100] = 1, 300, 1<<31
	rs := []gpucost.Rollup{
		{Samples: 1, Coverage: 1, UtilSum: 12.5, UtilMax: 12.5, UtilP50: 12.5, UtilP95: 12.5,
			MemMaxMiB: math.NaN(), MemP95MiB: math.NaN(), MemTotalMiB: math.NaN(), PowerMax: math.NaN(), TempMaxC: math.NaN()},
		{Samples: 3600, Coverage: allSlots, UtilSum: 1e6 / 3, UtilMax: 100, UtilP50: 50, UtilP95: 100,
			MemMaxMiB: 81920, MemP95MiB: 81000, MemTotalMiB: 81920, PowerSamples: 3599, PowerSum: 1234567.891,
			PowerMax: 399.99, TempMaxC: 83, ProfSamples: 7, SMActiveSum: 0.1 + 0.2, SMOccupancySum: 3.25,
			GrEngineActiveSum: 1e-300, IdleMask: 1 << 59, IdleMinutes: 1, UtilHist: hist},
		{Samples: 5, Coverage: 0b11, UtilSum: 0, UtilMax: 0, UtilP50: math.Inf(1), UtilP95: -3,
			MemMaxMiB: 5, MemP95MiB: math.NaN(), MemTotalMiB: math.NaN(), PowerMax: math.NaN(), TempMaxC: -0.5,
			IdleMask: 0b11, IdleMinutes: 7, UtilHist: make([]uint32, histBins)},
	}
	var slots [60]gpucost.Rollup
	copy(slots[7:], rs[:1])
	copy(slots[20:], rs[1:2])
	copy(slots[59:], rs[2:])
	present := uint64(1)<<7 | 1<<20 | 1<<59
	for _, only := range []uint64{present, 1 << 20} { // several rollups, and one (constant columns)
		data := encodeRow(nil, slots[:], only)
		got, slotsSeen := decodeAll(t, data)
		var want []gpucost.Rollup
		for _, slot := range []int{7, 20, 59} {
			if only&(1<<slot) != 0 {
				want = append(want, slots[slot])
				want[len(want)-1].Series = s
			}
		}
		if len(slotsSeen) != len(want) || slotsSeen[len(slotsSeen)-1] != 59 && only == present {
			t.Errorf("slots %v, want those of %b", slotsSeen, only)
		}
		if d := storetest.DiffRollups(got, want); d != "" {
			t.Error(d)
		}
		for cut := range len(data) {
			if err := decodeRow(data[:cut], &rowBuf{}); err == nil {
				t.Errorf("decodeRow of the first %d of %d bytes succeeded", cut, len(data))
			}
		}
	}
}

// decodeAll decodes a row and returns copies of its rollups and their slots.
func decodeAll(t testing.TB, data []byte) ([]gpucost.Rollup, []int) {
	t.Helper()
	var rb rowBuf
	if err := decodeRow(data, &rb); err != nil {
		t.Fatal(err)
	}
	var rs []gpucost.Rollup
	var slots []int
	for k := range rb.n {
		r := rb.rs[k]
		r.Series = &gpucost.Series{}
		rs = append(rs, r)
		slots = append(slots, rb.slot[k])
	}
	return rs, slots
}

// FuzzDecodeRow feeds arbitrary bytes to the row decoder, which must not panic, and checks that
// whatever decodes re-encodes to a row that decodes to the same rollups.
func FuzzDecodeRow(f *testing.F) {
	hours := storetest.RollupsOf(storetest.FleetSamples(2, 2*time.Hour, 20*time.Second))
	for k := 0; k+24 <= len(hours); k += 24 {
		f.Add(encodeRow(nil, hours[k:k+24], 1<<24-1))
	}
	var one [60]gpucost.Rollup
	one[3] = hours[len(hours)-1]
	f.Add(encodeRow(nil, one[:], 1<<3))
	f.Add([]byte{1, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		var rb rowBuf
		if decodeRow(data, &rb) != nil {
			return
		}
		var slots [60]gpucost.Rollup
		var present uint64
		for k := range rb.n {
			slots[rb.slot[k]], present = rb.rs[k], present|1<<rb.slot[k]
		}
		again := encodeRow(nil, slots[:], present)
		got, _ := decodeAll(t, again)
		var want []gpucost.Rollup
		for k := range rb.n {
			r := rb.rs[k]
			r.Series = &gpucost.Series{}
			want = append(want, r)
		}
		if d := storetest.DiffRollups(got, want); d != "" {
			t.Fatalf("re-encoded row decodes differently: %s", d)
		}
	})
}
