package telemetry

import (
	"context"
	"fmt"
	"math"
	"slices"
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

	// maxStoredMemo is how many series a Writer with DropStored remembers the latest written
	// minute of; past it the memo is emptied and refilled from the store as the series come
	// back (one scan per flush that meets unknown series). 131,072 series are ten times a
	// fleet of 10,000 GPUs with a few pods each, and the memo takes some 100 bytes a series.
	maxStoredMemo = 1 << 17

	// maxScanGPUs is how many GPUs' UUIDs a Writer names in the filter of the scan that looks
	// up stored minutes; with more it scans all series in the time range instead, since a
	// filter that long costs the store more than reading the few extra rows.
	maxScanGPUs = 512
)

// Writer rolls samples up and writes the rollups to Store in batches. It is what the agent and
// the importers write through.
//
// Samples are buffered; when MaxBuffered are held, or on Flush, the complete minutes are rolled
// up and written. A series' latest minute is held back until a later sample of that series
// arrives, so that a minute is rolled up from all of its samples and its quantiles are exact;
// it is written on Close, or on a Flush when the series had no sample since the previous Flush
// (a GPU that vanished: the agent flushes every minute). Hours are written in pieces as their
// minutes complete and merged by the store (see gpucost.MergeRollups, MergeHours and
// CombineRollups). Memory stays bounded: if the held-back minutes alone fill half of MaxBuffered
// (very many series), everything is written, and a minute cut that way is merged with its rest
// when that comes.
//
// Samples that fail Validate are counted and skipped. The methods are safe for concurrent use.
type Writer struct {
	Store       gpucost.RollupStore
	IdleBelow   float64          // a minute whose mean utilisation is below this is idle
	MaxBuffered int              // samples held before writing; DefaultMaxBuffered if zero
	Now         func() time.Time // the local clock, to reject samples from a skewed one; nil skips that check

	// DropStored drops, before rolling up, each sample whose second of its minute the store
	// holds already for its series. Set it where the same samples may come again: an agent
	// resends a batch whose answer it lost, a write-ahead log is replayed. Without it the
	// store's merge recognises samples stored already only when a rollup holds nothing but
	// them; a resent batch that starts in the middle of a minute written in part (a flush wrote
	// it as the series went quiet) overlaps it in part, a conflict that would lose samples.
	// The writer remembers each series' latest written minute, and asks the store for the
	// minutes of series it has not written since it started.
	DropStored bool

	mu      sync.Mutex
	batch   *Batch
	open    []int64 // per series number of batch: the start of its latest minute (Unix ns)
	fresh   []bool  // per series number of batch: it had samples since the last Flush
	pos     []int64 // per sample of batch, once AddLogged was called: its log position, -1 for none
	stats   gpucost.WriteStats
	skipped int
	skips   []gpucost.Skip
	stored  map[string]storedMinute // with DropStored: per series key, its latest minute written
	dropped int                     // samples DropStored dropped
}

// storedMinute is the latest minute of a series that the store holds, and the seconds of it
// that held samples; start is noMinute for a series with no minute stored in the time looked
// at.
type storedMinute struct {
	start    int64 // Unix ns
	coverage uint64
}

// Add validates and buffers samples, and writes the complete minutes once MaxBuffered samples
// are held. It returns an error only if the store fails.
func (w *Writer) Add(ctx context.Context, samples ...gpucost.Sample) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.addAt(ctx, -1, samples)
}

// AddLogged is Add for samples that a write-ahead log holds at position pos (0 or more):
// Unwritten then says which positions the store holds every sample of. On an error the
// samples added so far stay held; adding them all again is harmless, because a later-added
// sample at the same instant as another of its series is left out of the rollup.
func (w *Writer) AddLogged(ctx context.Context, pos int64, samples ...gpucost.Sample) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.pos == nil {
		w.pos = make([]int64, w.batchLen(), max(w.batchLen(), 4096))
		for i := range w.pos {
			w.pos[i] = -1
		}
	}
	return w.addAt(ctx, pos, samples)
}

// Unwritten returns the smallest log position of a sample held but not yet written, and
// false if every sample added with AddLogged is written.
func (w *Writer) Unwritten() (int64, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	least, ok := int64(0), false
	for _, p := range w.pos {
		if p >= 0 && (!ok || p < least) {
			least, ok = p, true
		}
	}
	return least, ok
}

// Duplicates returns the number of samples that DropStored dropped as stored already.
func (w *Writer) Duplicates() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.dropped
}

func (w *Writer) batchLen() int {
	if w.batch == nil {
		return 0
	}
	return w.batch.Len()
}

func (w *Writer) addAt(ctx context.Context, pos int64, samples []gpucost.Sample) error {
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
		if w.pos != nil {
			w.pos = append(w.pos, pos)
		}
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
	toWrite, dropped := ready, 0
	if w.DropStored {
		var err error
		if toWrite, err = w.dropStored(ctx, b, ready); err != nil {
			return err
		}
		dropped = len(ready) - len(toWrite)
	}
	if len(toWrite) > 0 {
		rollups := Rollup(b.subset(toWrite, nil), w.IdleBelow)
		st, err := w.Store.WriteRollups(ctx, rollups)
		if err != nil {
			return fmt.Errorf("write %d rollups of %d samples: %w", len(rollups), len(toWrite), err)
		}
		addStats(&w.stats, st)
		if w.DropStored {
			w.noteStored(rollups)
		}
	}
	w.dropped += dropped
	if w.pos != nil {
		pos := make([]int64, len(held), max(len(held), 4096))
		for i, k := range held {
			pos[i] = w.pos[k]
		}
		w.pos = pos
	}
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

// noMinute marks a series with no minute stored in the time looked at.
const noMinute = math.MinInt64

// dropStored returns the samples of ready (numbers of b's samples) whose second of their
// minute the store does not hold yet for their series: the memo says for the latest minute
// each series was written; for other series and minutes the store is asked once.
func (w *Writer) dropStored(ctx context.Context, b *Batch, ready []int32) ([]int32, error) {
	if w.stored == nil || len(w.stored) > maxStoredMemo {
		w.stored = make(map[string]storedMinute)
	}
	keys := make([]string, len(b.series))
	key := func(id int32) string {
		if keys[id] == "" {
			keys[id] = b.series[id].Key()
		}
		return keys[id]
	}
	// Series the memo does not know, or samples of minutes before the one it knows: look up.
	var unknown []int32
	asked := make([]bool, len(b.series))
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, k := range ready {
		id, m := b.seriesOf[k], floorDiv(b.time[k], nsMinute)*nsMinute
		if sm, ok := w.stored[key(id)]; ok && m >= sm.start {
			continue
		}
		if !asked[id] {
			asked[id] = true
			unknown = append(unknown, id)
		}
		lo, hi = min(lo, m), max(hi, m)
	}
	var looked map[string]map[int64]uint64
	if len(unknown) > 0 {
		var err error
		if looked, err = w.lookUpStored(ctx, b, unknown, key, lo, hi); err != nil {
			return nil, err
		}
	}
	out := make([]int32, 0, len(ready))
	for _, k := range ready {
		id, t := b.seriesOf[k], b.time[k]
		m := floorDiv(t, nsMinute) * nsMinute
		var cov uint64
		if sm := w.stored[key(id)]; sm.start == m {
			cov = sm.coverage
		}
		if asked[id] {
			cov |= looked[key(id)][m]
		}
		if cov&(1<<uint((t-m)/nsSecond)) == 0 {
			out = append(out, k)
		}
	}
	return out, nil
}

// lookUpStored asks the store for the minutes of series ids from lo to hi (minute starts, Unix
// ns) and returns their coverage by series key and start; it notes each series' latest minute
// in the memo, noMinute for one the store holds none of then.
func (w *Writer) lookUpStored(ctx context.Context, b *Batch, ids []int32, key func(int32) string, lo, hi int64) (map[string]map[int64]uint64, error) {
	looked := make(map[string]map[int64]uint64, len(ids))
	var uuids []string
	for _, id := range ids {
		looked[key(id)] = map[int64]uint64{}
		if g := b.series[id].GPU.UUID; !slices.Contains(uuids, g) && len(uuids) <= maxScanGPUs {
			uuids = append(uuids, g)
		}
	}
	if len(uuids) > maxScanGPUs {
		uuids = nil
	}
	f := gpucost.RollupFilter{From: time.Unix(0, lo).UTC(), To: time.Unix(0, hi+nsMinute).UTC(), GPUs: uuids}
	err := w.Store.ScanRollups(ctx, time.Minute, f, func(r *gpucost.Rollup) error {
		if byStart, ok := looked[r.Series.Key()]; ok {
			byStart[r.Start.UnixNano()] |= r.Coverage
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("look up the stored minutes of %d series: %w", len(ids), err)
	}
	for k, byStart := range looked {
		sm, ok := w.stored[k]
		if !ok {
			sm = storedMinute{start: noMinute}
		}
		for start, cov := range byStart {
			if start > sm.start {
				sm = storedMinute{start: start, coverage: cov}
			}
		}
		w.stored[k] = sm
	}
	return looked, nil
}

// noteStored notes in the memo the minute rollups just written.
func (w *Writer) noteStored(rollups []gpucost.Rollup) {
	keys := map[*gpucost.Series]string{}
	for i := range rollups {
		r := &rollups[i]
		if r.Width != time.Minute {
			continue
		}
		k, ok := keys[r.Series]
		if !ok {
			k = r.Series.Key()
			keys[r.Series] = k
		}
		sm, ok := w.stored[k]
		switch start := r.Start.UnixNano(); {
		case !ok || start > sm.start:
			w.stored[k] = storedMinute{start: start, coverage: r.Coverage}
		case start == sm.start:
			sm.coverage |= r.Coverage
			w.stored[k] = sm
		}
	}
}
