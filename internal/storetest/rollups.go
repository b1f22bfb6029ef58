package storetest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry"
)

// RollT0 is where FleetSamples start: two hours before a day boundary.
var RollT0 = time.Date(2026, 3, 2, 22, 0, 0, 0, time.UTC)

// FleetSamples returns samples of gpus GPUs (on two hosts, two models, with pod labels) every
// interval over span from RollT0, time-ordered per GPU. Memory is constant per GPU so that an
// hour's MemP95MiB, which merges only approximately, is exact here too.
func FleetSamples(gpus int, span, interval time.Duration) []gpucost.Sample {
	rng := rand.New(rand.NewPCG(3, 5))
	var out []gpucost.Sample
	for g := range gpus {
		gpu := gpucost.GPU{UUID: fmt.Sprintf("GPU-%04d", g), Host: fmt.Sprintf("host%d", g%2),
			Model: []string{"NVIDIA L4", "NVIDIA A100-SXM4-80GB"}[g%2], Index: g / 2}
		labels := gpucost.Labels{"namespace": fmt.Sprintf("team%d", g%3), "pod": fmt.Sprintf("p%d", g)}
		for at := time.Duration(0); at < span; at += interval {
			s := gpucost.NewSample(RollT0.Add(at), gpu)
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

// RollupsOf rolls samples up to minutes and hours with an idle threshold of 5%.
func RollupsOf(samples []gpucost.Sample) []gpucost.Rollup {
	b := telemetry.NewBatch(len(samples))
	for _, s := range samples {
		b.Add(s)
	}
	return telemetry.Rollup(b, 5)
}

// ScanAll returns copies of every stored rollup of width matching f, in scan order.
func ScanAll(t testing.TB, db gpucost.RollupStore, width time.Duration, f gpucost.RollupFilter) []gpucost.Rollup {
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
		return cmpOr(strings.Compare(a.Series.Key(), b.Series.Key()), a.Start.Compare(b.Start))
	})
	return out
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// DiffRollups describes the first difference between got and want, "" if none.
func DiffRollups(got, want []gpucost.Rollup) string {
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

func testWriteScanRoundTrip(t *testing.T, open Open) {
	db := open(t)
	ctx := context.Background()
	rs := RollupsOf(FleetSamples(6, 3*time.Hour, 10*time.Second))
	st, err := db.WriteRollups(ctx, rs)
	if err != nil {
		t.Fatal(err)
	}
	if st != (gpucost.WriteStats{Written: len(rs)}) {
		t.Errorf("first WriteRollups = %+v, want all %d written", st, len(rs))
	}
	for _, w := range []time.Duration{time.Minute, time.Hour} {
		if d := DiffRollups(ScanAll(t, db, w, gpucost.RollupFilter{}), byScanOrder(rs, w)); d != "" {
			t.Errorf("ScanRollups(%s): %s", w, d)
		}
	}
}

func testRewriteIsUnchanged(t *testing.T, open Open) {
	db := open(t)
	ctx := context.Background()
	rs := RollupsOf(FleetSamples(4, 2*time.Hour, 10*time.Second))
	if _, err := db.WriteRollups(ctx, rs); err != nil {
		t.Fatal(err)
	}
	before := ScanAll(t, db, time.Hour, gpucost.RollupFilter{})
	st, err := db.WriteRollups(ctx, rs)
	if err != nil {
		t.Fatal(err)
	}
	if st != (gpucost.WriteStats{Unchanged: len(rs)}) {
		t.Errorf("second WriteRollups = %+v, want all %d unchanged", st, len(rs))
	}
	if d := DiffRollups(ScanAll(t, db, time.Hour, gpucost.RollupFilter{}), before); d != "" {
		t.Errorf("after a re-import: %s", d)
	}
}

// testSplitWritesMerge writes samples in two parts and expects what one write of all of them
// stores: split at a minute boundary (as the Writer does) and in the middle of a minute (two
// imported files that meet there).
func testSplitWritesMerge(t *testing.T, open Open) {
	samples := FleetSamples(4, 3*time.Hour, 10*time.Second)
	cases := []struct {
		name  string
		split time.Time
	}{
		{"minute boundary", RollT0.Add(83 * time.Minute)},
		{"mid-minute", RollT0.Add(83*time.Minute + 25*time.Second)},
		{"hour boundary", RollT0.Add(2 * time.Hour)},
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
			whole := open(t)
			if _, err := whole.WriteRollups(ctx, RollupsOf(samples)); err != nil {
				t.Fatal(err)
			}
			parts := open(t)
			if _, err := parts.WriteRollups(ctx, RollupsOf(a)); err != nil {
				t.Fatal(err)
			}
			st, err := parts.WriteRollups(ctx, RollupsOf(b))
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
				if d := DiffRollups(ScanAll(t, parts, w, gpucost.RollupFilter{}), ScanAll(t, whole, w, gpucost.RollupFilter{})); d != "" {
					t.Errorf("%s rollups: %s", w, d)
				}
			}
		})
	}
}

func testMergeOutcomesCounted(t *testing.T, open Open) {
	ctx := context.Background()
	db := open(t)
	samples := FleetSamples(1, 20*time.Minute, 10*time.Second)
	first, overlap := samples[:60], samples[30:90] // minutes 0–9, then 5–14
	if _, err := db.WriteRollups(ctx, RollupsOf(first)); err != nil {
		t.Fatal(err)
	}
	st, err := db.WriteRollups(ctx, RollupsOf(overlap))
	if err != nil {
		t.Fatal(err)
	}
	// Minutes 5–9 again: unchanged; 10–14: new; the hour overlaps the stored one in part: a
	// conflict (10 minutes each, so the stored hour is kept).
	want := gpucost.WriteStats{Unchanged: 5, Written: 5, Conflicts: 1}
	if st != want {
		t.Errorf("overlapping write = %+v, want %+v", st, want)
	}
	st, err = db.WriteRollups(ctx, RollupsOf(samples[:120]))
	if err != nil {
		t.Fatal(err)
	}
	want = gpucost.WriteStats{Unchanged: 15, Written: 5, Replaced: 1}
	if st != want {
		t.Errorf("superset write = %+v, want %+v", st, want)
	}
}

func testScanFilters(t *testing.T, open Open) {
	ctx := context.Background()
	db := open(t)
	if _, err := db.WriteRollups(ctx, RollupsOf(FleetSamples(6, 4*time.Hour, 30*time.Second))); err != nil {
		t.Fatal(err)
	}
	all := []string{"GPU-0000", "GPU-0002", "GPU-0004", "GPU-0001", "GPU-0003", "GPU-0005"}
	cases := []struct {
		name   string
		f      gpucost.RollupFilter
		series []string // GPU UUIDs in scan order
		hours  int      // per series
	}{
		{"all", gpucost.RollupFilter{}, all, 4},
		{"host", gpucost.RollupFilter{Hosts: []string{"host1"}}, []string{"GPU-0001", "GPU-0003", "GPU-0005"}, 4},
		{"gpus", gpucost.RollupFilter{GPUs: []string{"GPU-0005", "GPU-0002"}}, []string{"GPU-0002", "GPU-0005"}, 4},
		{"model", gpucost.RollupFilter{Models: []string{"NVIDIA L4"}}, []string{"GPU-0000", "GPU-0002", "GPU-0004"}, 4},
		{"label", gpucost.RollupFilter{Labels: gpucost.Labels{"namespace": "team1"}}, []string{"GPU-0004", "GPU-0001"}, 4},
		{"labels", gpucost.RollupFilter{Labels: gpucost.Labels{"namespace": "team1", "pod": "p1"}}, []string{"GPU-0001"}, 4},
		{"no such label", gpucost.RollupFilter{Labels: gpucost.Labels{"job": "x"}}, nil, 0},
		{"from", gpucost.RollupFilter{From: RollT0.Add(90 * time.Minute)}, all, 2},
		{"from to across days", gpucost.RollupFilter{From: RollT0.Add(time.Hour), To: RollT0.Add(3 * time.Hour), GPUs: []string{"GPU-0003"}}, []string{"GPU-0003"}, 2},
		{"to before", gpucost.RollupFilter{To: RollT0}, nil, 0},
		{"empty range", gpucost.RollupFilter{From: RollT0.Add(time.Hour), To: RollT0.Add(time.Hour)}, nil, 0},
	}
	for _, c := range cases {
		got := ScanAll(t, db, time.Hour, c.f)
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

func testScanStopsAtCallbackError(t *testing.T, open Open) {
	ctx := context.Background()
	db := open(t)
	if _, err := db.WriteRollups(ctx, RollupsOf(FleetSamples(2, 3*time.Hour, time.Minute))); err != nil {
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

func testWriteRejectsBadRollups(t *testing.T, open Open) {
	db := open(t)
	s := &gpucost.Series{GPU: gpucost.GPU{UUID: "GPU-1", Host: "h"}}
	cases := map[string]gpucost.Rollup{
		"no series": {Start: RollT0, Width: time.Hour},
		"width":     {Series: s, Start: RollT0, Width: 5 * time.Minute},
		"unaligned": {Series: s, Start: RollT0.Add(time.Second), Width: time.Minute},
		"before":    {Series: s, Start: time.Date(1969, 1, 1, 0, 0, 0, 0, time.UTC), Width: time.Hour},
		"hist":      {Series: s, Start: RollT0, Width: time.Hour, UtilHist: make([]uint32, 102)},
	}
	ok := gpucost.Rollup{Series: s, Start: RollT0, Width: time.Hour, Samples: 1}
	for name, r := range cases {
		// A good rollup first: a batch with a bad one stores nothing.
		if _, err := db.WriteRollups(context.Background(), []gpucost.Rollup{ok, r}); gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("%s: WriteRollups = %v, want an invalid-input error", name, err)
		}
	}
	if got := ScanAll(t, db, time.Hour, gpucost.RollupFilter{}); len(got) != 0 {
		t.Errorf("after rejected writes, %d hour rollups are stored", len(got))
	}
}

func testPruneMinutes(t *testing.T, open Open) {
	ctx := context.Background()
	db := open(t)
	p := db
	if _, err := db.WriteRollups(ctx, RollupsOf(FleetSamples(2, 3*time.Hour, 30*time.Second))); err != nil {
		t.Fatal(err)
	}
	n, err := p.PruneMinutes(ctx, RollT0.Add(90*time.Minute)) // the first hour ends before; the second does not
	if err != nil || n != 2*60 {
		t.Fatalf("PruneMinutes = %d, %v; want 120 minute rollups", n, err)
	}
	minutes := ScanAll(t, db, time.Minute, gpucost.RollupFilter{})
	if len(minutes) != 2*120 || minutes[0].Start.Before(RollT0.Add(time.Hour)) {
		t.Errorf("after pruning: %d minute rollups from %s, want 240 from %s", len(minutes), minutes[0].Start, RollT0.Add(time.Hour))
	}
	if hours := ScanAll(t, db, time.Hour, gpucost.RollupFilter{}); len(hours) != 6 {
		t.Errorf("after pruning minutes: %d hour rollups, want all 6", len(hours))
	}
	cutoff, _ := telemetry.DefaultRetention.Cutoff(time.Minute, RollT0.Add(15*24*time.Hour))
	if n, err := p.PruneMinutes(ctx, cutoff); err != nil || n != 240 {
		t.Errorf("PruneMinutes(default retention a day later) = %d, %v; want the other 240", n, err)
	}
}

// testWriterToStore runs samples through telemetry.Writer in small batches, as the agent does,
// and expects what rolling them up at once stores.
func testWriterToStore(t *testing.T, open Open) {
	ctx := context.Background()
	samples := FleetSamples(5, 2*time.Hour, 5*time.Second)
	slices.SortStableFunc(samples, func(a, b gpucost.Sample) int { return a.Time.Compare(b.Time) }) // as polled
	whole := open(t)
	if _, err := whole.WriteRollups(ctx, RollupsOf(samples)); err != nil {
		t.Fatal(err)
	}
	db := open(t)
	w := &telemetry.Writer{Store: db, IdleBelow: 5, MaxBuffered: 700, Now: func() time.Time { return RollT0.Add(3 * time.Hour) }}
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
		if d := DiffRollups(ScanAll(t, db, width, gpucost.RollupFilter{}), ScanAll(t, whole, width, gpucost.RollupFilter{})); d != "" {
			t.Errorf("%s rollups through the Writer: %s", width, d)
		}
	}
}

// testSeriesRecorded checks that a series keeps what it was written with, MIG fields included,
// and that a later write naming less (no model, no index) keeps what is stored.
func testSeriesRecorded(t *testing.T, open Open) {
	ctx := context.Background()
	db := open(t)
	g := gpucost.GPU{UUID: "MIG-1", Host: "h", Model: "NVIDIA A100-SXM4-80GB", Index: 0, Parent: "GPU-9", Profile: "1g.10gb"}
	s := gpucost.NewSample(RollT0.Add(61*time.Second), g)
	s.Util, s.Labels = 30, gpucost.Labels{"pod": "a", "namespace": "n"}
	if _, err := db.WriteRollups(ctx, RollupsOf([]gpucost.Sample{s})); err != nil {
		t.Fatal(err)
	}
	later := s
	later.Time, later.GPU.Model, later.GPU.Index = later.Time.Add(2*time.Hour), "", -1
	if _, err := db.WriteRollups(ctx, RollupsOf([]gpucost.Sample{later})); err != nil {
		t.Fatal(err)
	}
	hours := ScanAll(t, db, time.Hour, gpucost.RollupFilter{})
	if len(hours) != 2 {
		t.Fatalf("scanned %d hour rollups, want 2", len(hours))
	}
	for _, h := range hours {
		if h.Series.GPU != g || h.Series.Labels.String() != "namespace=n,pod=a" {
			t.Errorf("scanned series = %+v, want %+v with namespace=n,pod=a", *h.Series, g)
		}
	}
}
