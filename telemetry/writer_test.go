package telemetry

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// memStore is a gpucost.RollupStore in memory that merges with Merge, for Writer tests.
type memStore struct {
	mu     sync.Mutex
	byKey  map[string]gpucost.Rollup
	writes int
	scans  int
	fail   error
}

func (m *memStore) WriteRollups(ctx context.Context, rs []gpucost.Rollup) (gpucost.WriteStats, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var st gpucost.WriteStats
	if m.fail != nil {
		return st, m.fail
	}
	if m.byKey == nil {
		m.byKey = map[string]gpucost.Rollup{}
	}
	m.writes++
	for _, r := range rs {
		k := r.Series.Key() + r.Width.String() + r.Start.String()
		old, ok := m.byKey[k]
		if !ok {
			m.byKey[k] = r
			st.Written++
			continue
		}
		out, kind := gpucost.MergeRollups(old, r)
		m.byKey[k] = out
		switch kind {
		case gpucost.RollupUnchanged:
			st.Unchanged++
		case gpucost.RollupReplaced:
			st.Replaced++
		case gpucost.RollupMerged:
			st.Merged++
		case gpucost.RollupConflict:
			st.Conflicts++
		}
	}
	return st, nil
}

// ScanRollups scans the stored rollups of width that start in [f.From, f.To); the other
// fields of f are not used, and the order is not kept.
func (m *memStore) ScanRollups(ctx context.Context, width time.Duration, f gpucost.RollupFilter, fn func(*gpucost.Rollup) error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.scans++
	for _, r := range m.byKey {
		if r.Width == width && !r.Start.Before(f.From) && r.Start.Before(f.To) {
			if err := fn(&r); err != nil {
				return err
			}
		}
	}
	return nil
}

func TestWriterHoldsOpenMinutes(t *testing.T) {
	ctx := context.Background()
	store := &memStore{}
	w := &Writer{Store: store, IdleBelow: 5}
	for s := range 90 { // one GPU, 10:00:00–10:01:29
		if err := w.Add(ctx, sample(gpu(0), time.Duration(s)*time.Second, 50)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	m0, ok := store.byKey[gpu0Key(time.Minute, t0)]
	if !ok || m0.Samples != 60 {
		t.Fatalf("after Flush: minute 10:00 = %+v, want it written with 60 samples", m0)
	}
	if _, ok := store.byKey[gpu0Key(time.Minute, t0.Add(time.Minute))]; ok {
		t.Errorf("after Flush: the open minute 10:01 was written")
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if m1 := store.byKey[gpu0Key(time.Minute, t0.Add(time.Minute))]; m1.Samples != 30 {
		t.Errorf("after Close: minute 10:01 has %d samples, want 30", m1.Samples)
	}
	if h := store.byKey[gpu0Key(time.Hour, t0)]; h.Samples != 90 || h.Coverage != 0b11 {
		t.Errorf("after Close: hour has %d samples, coverage %#b; want 90, 0b11", h.Samples, h.Coverage)
	}
	if st := w.Stats(); st.Written != 3 || st.Merged != 1 {
		t.Errorf("Stats = %+v, want 3 written (2 minutes, 1 hour) and 1 merged (the hour)", st)
	}
}

func gpu0Key(width time.Duration, start time.Time) string {
	return (&gpucost.Series{GPU: gpu(0)}).Key() + width.String() + start.String()
}

func TestWriterReleasesVanishedGPU(t *testing.T) {
	ctx := context.Background()
	store := &memStore{}
	w := &Writer{Store: store, IdleBelow: 5}
	w.Add(ctx, sample(gpu(1), 0, 50)) // GPU 1 reports once, then vanishes
	k := (&gpucost.Series{GPU: gpu(1)}).Key() + time.Minute.String() + t0.String()
	for minute := range 3 {
		for s := 0; s < 60; s += 10 {
			w.Add(ctx, sample(gpu(0), time.Duration(60*minute+s)*time.Second, 50))
		}
		w.Flush(ctx)
		if _, written := store.byKey[k]; written != (minute > 0) {
			t.Errorf("after Flush %d: GPU 1's open minute written = %v, want %v", minute+1, written, minute > 0)
		}
	}
}

func TestWriterBoundedMemory(t *testing.T) {
	ctx := context.Background()
	store := &memStore{}
	w := &Writer{Store: store, IdleBelow: 5, MaxBuffered: 500}
	for s := range 5000 {
		w.Add(ctx, sample(gpu(0), time.Duration(s)*time.Second, float64(s%100)))
		if n := w.batch.Len(); n > 500 {
			t.Fatalf("after %d samples the writer holds %d, more than MaxBuffered", s+1, n)
		}
	}
	// Very many series, each with one open minute: the writer must still write.
	for g := range 800 {
		w.Add(ctx, sample(gpucost.GPU{UUID: "GPU-x" + string(rune(g)), Host: "h"}, time.Hour, 1))
		if n := w.batch.Len(); n > 500 {
			t.Fatalf("with %d series the writer holds %d samples", g+1, n)
		}
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	h := store.byKey[gpu0Key(time.Hour, t0)]
	if h.Samples != 3600 || h.Coverage != 1<<60-1 {
		t.Errorf("hour 10:00 = %d samples coverage %#x, want 3600, all minutes", h.Samples, h.Coverage)
	}
	whole := rollupSamples(func() (ss []gpucost.Sample) {
		for s := range 3600 {
			ss = append(ss, sample(gpu(0), time.Duration(s)*time.Second, float64(s%100)))
		}
		return ss
	}(), 5)
	want := whole[len(whole)-1]
	h.Series = want.Series
	if d := rollupDiff(&h, &want); d != "" {
		t.Errorf("hour written in pieces: %s", d)
	}
}

func TestWriterSkipsInvalidSamples(t *testing.T) {
	ctx := context.Background()
	store := &memStore{}
	now := t0.Add(time.Hour)
	w := &Writer{Store: store, IdleBelow: 5, Now: func() time.Time { return now }}
	good := sample(gpu(0), time.Minute, 30)
	skewed := sample(gpu(0), 4*time.Hour+2*time.Minute, 30) // 3h2m ahead of now
	negative := sample(gpu(0), 2*time.Minute, 30)
	negative.PowerW = -5
	noUtil := gpucost.NewSample(t0, gpu(0))
	if err := w.Add(ctx, good, skewed, negative, noUtil); err != nil {
		t.Fatal(err)
	}
	w.Close(ctx)
	if w.Skipped() != 3 || len(w.Skips()) != 3 {
		t.Fatalf("Skipped = %d (%v), want 3", w.Skipped(), w.Skips())
	}
	if s := w.Skips()[0]; s.Field != "time" || !strings.Contains(s.Reason, "is 3h2m ahead of this machine's clock") ||
		!strings.Contains(s.String(), "GPU-a on node1") {
		t.Errorf("skip of the skewed sample = %q", s.String())
	}
	if st := w.Stats(); st.Written != 2 {
		t.Errorf("Stats = %+v, want the good sample's minute and hour written", st)
	}
}

func TestWriterKeepsSamplesWhenStoreFails(t *testing.T) {
	ctx := context.Background()
	store := &memStore{fail: errors.New("disk full")}
	w := &Writer{Store: store, IdleBelow: 5}
	w.Add(ctx, sample(gpu(0), 0, 10), sample(gpu(0), time.Minute, 10))
	if err := w.Close(ctx); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Close = %v, want the store's error", err)
	}
	store.fail = nil
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if st := w.Stats(); st.Written != 3 {
		t.Errorf("after the retry: Stats = %+v, want 2 minutes and 1 hour written", st)
	}
}

func TestWriterConcurrentUse(t *testing.T) {
	ctx := context.Background()
	store := &memStore{}
	w := &Writer{Store: store, IdleBelow: 5, MaxBuffered: 100}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for s := range 600 {
				w.Add(ctx, sample(gpu(g), time.Duration(s)*time.Second, 40))
				if s%100 == 0 {
					w.Flush(ctx)
				}
			}
		})
	}
	wg.Wait()
	w.Close(ctx)
	// A Flush between two samples of a series may write its open minute in two parts: they merge.
	// (Hours cut inside a minute need the store's gpucost.MergeHours, which memStore lacks.)
	for g := range 4 {
		n := 0
		for m := range 10 {
			k := (&gpucost.Series{GPU: gpu(g)}).Key() + time.Minute.String() + t0.Add(time.Duration(m)*time.Minute).String()
			n += store.byKey[k].Samples
		}
		if n != 600 {
			t.Errorf("GPU %d's minutes hold %d samples, want 600", g, n)
		}
	}
}

func TestValidate(t *testing.T) {
	now := t0
	ok := sample(gpu(0), 0, 30)
	mig := gpucost.NewSample(t0, gpu(0))
	mig.GrEngineActive = 0.4
	cases := []struct {
		name   string
		edit   func(s *gpucost.Sample)
		field  string
		reason string
	}{
		{"fine", func(s *gpucost.Sample) {}, "", ""},
		{"4 min ahead is fine", func(s *gpucost.Sample) { s.Time = now.Add(4 * time.Minute) }, "", ""},
		{"zero time", func(s *gpucost.Sample) { s.Time = time.Time{} }, "time", "no timestamp"},
		{"clock skew", func(s *gpucost.Sample) { s.Time = now.Add(3*time.Hour + 2*time.Minute) }, "time", "is 3h2m ahead of this machine's clock"},
		{"before 2000", func(s *gpucost.Sample) { s.Time = time.Unix(5, 0) }, "time", "before 2000"},
		{"no GPU", func(s *gpucost.Sample) { s.GPU.UUID = "" }, "uuid", "names no GPU"},
		{"no util", func(s *gpucost.Sample) { s.Util = math.NaN() }, "util", "no utilisation reading"},
		{"negative util", func(s *gpucost.Sample) { s.Util = -1 }, "util", "-1 is negative"},
		{"util over 100", func(s *gpucost.Sample) { s.Util = 101 }, "util", "above 100%"},
		{"infinite power", func(s *gpucost.Sample) { s.PowerW = math.Inf(1) }, "power_w", "infinite"},
		{"negative memory", func(s *gpucost.Sample) { s.MemUsedMiB = -3 }, "mem_used_mib", "negative"},
		{"sm active over 1", func(s *gpucost.Sample) { s.SMActive = 1.5 }, "sm_active", "above 1"},
	}
	for _, c := range cases {
		s := ok
		c.edit(&s)
		err := Validate(s, now)
		if c.reason == "" {
			if err != nil {
				t.Errorf("%s: Validate = %v, want nil", c.name, err)
			}
			continue
		}
		var se *SampleError
		if !errors.As(err, &se) || se.Field != c.field || !strings.Contains(se.Reason, c.reason) {
			t.Errorf("%s: Validate = %v, want field %s and %q", c.name, err, c.field, c.reason)
		}
	}
	if err := Validate(mig, now); err != nil {
		t.Errorf("Validate(MIG sample with only GrEngineActive) = %v, want nil", err)
	}
	if err := Validate(sample(gpu(0), 5*time.Hour, 1), time.Time{}); err != nil {
		t.Errorf("Validate with no clock = %v, want nil", err)
	}
}

func TestRetention(t *testing.T) {
	now := t0.Add(20 * 24 * time.Hour)
	old := gpucost.Rollup{Start: now.Add(-15 * 24 * time.Hour), Width: time.Minute}
	recent := gpucost.Rollup{Start: now.Add(-13 * 24 * time.Hour), Width: time.Minute}
	ancientHour := gpucost.Rollup{Start: now.Add(-1000 * 24 * time.Hour), Width: time.Hour}
	p := DefaultRetention
	if !p.Expired(&old, now) || p.Expired(&recent, now) || p.Expired(&ancientHour, now) {
		t.Errorf("Expired(15 d minute, 13 d minute, 1000 d hour) = %v %v %v; want true false false",
			p.Expired(&old, now), p.Expired(&recent, now), p.Expired(&ancientHour, now))
	}
	if c, ok := p.Cutoff(time.Minute, now); !ok || !c.Equal(now.Add(-DefaultMinuteRetention)) {
		t.Errorf("Cutoff(minute) = %v, %v", c, ok)
	}
}

func TestRoughDuration(t *testing.T) {
	cases := map[time.Duration]string{
		3*time.Hour + 2*time.Minute + 10*time.Second: "3h2m",
		4*time.Minute + 30*time.Second:               "4m30s",
		59 * time.Second:                             "59s",
		50 * time.Hour:                               "2d2h",
	}
	for d, want := range cases {
		if got := roughDuration(d); got != want {
			t.Errorf("roughDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestWriterDropStoredMakesResendsIdempotent sends samples of one minute in posts, as an agent
// that pushes every 10 s does, with the minute written in part between them (the series went
// quiet for two flushes), then sends some again as an agent does that lost the answer to a
// post, and as a replayed write-ahead log does: the store's minute must hold each sample once.
func TestWriterDropStoredMakesResendsIdempotent(t *testing.T) {
	at := func(secs ...int) (out []gpucost.Sample) {
		for _, s := range secs {
			out = append(out, sample(gpu(0), time.Duration(s)*time.Second, float64(s)))
		}
		return out
	}
	quiet := func(ctx context.Context, w *Writer) { w.Flush(ctx); w.Flush(ctx) } // writes the open minute
	cases := []struct {
		name    string
		restart bool // the resend goes to a new Writer, as after a server restart
		posts   [][]gpucost.Sample
		want    int // distinct samples
	}{
		{"resend overlapping a minute written in part", false, [][]gpucost.Sample{at(0), at(10), at(10, 20)}, 3},
		{"resend after a restart", true, [][]gpucost.Sample{at(0), at(10), at(10, 20, 30)}, 4},
		{"the same post three times", false, [][]gpucost.Sample{at(0, 10), at(0, 10), at(0, 10)}, 2},
		{"resend of an earlier minute", true, [][]gpucost.Sample{at(0, 10), at(50, 70), at(10, 20, 70, 80)}, 6},
	}
	for _, c := range cases {
		for _, drop := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/DropStored=%v", c.name, drop), func(t *testing.T) {
				ctx := context.Background()
				store := &memStore{}
				w := &Writer{Store: store, IdleBelow: 5, DropStored: drop}
				for i, p := range c.posts {
					if c.restart && i == len(c.posts)-1 {
						w = &Writer{Store: store, IdleBelow: 5, DropStored: drop}
					}
					if err := w.Add(ctx, p...); err != nil {
						t.Fatal(err)
					}
					quiet(ctx, w)
				}
				if err := w.Close(ctx); err != nil {
					t.Fatal(err)
				}
				got := 0
				for _, r := range store.byKey {
					if r.Width == time.Minute {
						got += r.Samples
					}
				}
				// (The hour's pieces are merged by the store with gpucost.MergeHours, which memStore
				// does not do; cmd/gpucost's TestServeWALSurvivesKill checks them in SQLite.)
				if drop && got != c.want {
					t.Errorf("the minutes hold %d samples; want %d, each sample once (WriteStats %+v)", got, c.want, w.Stats())
				}
				if !drop && got == c.want && w.Stats().Conflicts == 0 && c.name != "the same post three times" {
					t.Errorf("without DropStored the minutes hold each sample once; this case no longer shows why DropStored is needed")
				}
			})
		}
	}
}

func TestWriterUnwrittenFollowsLogPositions(t *testing.T) {
	ctx := context.Background()
	w := &Writer{Store: &memStore{}, IdleBelow: 5}
	if _, ok := w.Unwritten(); ok {
		t.Fatalf("Unwritten of a new writer says a sample is held")
	}
	w.AddLogged(ctx, 100, sample(gpu(0), 0, 50), sample(gpu(1), 0, 50))
	w.AddLogged(ctx, 200, sample(gpu(0), 70*time.Second, 50)) // completes GPU 0's first minute
	w.Add(ctx, sample(gpu(2), 0, 50))                         // not logged
	if p, ok := w.Unwritten(); !ok || p != 100 {
		t.Errorf("before a flush: Unwritten() = %d, %v; want 100, true", p, ok)
	}
	w.Flush(ctx) // writes GPU 0's first minute; GPU 1 (at 100) and GPU 0's open minute (at 200) are held
	if p, ok := w.Unwritten(); !ok || p != 100 {
		t.Errorf("after a flush that holds GPU 1's minute: Unwritten() = %d, %v; want 100, true", p, ok)
	}
	w.AddLogged(ctx, 300, sample(gpu(1), 80*time.Second, 50))
	w.Flush(ctx) // writes GPU 1's first minute, and GPU 0's open one, quiet since the last flush
	if p, ok := w.Unwritten(); !ok || p != 300 {
		t.Errorf("after GPU 1's first minute is written: Unwritten() = %d, %v; want 300, true", p, ok)
	}
	w.Close(ctx)
	if p, ok := w.Unwritten(); ok {
		t.Errorf("after Close: Unwritten() = %d, true; want nothing held", p)
	}
}
