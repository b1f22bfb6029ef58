package analyze

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// covHour is an hour rollup of s covering the minutes of cov at a steady utilisation.
func covHour(s *gpucost.Series, start time.Time, cov uint64, util float64) *gpucost.Rollup {
	n := bits.OnesCount64(cov)
	return &gpucost.Rollup{Series: s, Start: start, Width: time.Hour, Coverage: cov, Samples: n, UtilSum: util * float64(n)}
}

// randomFleet returns the rollups of a random small fleet on hosts h0…h2: whole GPUs shared by up
// to 11 series (11 does not divide a minute's units), MIG instances, minute rollups, gaps.
func randomFleet(r *rand.Rand) []*gpucost.Rollup {
	var rs []*gpucost.Rollup
	profiles := []string{"1g.10gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"}
	for h := range 1 + r.IntN(3) {
		host := fmt.Sprintf("h%d", h)
		for g := range 1 + r.IntN(4) {
			uuid := fmt.Sprintf("GPU-%d-%d", h, g)
			var gpus []gpucost.GPU
			if r.IntN(3) == 0 {
				for i := range 1 + r.IntN(4) {
					gpus = append(gpus, gpucost.GPU{UUID: fmt.Sprintf("%s/%d", uuid, i), Host: host, Parent: uuid,
						Profile: profiles[r.IntN(len(profiles))]})
				}
			} else {
				gpus = append(gpus, gpucost.GPU{UUID: uuid, Host: host, Index: g})
			}
			for _, gpu := range gpus {
				users := 1 + r.IntN(3)
				if r.IntN(8) == 0 {
					users = 11
				}
				for u := range users {
					labels := gpucost.Labels{"namespace": fmt.Sprintf("ns%d", r.IntN(3)), "pod": fmt.Sprintf("p%d", u)}
					if r.IntN(4) == 0 {
						labels["team"] = "t" + fmt.Sprint(r.IntN(2))
					}
					rs = append(rs, randomRollups(r, &gpucost.Series{GPU: gpu, Labels: labels})...)
				}
			}
		}
	}
	return rs
}

func randomRollups(r *rand.Rand, s *gpucost.Series) []*gpucost.Rollup {
	var rs []*gpucost.Rollup
	for hr := range 6 {
		start := t0.Add(time.Duration(hr) * time.Hour)
		var cov uint64
		switch r.IntN(4) {
		case 0:
			continue
		case 1:
			cov = allMinutes
		default:
			cov = r.Uint64() & allMinutes
		}
		util := float64(r.IntN(101))
		if r.IntN(10) == 0 { // far from the rest: the index sorts such a host without counting
			start = start.Add(3000 * time.Hour)
		}
		if r.IntN(5) > 0 {
			rs = append(rs, covHour(s, start, cov, util))
			continue
		}
		for m := range 60 { // as minute rollups
			if cov&(1<<m) != 0 {
				rs = append(rs, &gpucost.Rollup{Series: s, Start: start.Add(time.Duration(m) * time.Minute),
					Width: time.Minute, Coverage: 1, Samples: 1, UtilSum: util})
			}
		}
	}
	return rs
}

// randomLine returns a cost line over part of the fleet's six hours, and the resource.
func randomLine(r *rand.Rand, billed, effective int64) (gpucost.CostLine, Resource) {
	start := t0.Add(time.Duration(r.IntN(8*60)-60) * time.Minute)
	if r.IntN(2) == 0 {
		start = start.Truncate(time.Hour)
	}
	l := gpucost.CostLine{ResourceID: "i-r", ChargePeriodStart: start,
		ChargePeriodEnd:  start.Add(time.Duration(r.IntN(10*60)) * time.Minute),
		BilledCost:       gpucost.Money{Nanos: billed, Currency: "USD"},
		EffectiveCost:    gpucost.Money{Nanos: effective, Currency: "USD"},
		ConsumedQuantity: float64(r.IntN(12)), ConsumedUnit: []string{"Hrs", "GB", ""}[r.IntN(3)]}
	if r.IntN(2) == 0 {
		l.Tags = gpucost.Labels{"team": "tagged"}
	}
	var res Resource
	for h := range 3 {
		if r.IntN(2) == 0 {
			res.Hosts = append(res.Hosts, fmt.Sprintf("h%d", h))
		}
	}
	res.GPUs = r.IntN(6)
	return l, res
}

// checkAllocateProperties allocates a random line over a random fleet and checks that the parts
// add up to the line's costs exactly, carry its sign, come sorted with one idle part, fit the
// capacity, and repeat whatever order the rollups came in.
func checkAllocateProperties(t *testing.T, seed uint64, billed, effective int64) {
	r := rand.New(rand.NewPCG(seed, 7))
	rs := randomFleet(r)
	line, res := randomLine(r, billed, effective)
	policy := []string{gpucost.PolicyRequested, gpucost.PolicyUsed, gpucost.PolicyWeighted}[r.IntN(3)]
	weight := []float64{0, 0.2, 1}[r.IntN(3)]
	run := func(rs []*gpucost.Rollup, batches int) ([]string, AllocStats) {
		a, err := NewAllocator(AllocOptions{Policy: policy, Weight: weight})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		var st AllocStats
		for b := range batches { // allocating between batches rebuilds the index
			for _, x := range rs[b*len(rs)/batches : (b+1)*len(rs)/batches] {
				a.AddRollup(x)
			}
			out = out[:0]
			st = a.Allocate(&line, res, func(al *gpucost.Allocation) {
				out = append(out, fmt.Sprintf("%+v %v %d %d %.9f %.9f", al.Owner, al.Idle, al.BilledCost.Nanos,
					al.EffectiveCost.Nanos, al.GPUHours, al.UsedGPUHours))
			})
		}
		return out, st
	}
	got, st := run(rs, 1)
	checkParts(t, seed, got, st, line)
	shuffled := slices.Clone(rs)
	r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	if again, st2 := run(shuffled, 3); !slices.Equal(got, again) || st != st2 {
		t.Errorf("seed %d: Allocate over shuffled rollups =\n  %s\nwant\n  %s", seed, strings.Join(again, "\n  "), strings.Join(got, "\n  "))
	}
}

func checkParts(t *testing.T, seed uint64, got []string, st AllocStats, line gpucost.CostLine) {
	var billed, effective int64
	var hours float64
	idle, prev := 0, ""
	for _, g := range got {
		var owner string
		var isIdle bool
		var b, e int64
		var h, u float64
		if i := strings.Index(g, "} "); i < 0 {
			t.Fatalf("seed %d: allocation %q", seed, g)
		} else if _, err := fmt.Sscanf(g[i+2:], "%t %d %d %g %g", &isIdle, &b, &e, &h, &u); err != nil {
			t.Fatalf("seed %d: allocation %q: %v", seed, g, err)
		} else {
			owner = g[:i+1]
		}
		billed, effective, hours = billed+b, effective+e, hours+h
		if b != 0 && (b < 0) != (line.BilledCost.Nanos < 0) || e != 0 && (e < 0) != (line.EffectiveCost.Nanos < 0) || h < 0 || u < 0 {
			t.Errorf("seed %d: part %q has another sign than the line's %d, %d", seed, g, line.BilledCost.Nanos, line.EffectiveCost.Nanos)
		}
		if isIdle {
			idle++
		} else if prev != "" && owner <= prev && st.Matched {
			t.Errorf("seed %d: owner %s after %s: not sorted or not merged", seed, owner, prev)
		}
		prev = owner
	}
	if billed != line.BilledCost.Nanos || effective != line.EffectiveCost.Nanos {
		t.Errorf("seed %d: parts add up to %d, %d; want %d, %d", seed, billed, effective, line.BilledCost.Nanos, line.EffectiveCost.Nanos)
	}
	if st.Matched && (idle != 1 || math.Abs(hours-st.CapacityGPUHours) > 1e-6 || st.HeldGPUHours > st.CapacityGPUHours+1e-9 ||
		st.UsedGPUHours > st.HeldGPUHours+1e-9) {
		t.Errorf("seed %d: %d idle parts, %v GPU-hours in parts; stats %+v", seed, idle, hours, st)
	}
	if !st.Matched && (len(got) != 1 || idle != 0) {
		t.Errorf("seed %d: without telemetry got %q, want one part by tags", seed, got)
	}
}

func TestAllocateProperties(t *testing.T) {
	amounts := []int64{0, 1, -1, 10_000_000, -7_000_000_000, 786_480_000_000, math.MaxInt64, math.MinInt64 + 1, math.MinInt64}
	for seed := range uint64(400) {
		checkAllocateProperties(t, seed, amounts[seed%uint64(len(amounts))], amounts[(seed/3)%uint64(len(amounts))])
	}
}

// FuzzAllocate checks the allocation properties over random fleets, lines and amounts.
func FuzzAllocate(f *testing.F) {
	f.Add(uint64(1), int64(10_000_000), int64(9_000_000))
	f.Add(uint64(2), int64(-7_000_000_000), int64(0))
	f.Add(uint64(3), int64(math.MaxInt64), int64(math.MinInt64))
	f.Fuzz(checkAllocateProperties)
}

func TestAllocateRollupForms(t *testing.T) {
	s := series("GPU-f", "node-f", "NVIDIA L4", pod("a", "b"))
	hourly := []*gpucost.Rollup{hour(s, t0, join(repeat(50, 20), repeat(math.NaN(), 40))...)}
	minutes := minuteRollups(s, t0, utilMinutes(repeat(50, 20)))
	// The same 20 minutes split in two imports, one of them twice.
	first, second := hour(s, t0, repeat(50, 10)...), hour(s, t0, join(repeat(math.NaN(), 10), repeat(50, 10))...)
	halves := []*gpucost.Rollup{first, second, first}
	other := []*gpucost.Rollup{{Series: s, Start: t0, Width: 24 * time.Hour, Coverage: 1, Samples: 1, UtilSum: 50},
		{Start: t0, Width: time.Hour, Coverage: 1, Samples: 1}}
	line := hourLine("3", t0)
	res := Resource{Hosts: []string{"node-f"}, GPUs: 1}
	want := []string{"ns=a,pod=b 0.5 0.1667", "idle() 2.5 0.8333"}
	checkAllocCases(t, []allocCase{
		{name: "hour", policy: gpucost.PolicyUsed, rollups: hourly, line: line, res: res, want: want,
			stats: AllocStats{Matched: true, HeldGPUHours: 1.0 / 3, UsedGPUHours: 1.0 / 6, CapacityGPUHours: 1}},
		{name: "minutes", policy: gpucost.PolicyUsed, rollups: minutes, line: line, res: res, want: want,
			stats: AllocStats{Matched: true, HeldGPUHours: 1.0 / 3, UsedGPUHours: 1.0 / 6, CapacityGPUHours: 1}},
		{name: "merged halves, a re-import not counted twice", policy: gpucost.PolicyUsed, rollups: halves, line: line, res: res,
			want: want, stats: AllocStats{Matched: true, HeldGPUHours: 1.0 / 3, UsedGPUHours: 1.0 / 6, CapacityGPUHours: 1}},
		{name: "other widths and no series are left out", policy: gpucost.PolicyUsed, rollups: other, line: line, res: res,
			want: []string{"- 3 1.0000"}, stats: AllocStats{CapacityGPUHours: 1}},
	})
}

func TestAllocateManySharers(t *testing.T) {
	// Eleven pods on one GPU for a minute: 17,640 units do not divide by 11, so the first pods
	// in key order get one unit more; the parts still fill the minute.
	var rs []*gpucost.Rollup
	for i := range 11 {
		rs = append(rs, covHour(series("GPU-m", "node-m", "NVIDIA T4", pod("ns", fmt.Sprintf("p%02d", i))), t0, 1, 100))
	}
	a, err := NewAllocator(AllocOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range slices.Backward(rs) {
		a.AddRollup(r)
	}
	line := hourLine("11", t0)
	var got []string
	st := a.Allocate(&line, Resource{Hosts: []string{"node-m"}, GPUs: 1}, func(al *gpucost.Allocation) {
		got = append(got, fmt.Sprintf("%s:%.0f", al.Owner.Pod, al.GPUHours*allocUnitsPerHour))
	})
	want := []string{"p00:1604", "p01:1604", "p02:1604", "p03:1604", "p04:1604", "p05:1604", "p06:1604", "p07:1603",
		"p08:1603", "p09:1603", "p10:1603", ":1040760"}
	if !slices.Equal(got, want) || st.HeldGPUHours != 1.0/60 {
		t.Errorf("Allocate(11 sharers) = %q, held %v; want %q, held 1/60", got, st.HeldGPUHours, want)
	}
}

func TestAllocatorReset(t *testing.T) {
	a, err := NewAllocator(AllocOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range node4() {
		a.AddRollup(r)
	}
	line := hourLine("4", t0)
	res := Resource{Hosts: []string{"node-4"}, GPUs: 4}
	if st := a.Allocate(&line, res, func(*gpucost.Allocation) {}); !st.Matched {
		t.Fatalf("Allocate before Reset: %+v, want matched", st)
	}
	a.Reset()
	if st := a.Allocate(&line, res, func(*gpucost.Allocation) {}); st.Matched {
		t.Errorf("Allocate after Reset: %+v, want no telemetry", st)
	}
	// A series whose *Series is reused for another series is told apart by its content.
	s := series("GPU-1", "node-4", "NVIDIA A10G", pod("x", "one"))
	a.AddRollup(hour(s, t0, repeat(50, 60)...))
	s.GPU.UUID, s.Labels = "GPU-2", pod("x", "two")
	a.AddRollup(hour(s, t0, repeat(50, 60)...))
	var got []string
	a.Allocate(&line, res, func(al *gpucost.Allocation) { got = append(got, allocString(al)) })
	want := []string{"ns=x,pod=one 1 1.0000", "ns=x,pod=two 1 1.0000", "idle() 2 2.0000"}
	if !slices.Equal(got, want) {
		t.Errorf("Allocate(reused *Series) = %q, want %q", got, want)
	}
}

func TestTelemetrySort(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	tel := telemetry{}
	for i := range 40 {
		tel.hot = append(tel.hot, seriesHot{instance: uint32(i % 7)})
	}
	for _, spread := range []int{3, 50, 100_000} { // counted, and sorted by comparison where hours lie far apart
		for range 50 {
			rs := make([]allocRollup, r.IntN(300))
			for i := range rs {
				rs[i] = allocRollup{cov: uint64(r.IntN(3)), samples: uint32(r.IntN(2)), series: uint32(r.IntN(40)),
					hour: int32(r.IntN(spread) - spread/2)}
			}
			want := slices.Clone(rs)
			slices.SortFunc(want, tel.compare)
			tel.sort(rs)
			if !slices.Equal(rs, want) {
				t.Fatalf("sort(%d rollups over %d hours) differs from a comparison sort", len(rs), spread)
			}
		}
	}
}
