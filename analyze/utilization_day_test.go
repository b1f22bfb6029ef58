package analyze

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// TestAddDayIsAdd counts random days both ways, as day rollups (AddDay) and hour by hour (Add),
// and compares the reports field by field, floats by their shortest exact form: days all idle,
// all busy, mixed, idle in long stretches across hours and days, partly covered, with hours
// missing, of a time-sliced GPU and of a MIG instance, each grouping, with idle runs of
// several minimum lengths.
func TestAddDayIsAdd(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 5))
	start := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	const all = 1<<60 - 1
	shapes := []func(h int, stretch *[2]int) uint64{
		func(int, *[2]int) uint64 { return all },                               // all idle
		func(int, *[2]int) uint64 { return 0 },                                 // all busy
		func(int, *[2]int) uint64 { return rng.Uint64() & rng.Uint64() & all }, // mixed
		func(_ int, st *[2]int) uint64 { // idle stretches of 5 to 150 minutes
			var m uint64
			for b := range 60 {
				if st[1] == 0 {
					st[0], st[1] = 1-st[0], 5+rng.IntN(146)
				}
				m |= uint64(st[0]) << b
				st[1]--
			}
			return m
		},
	}
	var ss []*gpucost.Series
	for i := range 12 {
		ss = append(ss, &gpucost.Series{GPU: gpucost.GPU{UUID: fmt.Sprintf("GPU-%d", i), Host: fmt.Sprintf("node%d", i/4),
			Model: "NVIDIA A100-SXM4-80GB", Index: i % 4}, Labels: gpucost.Labels{"namespace": fmt.Sprintf("ns%d", i%3)}})
	}
	for _, pod := range []string{"a", "b"} {
		ss = append(ss, &gpucost.Series{GPU: gpucost.GPU{UUID: "GPU-shared", Host: "node9", Model: "NVIDIA A100-SXM4-80GB"},
			Labels: gpucost.Labels{gpucost.LabelGPUShare: gpucost.GPUShareSM, "namespace": "ns" + pod}})
	}
	ss = append(ss, &gpucost.Series{GPU: gpucost.GPU{UUID: "MIG-1", Host: "node0", Model: "NVIDIA A100-SXM4-80GB MIG 3g.40gb",
		Parent: "GPU-0", Profile: "3g.40gb"}, Labels: gpucost.Labels{"namespace": "ns0"}})

	type day struct {
		hours []gpucost.Rollup
		d     gpucost.DayRollup
	}
	var days []day // series by series, in time order
	for i, s := range ss {
		var st [2]int
		for dn := range 6 {
			var hours []gpucost.Rollup
			for h := range 24 {
				if i%5 == 1 && rng.IntN(6) == 0 {
					continue // an hour missing: the idle run breaks
				}
				cov := uint64(all)
				if rng.IntN(5) == 0 {
					cov &= rng.Uint64() | rng.Uint64()
				}
				n := 6 * bits.OnesCount64(cov)
				hist := make([]uint32, gpucost.HistBins)
				hist[rng.IntN(101)] = uint32(n)
				hours = append(hours, gpucost.Rollup{Series: s, Start: start.Add(time.Duration(24*dn+h) * time.Hour), Width: time.Hour,
					Samples: n, Coverage: cov, IdleMask: shapes[(i+dn)%len(shapes)](h, &st) & cov, UtilSum: rng.Float64() * 50 * float64(n),
					UtilHist: hist, UtilMax: rng.Float64() * 100, MemMaxMiB: float64(rng.IntN(80000)), MemTotalMiB: 81920,
					PowerSamples: n, PowerSum: rng.Float64() * 300 * float64(n), PowerMax: 400 * rng.Float64(), TempMaxC: math.NaN(),
					ProfSamples: n / 2, SMActiveSum: rng.Float64() * float64(n) / 2, SMOccupancySum: rng.Float64()})
			}
			if len(hours) == 0 {
				continue
			}
			d, err := gpucost.NewDayRollup(hours)
			if err != nil {
				t.Fatal(err)
			}
			days = append(days, day{hours, d})
		}
	}
	for _, by := range []GroupBy{{Kind: ByGPU}, {Kind: ByLabel, Label: gpucost.LabelNamespace}, {Kind: ByHost}} {
		for _, minIdle := range []time.Duration{time.Minute, 30 * time.Minute, 90 * time.Minute} {
			opts := Options{By: by, MinIdle: minIdle, IdleThreshold: 5, Price: priceAll(usd("3.06")),
				From: start, To: start.Add(6 * 24 * time.Hour)}
			byHour, byDay := NewUtilization(opts), NewUtilization(opts)
			for i := range days {
				for k := range days[i].hours {
					byHour.Add(&days[i].hours[k])
				}
				if !byDay.AddDay(&days[i].d) {
					t.Fatalf("AddDay(%s) = false for a day in the period", days[i].d.Day)
				}
			}
			got, want := fmt.Sprintf("%+v", byDay.Result()), fmt.Sprintf("%+v", byHour.Result())
			if got != want {
				t.Errorf("by %s, min idle %v: AddDay's report differs from Add's:\n%s", by, minIdle, firstDiff(got, want))
			}
		}
	}
}

// firstDiff shows where a and b first differ.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-200)
	return fmt.Sprintf("AddDay: …%s\nAdd:    …%s", a[lo:min(len(a), i+200)], b[lo:min(len(b), i+200)])
}
