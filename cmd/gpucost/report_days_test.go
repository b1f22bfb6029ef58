package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/sqlite"
)

// daysEnd is where the day-path fleet's telemetry ends, 7 hours before it; the commands' clock.
var daysEnd = time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)

// hoursOnly hides the store's day rollups: the reports read every hour, as before day rows.
type hoursOnly struct{ gpucost.Store }

// countDays counts the day rollups a report reads through the store's day path.
type countDays struct {
	gpucost.Store
	ds   gpucost.DayStore
	days *atomic.Int64
}

func (c countDays) ScanDays(ctx context.Context, f gpucost.RollupFilter, fn func(*gpucost.DayRollup) error) error {
	return c.ds.ScanDays(ctx, f, fn)
}

func (c countDays) ScanHoursByDay(ctx context.Context, f gpucost.RollupFilter, from, to time.Time,
	hour func(*gpucost.Rollup) error, day func(*gpucost.DayRollup) error) error {
	return c.ds.ScanHoursByDay(ctx, f, from, to, hour, func(d *gpucost.DayRollup) error {
		c.days.Add(1)
		return day(d)
	})
}

// TestReportsDayPathIsHourPath runs report utilization and report cost over a fleet with every
// shape a day row must get right — periods cut mid-day, bill lines of half a day, time-sliced
// series, MIG instances, GPUs that appear and disappear mid-day, partly covered hours — once
// reading whole days as day rows and once every hour, and compares what they print byte for
// byte (docs/architecture.md "Speed of the reports").
func TestReportsDayPathIsHourPath(t *testing.T) {
	db := filepath.Join(t.TempDir(), "gpucost.db")
	writeDaysFleet(t, db)
	periods := [][]string{
		{"--since", "2026-02-26", "--until", "2026-03-01"},
		{"--since", "2026-02-26T05:30:00Z", "--until", "2026-03-01T13:00:00Z"},
		{"--since", "2026-02-27T00:00:00Z", "--until", "2026-02-28T00:00:00Z"},
		{"--since", "3d"},
		{"--since", "2026-02-25T23:59:00Z", "--until", "2026-03-02T00:00:00Z"},
	}
	var cmds [][]string
	for _, p := range periods {
		for _, by := range []string{"gpu", "host", "model", "namespace", "pod", "label:team"} {
			for _, o := range []string{"table", "json"} {
				cmds = append(cmds, append([]string{"report", "utilization", "--by", by, "-o", o}, p...))
			}
		}
		cmds = append(cmds, append([]string{"report", "utilization", "--by", "namespace", "-o", "csv", "--wide"}, p...))
		for _, by := range []string{"team", "namespace", "pod", "resource", "gpu-model"} {
			for _, o := range []string{"table", "json"} {
				cmds = append(cmds, append([]string{"report", "cost", "--by", by, "-o", o}, p...))
			}
		}
	}
	var days atomic.Int64
	for _, args := range cmds {
		before := days.Load()
		dayCode, dayOut, dayErr := runOn(t, db, func(s storeDB) storeDB { return countDays{s, s.(gpucost.DayStore), &days} }, args)
		hourCode, hourOut, hourErr := runOn(t, db, func(s storeDB) storeDB { return hoursOnly{s} }, args)
		name := strings.Join(args, " ")
		if dayCode != 0 || hourCode != 0 {
			t.Errorf("gpucost %s: exit %d by day (%s), %d by hour (%s); want 0", name, dayCode, dayErr, hourCode, hourErr)
			continue
		}
		if dayOut != hourOut || dayErr != hourErr {
			t.Errorf("gpucost %s: by day and by hour differ:\n%s", name, dayHourDiff(dayOut+dayErr, hourOut+hourErr))
		}
		if args[1] == "utilization" && args[6] != "2026-02-26T05:30:00Z" && days.Load() == before {
			t.Errorf("gpucost %s read no day rollup: the day path was not taken", name)
		}
	}
	if days.Load() == 0 {
		t.Fatal("no report read a day rollup")
	}
}

// runOn runs gpucost on the store at db, as wrap makes it, at daysEnd.
func runOn(t *testing.T, db string, wrap func(storeDB) storeDB, args []string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, now: func() time.Time { return daysEnd },
		getenv: func(string) string { return "" }, wrapStore: wrap}
	code := run(context.Background(), append([]string{"--db", db}, args...), e)
	return code, out.String(), errb.String()
}

// dayHourDiff shows where a and b first differ.
func dayHourDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-300)
	return fmt.Sprintf("by day:  …%s\nby hour: …%s", a[lo:min(len(a), i+200)], b[lo:min(len(b), i+200)])
}

// writeDaysFleet writes the fleet of TestReportsDayPathIsHourPath into a new store at path: 4
// days and 12 hours of hourly telemetry ending 7 hours before daysEnd, and its bill.
func writeDaysFleet(t *testing.T, path string) {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rng := rand.New(rand.NewPCG(21, 5))
	first, last := daysEnd.Add(-4*24*time.Hour-5*time.Hour), daysEnd.Add(-7*time.Hour)
	var rs []gpucost.Rollup
	add := func(s *gpucost.Series, from, to time.Time, center float64) {
		for at := from; at.Before(to); at = at.Add(time.Hour) {
			rs = append(rs, dayFleetHour(rng, s, at, center))
		}
	}
	for i := range 12 {
		s := &gpucost.Series{GPU: gpucost.GPU{UUID: fmt.Sprintf("GPU-%02d", i), Host: fmt.Sprintf("node%d", i/4),
			Model: "NVIDIA A100-SXM4-80GB", Index: i % 4},
			Labels: gpucost.Labels{"namespace": fmt.Sprintf("ns%d", i%3), "pod": fmt.Sprintf("pod-%d", i/2), "team": fmt.Sprintf("t%d", i%2)}}
		add(s, first, last, []float64{0.5, 22.25, 93.7}[i%3])
	}
	// A GPU that appears in the afternoon and goes the next morning, and one that goes mid-day.
	late := &gpucost.Series{GPU: gpucost.GPU{UUID: "GPU-late", Host: "node1", Model: "NVIDIA A100-SXM4-80GB", Index: 7},
		Labels: gpucost.Labels{"namespace": "ns1", "pod": "late"}}
	add(late, daysEnd.Add(-3*24*time.Hour+13*time.Hour), daysEnd.Add(-2*24*time.Hour+7*time.Hour), 40)
	gone := &gpucost.Series{GPU: gpucost.GPU{UUID: "GPU-gone", Host: "node3", Model: "NVIDIA H100 80GB HBM3", Index: 0},
		Labels: gpucost.Labels{"namespace": "ns2", "pod": "gone"}}
	add(gone, first, daysEnd.Add(-2*24*time.Hour+11*time.Hour), 60)
	// Two workloads time-slicing one GPU, and a MIG instance.
	for _, pod := range []string{"a", "b"} {
		s := &gpucost.Series{GPU: gpucost.GPU{UUID: "GPU-shared", Host: "node2", Model: "NVIDIA A100-SXM4-80GB", Index: 5},
			Labels: gpucost.Labels{gpucost.LabelGPUShare: gpucost.GPUShareSM, "namespace": "ns" + pod, "pod": "share-" + pod}}
		add(s, first, last, 30)
	}
	// A GPU idle in stretches of 5 to 150 minutes that start and end anywhere in an hour: runs
	// inside an hour both shorter and longer than the 30 minutes counted, and runs across hours
	// and days (analyze's idle runs skip an hour's inner runs only where none is long enough).
	batch := &gpucost.Series{GPU: gpucost.GPU{UUID: "GPU-batch", Host: "node0", Model: "NVIDIA A100-SXM4-80GB", Index: 8},
		Labels: gpucost.Labels{"namespace": "ns1", "pod": "batch", "team": "t0"}}
	n0 := len(rs)
	add(batch, first, last, 12)
	idle, left := false, 0
	for i := n0; i < len(rs); i++ {
		var m uint64
		for b := range 60 {
			if left == 0 {
				idle, left = !idle, 5+rng.IntN(146)
			}
			if idle {
				m |= 1 << b
			}
			left--
		}
		rs[i].IdleMask = m & rs[i].Coverage
		rs[i].IdleMinutes = bits.OnesCount64(rs[i].IdleMask)
	}
	mig := &gpucost.Series{GPU: gpucost.GPU{UUID: "MIG-1", Host: "node0", Model: "NVIDIA A100-SXM4-80GB MIG 3g.40gb",
		Parent: "GPU-00", Profile: "3g.40gb"}, Labels: gpucost.Labels{"namespace": "ns0", "pod": "mig"}}
	add(mig, first, last, 55)
	if _, err := db.WriteRollups(ctx, rs); err != nil {
		t.Fatal(err)
	}
	if err := db.SetSetting(ctx, "idle_below", "5"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.PutCosts(ctx, gpucost.CostImport{Name: "days.csv", Checksum: "days", Format: "focus", Grain: time.Hour},
		daysFleetBill(first, daysEnd), nil); err != nil {
		t.Fatal(err)
	}
}

// dayFleetHour is one hour of s at about center % utilisation, with fractional sums (so that
// adding them in another order would change the last bits), a histogram, idle minutes, and
// now and then minutes without samples or no temperature.
func dayFleetHour(rng *rand.Rand, s *gpucost.Series, at time.Time, center float64) gpucost.Rollup {
	cov := uint64(1<<60 - 1)
	if rng.IntN(5) == 0 {
		cov &= rng.Uint64() | rng.Uint64()
	}
	minutes := bits.OnesCount64(cov)
	n := 6 * minutes
	hist := make([]uint32, 101)
	var sum float64
	for k := range n {
		v := math.Min(math.Max(center+rng.NormFloat64()*8, 0), 100)
		hist[int(v)]++
		sum += v
		_ = k
	}
	r := gpucost.Rollup{Series: s, Start: at, Width: time.Hour, Samples: n, Coverage: cov, UtilSum: sum, UtilHist: hist,
		UtilMax: center + 10*rng.Float64(), MemMaxMiB: float64(1000 + rng.IntN(70000)), MemP95MiB: float64(900 + rng.IntN(60000)),
		MemTotalMiB: 81920, PowerSamples: n, PowerSum: rng.Float64() * 300 * float64(n), PowerMax: 200 + rng.Float64()*200,
		TempMaxC: float64(40 + rng.IntN(40)), ProfSamples: n / 2, SMActiveSum: rng.Float64() * float64(n) / 2,
		SMOccupancySum: rng.Float64() * float64(n) / 3, GrEngineActiveSum: rng.Float64()}
	if rng.IntN(7) == 0 {
		r.TempMaxC = math.NaN()
	}
	r.UtilP50, r.UtilP95 = gpucost.HistQuantiles(hist)
	if center < 50 {
		r.IdleMask = rng.Uint64() & rng.Uint64() & cov
	}
	if center < 5 {
		r.IdleMask = cov
	}
	r.IdleMinutes = bits.OnesCount64(r.IdleMask)
	return r
}

// daysFleetBill is the fleet's bill from the day of first to end: node0 and node3 by the day,
// node1 by the half day (06:00 to 18:00 and 18:00 to 06:00), node2 not billed.
func daysFleetBill(first, end time.Time) func(func(*gpucost.CostLine) bool) {
	return func(yield func(*gpucost.CostLine) bool) {
		var l gpucost.CostLine
		line := func(node string, from, to time.Time) bool {
			cost := gpucost.USD(int64(to.Sub(from)/time.Hour) * 27_447_000_000)
			l = gpucost.CostLine{Provider: "AWS", SubAccountID: "123456789012", ChargeCategory: "Usage", PricingCategory: "Standard",
				ChargePeriodStart: from, ChargePeriodEnd: to, BilledCost: cost, EffectiveCost: cost, ListCost: cost, ContractedCost: cost,
				ResourceID: node, InstanceType: "p4de.24xlarge", ServiceName: "Amazon Elastic Compute Cloud",
				RegionID: "us-east-1", SkuID: "P4DE", ConsumedQuantity: float64(to.Sub(from) / time.Hour), ConsumedUnit: "Hours",
				Tags: gpucost.Labels{"team": "team-" + node}}
			return yield(&l)
		}
		for d := first.Truncate(24 * time.Hour); d.Before(end); d = d.Add(24 * time.Hour) {
			for _, node := range []string{"node0", "node3"} {
				if !line(node, d, d.Add(24*time.Hour)) {
					return
				}
			}
			if !line("node1", d.Add(-6*time.Hour), d.Add(6*time.Hour)) || !line("node1", d.Add(6*time.Hour), d.Add(18*time.Hour)) {
				return
			}
		}
	}
}
