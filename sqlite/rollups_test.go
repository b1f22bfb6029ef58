package sqlite

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry"
)

var rollT0 = time.Date(2026, 3, 2, 22, 0, 0, 0, time.UTC) // two hours before a day boundary

func openRollupDB(t testing.TB) *DB {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "gpucost.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// fleetSamples returns samples of gpus GPUs (on two hosts, two models, with pod labels) every
// interval over span from rollT0, time-ordered per GPU. Memory is constant per GPU so that an hour's
// MemP95MiB, which merges only approximately, is exact here too.
func fleetSamples(gpus int, span, interval time.Duration) []gpucost.Sample {
	rng := rand.New(rand.NewPCG(3, 5))
	var out []gpucost.Sample
	for g := range gpus {
		gpu := gpucost.GPU{UUID: fmt.Sprintf("GPU-%04d", g), Host: fmt.Sprintf("host%d", g%2),
			Model: []string{"NVIDIA L4", "NVIDIA A100-SXM4-80GB"}[g%2], Index: g / 2}
		labels := gpucost.Labels{"namespace": fmt.Sprintf("team%d", g%3), "pod": fmt.Sprintf("p%d", g)}
		for at := time.Duration(0); at < span; at += interval {
			s := gpucost.NewSample(rollT0.Add(at), gpu)
			s.Labels = labels
			s.Util = float64(rng.IntN(101))
			if g%4 == 3 && at > span/2 {
				s.Util = float64(rng.IntN(4)) // goes idle
			}
			s.MemUsedMiB, s.MemTotalMiB = float64(1024*(g+1)), 23034
			s.PowerW = float64(rng.IntN(30000)) / 100
			s.TempC = float64(40 + rng.IntN(30))
			if g%2 == 1 {
				s.SMActive, s.SMOccupancy, s.GrEngineActive = float64(rng.IntN(5))/4, 0.25, 0.5
			}
			out = append(out, s)
		}
	}
	return out
}

func rollupsOf(samples []gpucost.Sample) []gpucost.Rollup {
	b := telemetry.NewBatch(len(samples))
	for _, s := range samples {
		b.Add(s)
	}
	return telemetry.Rollup(b, 5)
}

// scanAll returns copies of every stored rollup of width matching f, in scan order.
func scanAll(t testing.TB, db *DB, width time.Duration, f gpucost.RollupFilter) []gpucost.Rollup {
	t.Helper()
	var out []gpucost.Rollup
	err := db.ScanRollups(context.Background(), width, f, func(r *gpucost.Rollup) error {
		c := *r
		c.UtilHist = slices.Clone(r.UtilHist)
		out = append(out, c)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// byScanOrder sorts rollups of one width as ScanRollups returns them.
func byScanOrder(rs []gpucost.Rollup, width time.Duration) []gpucost.Rollup {
	var out []gpucost.Rollup
	for _, r := range rs {
		if r.Width == width {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b gpucost.Rollup) int {
		ka := a.Series.GPU.Host + "\x00" + a.Series.GPU.UUID + "\x00" + a.Series.Labels.String()
		kb := b.Series.GPU.Host + "\x00" + b.Series.GPU.UUID + "\x00" + b.Series.Labels.String()
		return cmpOr(strings.Compare(ka, kb), a.Start.Compare(b.Start))
	})
	return out
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// diffRollups describes the first difference between got and want, "" if none.
func diffRollups(got, want []gpucost.Rollup) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d rollups, want %d", len(got), len(want))
	}
	for i := range got {
		if d := diffRollup(&got[i], &want[i]); d != "" {
			return fmt.Sprintf("rollup %d (%s %s %s): %s", i, want[i].Series.GPU.UUID, want[i].Start, want[i].Width, d)
		}
	}
	return ""
}

func diffRollup(g, w *gpucost.Rollup) string {
	if g.Series.Key() != w.Series.Key() || g.Series.GPU != w.Series.GPU {
		return fmt.Sprintf("series %+v, want %+v", *g.Series, *w.Series)
	}
	if !g.Start.Equal(w.Start) || g.Width != w.Width {
		return fmt.Sprintf("start %s width %s", g.Start, g.Width)
	}
	// Sums may differ in their last bits, having been added in another order; the rest is exact.
	a, b := *g, *w
	for _, p := range [][2]*float64{{&a.UtilSum, &b.UtilSum}, {&a.PowerSum, &b.PowerSum},
		{&a.SMActiveSum, &b.SMActiveSum}, {&a.SMOccupancySum, &b.SMOccupancySum},
		{&a.GrEngineActiveSum, &b.GrEngineActiveSum}} {
		if math.Abs(*p[0]-*p[1]) <= 1e-12*math.Abs(*p[1]) {
			*p[0] = *p[1]
		}
	}
	a.Series, b.Series, a.Start, b.Start, a.UtilHist, b.UtilHist = nil, nil, time.Time{}, time.Time{}, nil, nil
	if fa, fb := fmt.Sprintf("%+v", a), fmt.Sprintf("%+v", b); fa != fb { // %v prints NaN as NaN: equal
		return fmt.Sprintf("\n got %s\nwant %s", fa, fb)
	}
	if !slices.Equal(g.UtilHist, w.UtilHist) {
		return fmt.Sprintf("UtilHist %v, want %v", g.UtilHist, w.UtilHist)
	}
	return ""
}

func TestWriteScanRoundTrip(t *testing.T) {
	db := openRollupDB(t)
	ctx := context.Background()
	rs := rollupsOf(fleetSamples(6, 3*time.Hour, 10*time.Second))
	st, err := db.WriteRollups(ctx, rs)
	if err != nil {
		t.Fatal(err)
	}
	if st != (gpucost.WriteStats{Written: len(rs)}) {
		t.Errorf("first WriteRollups = %+v, want all %d written", st, len(rs))
	}
	for _, w := range []time.Duration{time.Minute, time.Hour} {
		if d := diffRollups(scanAll(t, db, w, gpucost.RollupFilter{}), byScanOrder(rs, w)); d != "" {
			t.Errorf("ScanRollups(%s): %s", w, d)
		}
	}
}

func TestRewriteIsUnchanged(t *testing.T) {
	db := openRollupDB(t)
	ctx := context.Background()
	rs := rollupsOf(fleetSamples(4, 2*time.Hour, 10*time.Second))
	if _, err := db.WriteRollups(ctx, rs); err != nil {
		t.Fatal(err)
	}
	before := scanAll(t, db, time.Hour, gpucost.RollupFilter{})
	st, err := db.WriteRollups(ctx, rs)
	if err != nil {
		t.Fatal(err)
	}
	if st != (gpucost.WriteStats{Unchanged: len(rs)}) {
		t.Errorf("second WriteRollups = %+v, want all %d unchanged", st, len(rs))
	}
	if d := diffRollups(scanAll(t, db, time.Hour, gpucost.RollupFilter{}), before); d != "" {
		t.Errorf("after a re-import: %s", d)
	}
}

// TestSplitWritesMerge writes samples in two parts and expects what one write of all of them
// stores: split at a minute boundary (as the Writer does) and in the middle of a minute (two
// imported files that meet there).
func TestSplitWritesMerge(t *testing.T) {
	samples := fleetSamples(4, 3*time.Hour, 10*time.Second)
	cases := []struct {
		name  string
		split time.Time
	}{
		{"minute boundary", rollT0.Add(83 * time.Minute)},
		{"mid-minute", rollT0.Add(83*time.Minute + 25*time.Second)},
		{"hour boundary", rollT0.Add(2 * time.Hour)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			var a, b []gpucost.Sample
			for _, s := range samples {
				if s.Time.Before(c.split) {
					a = append(a, s)
				} else {
					b = append(b, s)
				}
			}
			whole := openRollupDB(t)
			if _, err := whole.WriteRollups(ctx, rollupsOf(samples)); err != nil {
				t.Fatal(err)
			}
			parts := openRollupDB(t)
			if _, err := parts.WriteRollups(ctx, rollupsOf(a)); err != nil {
				t.Fatal(err)
			}
			st, err := parts.WriteRollups(ctx, rollupsOf(b))
			if err != nil {
				t.Fatal(err)
			}
			if st.Conflicts != 0 || st.Unchanged != 0 {
				t.Errorf("second write = %+v, want no conflicts and nothing unchanged", st)
			}
			widths := []time.Duration{time.Hour}
			if c.name != "mid-minute" { // a split minute's quantiles merge approximately
				widths = append(widths, time.Minute)
			}
			for _, w := range widths {
				if d := diffRollups(scanAll(t, parts, w, gpucost.RollupFilter{}), scanAll(t, whole, w, gpucost.RollupFilter{})); d != "" {
					t.Errorf("%s rollups: %s", w, d)
				}
			}
		})
	}
}

func TestMergeOutcomesCounted(t *testing.T) {
	ctx := context.Background()
	db := openRollupDB(t)
	samples := fleetSamples(1, 20*time.Minute, 10*time.Second)
	first, overlap := samples[:60], samples[30:90] // minutes 0–9, then 5–14
	if _, err := db.WriteRollups(ctx, rollupsOf(first)); err != nil {
		t.Fatal(err)
	}
	st, err := db.WriteRollups(ctx, rollupsOf(overlap))
	if err != nil {
		t.Fatal(err)
	}
	// Minutes 5–9 again: unchanged; 10–14: new; the hour overlaps the stored one in part: a
	// conflict (10 minutes each, so the stored hour is kept).
	want := gpucost.WriteStats{Unchanged: 5, Written: 5, Conflicts: 1}
	if st != want {
		t.Errorf("overlapping write = %+v, want %+v", st, want)
	}
	st, err = db.WriteRollups(ctx, rollupsOf(samples[:120]))
	if err != nil {
		t.Fatal(err)
	}
	want = gpucost.WriteStats{Unchanged: 15, Written: 5, Replaced: 1}
	if st != want {
		t.Errorf("superset write = %+v, want %+v", st, want)
	}
}

func TestScanFilters(t *testing.T) {
	ctx := context.Background()
	db := openRollupDB(t)
	if _, err := db.WriteRollups(ctx, rollupsOf(fleetSamples(6, 4*time.Hour, 30*time.Second))); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		f      gpucost.RollupFilter
		series []string // GPU UUIDs in scan order
		hours  int      // per series
	}{
		{"all", gpucost.RollupFilter{}, []string{"GPU-0000", "GPU-0002", "GPU-0004", "GPU-0001", "GPU-0003", "GPU-0005"}, 4},
		{"host", gpucost.RollupFilter{Hosts: []string{"host1"}}, []string{"GPU-0001", "GPU-0003", "GPU-0005"}, 4},
		{"gpus", gpucost.RollupFilter{GPUs: []string{"GPU-0005", "GPU-0002"}}, []string{"GPU-0002", "GPU-0005"}, 4},
		{"model", gpucost.RollupFilter{Models: []string{"NVIDIA L4"}}, []string{"GPU-0000", "GPU-0002", "GPU-0004"}, 4},
		{"label", gpucost.RollupFilter{Labels: gpucost.Labels{"namespace": "team1"}}, []string{"GPU-0004", "GPU-0001"}, 4},
		{"labels", gpucost.RollupFilter{Labels: gpucost.Labels{"namespace": "team1", "pod": "p1"}}, []string{"GPU-0001"}, 4},
		{"no such label", gpucost.RollupFilter{Labels: gpucost.Labels{"job": "x"}}, nil, 0},
		{"from", gpucost.RollupFilter{From: rollT0.Add(90 * time.Minute)}, []string{"GPU-0000", "GPU-0002", "GPU-0004", "GPU-0001", "GPU-0003", "GPU-0005"}, 2},
		{"from to across days", gpucost.RollupFilter{From: rollT0.Add(time.Hour), To: rollT0.Add(3 * time.Hour), GPUs: []string{"GPU-0003"}}, []string{"GPU-0003"}, 2},
		{"to before", gpucost.RollupFilter{To: rollT0}, nil, 0},
	}
	for _, c := range cases {
		got := scanAll(t, db, time.Hour, c.f)
		var want []string
		for _, id := range c.series {
			for range c.hours {
				want = append(want, id)
			}
		}
		var ids []string
		for _, r := range got {
			ids = append(ids, r.Series.GPU.UUID)
			if !c.f.From.IsZero() && r.Start.Before(c.f.From) || !c.f.To.IsZero() && !r.Start.Before(c.f.To) {
				t.Errorf("%s: rollup at %s is outside [%s, %s)", c.name, r.Start, c.f.From, c.f.To)
			}
		}
		if !slices.Equal(ids, want) {
			t.Errorf("%s: ScanRollups gave series %v, want %v", c.name, ids, want)
		}
	}
}

func TestScanStopsAtCallbackError(t *testing.T) {
	ctx := context.Background()
	db := openRollupDB(t)
	if _, err := db.WriteRollups(ctx, rollupsOf(fleetSamples(2, 3*time.Hour, time.Minute))); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	n := 0
	err := db.ScanRollups(ctx, time.Hour, gpucost.RollupFilter{}, func(*gpucost.Rollup) error {
		n++
		if n == 2 {
			return stop
		}
		return nil
	})
	if err != stop || n != 2 {
		t.Errorf("ScanRollups = %v after %d calls, want the callback's error after 2", err, n)
	}
	cctx, cancel := context.WithCancel(ctx)
	err = db.ScanRollups(cctx, time.Minute, gpucost.RollupFilter{}, func(*gpucost.Rollup) error {
		cancel()
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("ScanRollups with its context canceled = %v, want context.Canceled", err)
	}
	if err := db.ScanRollups(ctx, 5*time.Minute, gpucost.RollupFilter{}, nil); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("ScanRollups(5m) = %v, want an invalid-width error", err)
	}
}

func TestWriteRejectsBadRollups(t *testing.T) {
	db := openRollupDB(t)
	s := &gpucost.Series{GPU: gpucost.GPU{UUID: "GPU-1", Host: "h"}}
	cases := map[string]gpucost.Rollup{
		"no series": {Start: rollT0, Width: time.Hour},
		"width":     {Series: s, Start: rollT0, Width: 5 * time.Minute},
		"unaligned": {Series: s, Start: rollT0.Add(time.Second), Width: time.Minute},
		"before":    {Series: s, Start: time.Date(1969, 1, 1, 0, 0, 0, 0, time.UTC), Width: time.Hour},
		"hist":      {Series: s, Start: rollT0, Width: time.Hour, UtilHist: make([]uint32, 102)},
	}
	for name, r := range cases {
		if _, err := db.WriteRollups(context.Background(), []gpucost.Rollup{r}); gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("%s: WriteRollups = %v, want an invalid-input error", name, err)
		}
	}
}

func TestPruneMinutes(t *testing.T) {
	ctx := context.Background()
	db := openRollupDB(t)
	if _, err := db.WriteRollups(ctx, rollupsOf(fleetSamples(2, 3*time.Hour, 30*time.Second))); err != nil {
		t.Fatal(err)
	}
	n, err := db.PruneMinutes(ctx, rollT0.Add(90*time.Minute)) // the first hour ends before; the second does not
	if err != nil || n != 2*60 {
		t.Fatalf("PruneMinutes = %d, %v; want 120 minute rollups", n, err)
	}
	minutes := scanAll(t, db, time.Minute, gpucost.RollupFilter{})
	if len(minutes) != 2*120 || minutes[0].Start.Before(rollT0.Add(time.Hour)) {
		t.Errorf("after pruning: %d minute rollups from %s, want 240 from %s", len(minutes), minutes[0].Start, rollT0.Add(time.Hour))
	}
	if hours := scanAll(t, db, time.Hour, gpucost.RollupFilter{}); len(hours) != 6 {
		t.Errorf("after pruning minutes: %d hour rollups, want all 6", len(hours))
	}
	cutoff, _ := telemetry.DefaultRetention.Cutoff(time.Minute, rollT0.Add(15*24*time.Hour))
	if n, err := db.PruneMinutes(ctx, cutoff); err != nil || n != 240 {
		t.Errorf("PruneMinutes(default retention a day later) = %d, %v; want the other 240", n, err)
	}
}

// TestWriterToStore runs samples through telemetry.Writer in small batches, as the agent does,
// and expects what rolling them up at once stores.
func TestWriterToStore(t *testing.T) {
	ctx := context.Background()
	samples := fleetSamples(5, 2*time.Hour, 5*time.Second)
	slices.SortStableFunc(samples, func(a, b gpucost.Sample) int { return a.Time.Compare(b.Time) }) // as polled
	whole := openRollupDB(t)
	if _, err := whole.WriteRollups(ctx, rollupsOf(samples)); err != nil {
		t.Fatal(err)
	}
	db := openRollupDB(t)
	w := &telemetry.Writer{Store: db, IdleBelow: 5, MaxBuffered: 700, Now: func() time.Time { return rollT0.Add(3 * time.Hour) }}
	for i := 0; i < len(samples); i += 40 {
		if err := w.Add(ctx, samples[i:min(i+40, len(samples))]...); err != nil {
			t.Fatal(err)
		}
		if i%2000 == 0 {
			if err := w.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if st := w.Stats(); st.Conflicts != 0 || st.Unchanged != 0 || st.Written == 0 {
		t.Errorf("Writer stats = %+v, want rollups written and merged only", st)
	}
	for _, width := range []time.Duration{time.Minute, time.Hour} {
		if d := diffRollups(scanAll(t, db, width, gpucost.RollupFilter{}), scanAll(t, whole, width, gpucost.RollupFilter{})); d != "" {
			t.Errorf("%s rollups through the Writer: %s", width, d)
		}
	}
}

func TestSeriesRecorded(t *testing.T) {
	ctx := context.Background()
	db := openRollupDB(t)
	g := gpucost.GPU{UUID: "MIG-1", Host: "h", Model: "NVIDIA A100-SXM4-80GB", Index: 0, Parent: "GPU-9", Profile: "1g.10gb"}
	s := gpucost.NewSample(rollT0.Add(61*time.Second), g)
	s.Util, s.Labels = 30, gpucost.Labels{"pod": "a", "namespace": "n"}
	if _, err := db.WriteRollups(ctx, rollupsOf([]gpucost.Sample{s})); err != nil {
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
	want := fmt.Sprint("h", "MIG-1", g.Model, "GPU-9", "1g.10gb", 0, "namespace=n,pod=a", rollT0.Unix(), rollT0.Add(time.Hour).Unix())
	if got != want {
		t.Errorf("series row = %s, want %s", got, want)
	}
	hours := scanAll(t, db, time.Hour, gpucost.RollupFilter{})
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
		if d := diffRollups(got, want); d != "" {
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
	hours := rollupsOf(fleetSamples(2, 2*time.Hour, 20*time.Second))
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
		if d := diffRollups(got, want); d != "" {
			t.Fatalf("re-encoded row decodes differently: %s", d)
		}
	})
}

func bitsOnes(v uint64) int {
	n := 0
	for ; v != 0; v &= v - 1 {
		n++
	}
	return n
}
