package telemetry

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gpucost/gpucost"
)

const (
	// DefaultMaxBuffered is the number of samples a Writer holds before it writes, when its
	// MaxBuffered is not set: about 7 MB.
	DefaultMaxBuffered = 100_000

	// maxSkips is how many skipped samples a Writer keeps for Skips; it counts them all.
	maxSkips = 100
)

// Writer rolls samples up and writes the rollups to Store in batches. It is what the agent and
// the importers write through.
//
// Samples are buffered; when MaxBuffered are held, or on Flush, the complete minutes are rolled
// up and written. A series' latest minute is held back until a later sample of that series
// arrives, so that a minute is rolled up from all of its samples and its quantiles are exact;
// it is written on Close, or on a Flush when the series had no sample since the previous Flush
// (a GPU that vanished: the agent flushes every minute). Hours are written in pieces as their
// minutes complete and merged by the store (see Merge, MergeSplit and Combine). Memory stays
// bounded: if the held-back minutes alone fill half of MaxBuffered (very many series),
// everything is written, and a minute cut that way is merged with its rest when that comes.
//
// Samples that fail Validate are counted and skipped. The methods are safe for concurrent use.
type Writer struct {
	Store       gpucost.RollupStore
	IdleBelow   float64          // a minute whose mean utilisation is below this is idle
	MaxBuffered int              // samples held before writing; DefaultMaxBuffered if zero
	Now         func() time.Time // the local clock, to reject samples from a skewed one; nil skips that check

	mu      sync.Mutex
	batch   *Batch
	open    []int64 // per series number of batch: the start of its latest minute (Unix ns)
	fresh   []bool  // per series number of batch: it had samples since the last Flush
	stats   gpucost.WriteStats
	skipped int
	skips   []gpucost.Skip
}

// Add validates and buffers samples, and writes the complete minutes once MaxBuffered samples
// are held. It returns an error only if the store fails.
func (w *Writer) Add(ctx context.Context, samples ...gpucost.Sample) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.batch == nil {
		w.batch = NewBatch(min(w.maxBuffered(), 4096))
	}
	var now time.Time
	if w.Now != nil {
		now = w.Now()
	}
	for _, s := range samples {
		if err := Validate(s, now); err != nil {
			w.skip(s, err)
			continue
		}
		w.add(s)
		if w.batch.Len() >= w.maxBuffered() {
			if err := w.flush(ctx, false, false); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *Writer) add(s gpucost.Sample) {
	b := w.batch
	b.Add(s)
	id := b.seriesOf[len(b.seriesOf)-1]
	t := b.time[len(b.time)-1]
	for int(id) >= len(w.open) {
		w.open = append(w.open, int64(-1)<<62)
		w.fresh = append(w.fresh, false)
	}
	w.open[id] = max(w.open[id], floorDiv(t, nsMinute)*nsMinute)
	w.fresh[id] = true
}

func (w *Writer) skip(s gpucost.Sample, err error) {
	w.skipped++
	if len(w.skips) >= maxSkips {
		return
	}
	sk := gpucost.Skip{File: fmt.Sprintf("sample of %s on %s at %s", s.GPU.UUID, s.GPU.Host,
		s.Time.UTC().Format(time.RFC3339)), Reason: err.Error()}
	if se, ok := err.(*SampleError); ok {
		sk.Field, sk.Reason = se.Field, se.Reason
	}
	w.skips = append(w.skips, sk)
}

func (w *Writer) maxBuffered() int {
	if w.MaxBuffered > 0 {
		return w.MaxBuffered
	}
	return DefaultMaxBuffered
}

// Flush writes the complete minutes held, keeping each series' open latest minute.
func (w *Writer) Flush(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.flush(ctx, false, true)
}

// Close writes everything held, open minutes too. The Writer may be used again afterwards.
func (w *Writer) Close(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.flush(ctx, true, false)
}

// Stats returns what the writes so far did.
func (w *Writer) Stats() gpucost.WriteStats {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stats
}

// Skipped returns the number of samples that failed Validate.
func (w *Writer) Skipped() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.skipped
}

// Skips returns the first 100 skipped samples and why; File names the sample's GPU and time.
func (w *Writer) Skips() []gpucost.Skip {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]gpucost.Skip(nil), w.skips...)
}

// flush rolls up and writes the samples that are ready and keeps the rest: all are ready if
// final, and with stale also the open minutes of series without samples since the last such
// flush. If the store fails, every sample is kept.
func (w *Writer) flush(ctx context.Context, final, stale bool) error {
	b := w.batch
	if b == nil || b.Len() == 0 {
		return nil
	}
	var ready, held []int32
	for i, id := range b.seriesOf {
		if final || b.time[i] < w.open[id] || stale && !w.fresh[id] {
			ready = append(ready, int32(i))
		} else {
			held = append(held, int32(i))
		}
	}
	if stale {
		clear(w.fresh)
	}
	if !final && len(held) >= w.maxBuffered()/2 {
		ready, held = append(ready, held...), nil
	}
	if len(ready) == 0 {
		return nil
	}
	rollups := Rollup(b.subset(ready, nil), w.IdleBelow)
	st, err := w.Store.WriteRollups(ctx, rollups)
	if err != nil {
		return fmt.Errorf("write %d rollups of %d samples: %w", len(rollups), len(ready), err)
	}
	addStats(&w.stats, st)
	open, fresh := make([]int64, 0, len(w.open)), make([]bool, 0, len(w.fresh))
	w.batch = b.subset(held, func(old int32) {
		open, fresh = append(open, w.open[old]), append(fresh, w.fresh[old])
	})
	w.open, w.fresh = open, fresh
	return nil
}

// subset returns a new batch of b's samples idx, in that order, with only their series,
// renumbered in order of first appearance; kept is called with each kept series' old number
// in order of its new one.
func (b *Batch) subset(idx []int32, kept func(old int32)) *Batch {
	out := NewBatch(len(idx))
	out.byGPU = make(map[gpucost.GPU][]int32)
	renum := make([]int32, len(b.series))
	for i := range renum {
		renum[i] = -1
	}
	for _, k := range idx {
		old := b.seriesOf[k]
		if renum[old] < 0 {
			renum[old] = int32(len(out.series))
			s := b.series[old]
			out.series = append(out.series, s)
			out.byGPU[s.GPU] = append(out.byGPU[s.GPU], renum[old])
			if kept != nil {
				kept(old)
			}
		}
		out.seriesOf = append(out.seriesOf, renum[old])
		out.time = append(out.time, b.time[k])
	}
	out.hasProf = b.hasProf
	src, dst := b.columns(), out.columns()
	for c := range src {
		for _, k := range idx {
			*dst[c] = append(*dst[c], (*src[c])[k])
		}
	}
	return out
}

func addStats(to *gpucost.WriteStats, st gpucost.WriteStats) {
	to.Written += st.Written
	to.Merged += st.Merged
	to.Unchanged += st.Unchanged
	to.Replaced += st.Replaced
	to.Conflicts += st.Conflicts
}
