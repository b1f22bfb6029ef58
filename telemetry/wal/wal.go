// Package wal is the write-ahead log of the samples gpucost serve acknowledges: a POST of
// samples is answered 200 only once its samples are in the log and the log is on disk, so
// that a crash (kill -9, power loss) loses nothing acknowledged. On start the log is replayed
// into the rollup writer; what the store holds already is left as it is, because rollups merge
// on write (see gpucost.RollupStore.WriteRollups).
//
// The log is a directory of append-only segment files, each named by the position (a byte
// offset into the whole log) of its first record. Records are framed with their length and a
// CRC-32C (see appendRecord), so a torn tail left by a crash is detected, dropped and cut off.
// Concurrent appends share one write and one fsync (group commit): while one goroutine writes,
// the records of those that arrive meanwhile gather and go together in the next write. A
// segment is removed once Release says the store holds all its samples.
package wal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gpucost/gpucost"
)

const (
	// DefaultMaxBytes bounds the log on disk when Options.MaxBytes is zero. At some 200 bytes a
	// sample, 1 GiB holds about 5 million samples: over 8 minutes of 10,000 GPUs sampled every
	// second, and the log normally holds only the minute or two the rollup writer has not
	// written yet, so it fills only when the store is down or far behind.
	DefaultMaxBytes = 1 << 30

	// DefaultSegmentBytes is the size past which a segment is closed and a new one begun, when
	// Options.SegmentBytes is zero: small enough that a released segment frees its space soon,
	// large enough that segments are created only every few seconds at full ingest.
	DefaultSegmentBytes = 64 << 20

	segmentExt = ".wal"
)

// Options tune a Log.
type Options struct {
	MaxBytes     int64 // bytes on disk past which Append refuses; DefaultMaxBytes if zero
	SegmentBytes int64 // bytes past which a new segment begins; DefaultSegmentBytes if zero
}

// ReplayStats says what Open read back.
type ReplayStats struct {
	Segments  int
	Records   int
	Samples   int
	TornBytes int64 // bytes of incomplete or damaged records cut off the segments' ends
}

// Log is a write-ahead log of samples in a directory. Its methods are safe for concurrent use.
type Log struct {
	dir  string
	opts Options
	lock *os.File // held while the log is open

	mu         sync.Mutex
	cond       *sync.Cond // broadcast when a group commit ends
	f          *os.File   // the last segment, open for appending
	segs       []segment  // oldest first; the last is f's
	buf, spare []byte     // records appended but not yet written; spare is the last write's buffer, for reuse
	next       int64      // the position after the last record appended
	synced     int64      // records before this position are on disk
	size       int64      // bytes of the segments plus buf
	committing bool       // a goroutine is writing buf
	commits    int        // group commits done: writes with their fsync
	err        error      // a failed write or sync: the log takes no more records
}

// segment is one file of the log, holding positions [base, end).
type segment struct{ base, end int64 }

func (s segment) name() string { return fmt.Sprintf("%016x%s", s.base, segmentExt) }

// Open opens the log in dir, creating dir if needed, and calls replay with each record it
// holds, oldest first, with the record's position. A torn tail is cut off and counted in the
// stats. If replay fails, Open stops and returns its error. Records appended later come after
// every replayed one.
func Open(dir string, opts Options, replay func(pos int64, samples []gpucost.Sample) error) (*Log, ReplayStats, error) {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.SegmentBytes <= 0 {
		opts.SegmentBytes = DefaultSegmentBytes
	}
	var st ReplayStats
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, st, gpucost.Errorf(gpucost.EInvalid, "--wal %s: %w; name a directory gpucost can write", dir, err)
	}
	bases, err := listSegments(dir)
	if err != nil {
		return nil, st, err
	}
	lock, err := lockDir(dir)
	if err != nil {
		return nil, st, err
	}
	l := &Log{dir: dir, opts: opts, lock: lock}
	l.cond = sync.NewCond(&l.mu)
	fail := func(err error) (*Log, ReplayStats, error) {
		lock.Close()
		return nil, st, err
	}
	for _, base := range bases {
		seg, torn, err := l.replaySegment(base, &st, replay)
		if err != nil {
			return fail(err)
		}
		st.TornBytes += torn
		if seg.end == seg.base {
			if err := os.Remove(filepath.Join(dir, seg.name())); err != nil {
				return fail(fmt.Errorf("remove the empty log segment: %w", err))
			}
			continue
		}
		l.segs = append(l.segs, seg)
		l.size += seg.end - seg.base
		l.next = max(l.next, seg.end)
	}
	l.synced = l.next
	if err := l.startSegment(l.next); err != nil {
		return fail(err)
	}
	return l, st, nil
}

// listSegments returns the bases of the segments in dir, in order.
func listSegments(dir string) ([]int64, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list the write-ahead log: %w", err)
	}
	var bases []int64
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), segmentExt)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		base, err := strconv.ParseInt(name, 16, 64)
		if err != nil || base < 0 {
			continue
		}
		bases = append(bases, base)
	}
	slices.Sort(bases)
	return bases, nil
}

// replaySegment replays the records of the segment at base and cuts off a torn tail,
// returning the segment's extent and the bytes cut.
func (l *Log) replaySegment(base int64, st *ReplayStats, replay func(int64, []gpucost.Sample) error) (segment, int64, error) {
	seg := segment{base: base, end: base}
	path := filepath.Join(l.dir, seg.name())
	data, err := os.ReadFile(path)
	if err != nil {
		return seg, 0, fmt.Errorf("read the log segment %s: %w", path, err)
	}
	st.Segments++
	off := 0
	for off < len(data) {
		payload, n, ok := parseRecord(data[off:])
		if !ok {
			break
		}
		samples, err := decodeSamples(payload)
		if err != nil {
			return seg, 0, gpucost.Errorf(gpucost.EInvalid, "log segment %s: record at byte %d: %w; it was written by another version of gpucost: replay it with that version, or move %s aside", path, off, err, l.dir)
		}
		if err := replay(base+int64(off), samples); err != nil {
			return seg, 0, err
		}
		st.Records++
		st.Samples += len(samples)
		off += n
	}
	seg.end = base + int64(off)
	torn := int64(len(data) - off)
	if torn > 0 {
		if err := truncateFile(path, int64(off)); err != nil {
			return seg, 0, err
		}
	}
	return seg, torn, nil
}

func truncateFile(path string, size int64) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("cut the torn tail of %s: %w", path, err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		return fmt.Errorf("cut the torn tail of %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("cut the torn tail of %s: %w", path, err)
	}
	return nil
}

// startSegment creates the segment whose first record will lie at base and makes it the
// current one. It is called with l.mu held (or before l is shared) and no commit in flight.
func (l *Log) startSegment(base int64) error {
	seg := segment{base: base, end: base}
	f, err := os.OpenFile(filepath.Join(l.dir, seg.name()), os.O_WRONLY|os.O_CREATE|os.O_APPEND|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("create a log segment: %w", err)
	}
	if err := syncDir(l.dir); err != nil {
		f.Close()
		return err
	}
	if l.f != nil {
		l.f.Close()
	}
	l.f = f
	l.segs = append(l.segs, seg)
	return nil
}

// syncDir makes the creation or removal of files in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync the log directory: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync the log directory: %w", err)
	}
	return nil
}

// Append writes samples to the log as one record and returns once the record is on disk,
// with its position. It refuses with an EUnavailable error when the log would grow past
// MaxBytes (the store is behind: Release has not freed space), or after a write failed, and
// with an EInvalid error a record over MaxRecord.
func (l *Log) Append(samples []gpucost.Sample) (int64, error) {
	rec := appendRecord(nil, samples)
	if len(rec)-headerLen > MaxRecord {
		// Open would take it for a corrupt length: refuse it rather than lose it.
		return 0, gpucost.Errorf(gpucost.EInvalid, "%d samples make a log record of %d MiB, over the limit of %d MiB: send smaller batches",
			len(samples), len(rec)>>20, MaxRecord>>20)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return 0, l.failure()
	}
	if l.size > 0 && l.size+int64(len(rec)) > l.opts.MaxBytes {
		return 0, gpucost.Errorf(gpucost.EUnavailable,
			"the write-ahead log holds %d MiB of samples not yet in the store and takes at most %d MiB: the store is behind; retry later",
			l.size>>20, l.opts.MaxBytes>>20)
	}
	pos := l.next
	l.next += int64(len(rec))
	l.size += int64(len(rec))
	l.buf = append(l.buf, rec...)
	for l.synced < pos+int64(len(rec)) && l.err == nil {
		if l.committing {
			l.cond.Wait()
		} else {
			l.commit()
		}
	}
	if l.synced < pos+int64(len(rec)) {
		return 0, l.failure()
	}
	return pos, nil
}

func (l *Log) failure() error {
	return gpucost.Errorf(gpucost.EUnavailable, "the write-ahead log in %s failed: %v; fix the disk and restart gpucost serve, which replays the log", l.dir, l.err)
}

// commit writes and syncs the records buffered so far in one go, with l.mu held except during
// the I/O. It first begins a new segment if the current one is full.
func (l *Log) commit() {
	if cur := l.segs[len(l.segs)-1]; cur.end-cur.base >= l.opts.SegmentBytes {
		if err := l.startSegment(l.synced); err != nil {
			l.err = err
			l.cond.Broadcast()
			return
		}
	}
	l.committing = true
	buf, end, f := l.buf, l.next, l.f
	l.buf = l.spare[:0]
	l.mu.Unlock()
	_, err := f.Write(buf)
	if err == nil {
		err = f.Sync()
	}
	l.mu.Lock()
	if cap(buf) <= int(l.opts.SegmentBytes) {
		l.spare = buf[:0]
	}
	if err != nil {
		l.err = err
	} else {
		l.synced = end
		l.segs[len(l.segs)-1].end = end
		l.commits++
	}
	l.committing = false
	l.cond.Broadcast()
}

// Release removes the segments whose records all lie before upto: the caller has made sure
// that the store holds every sample of every record before that position. When that is all
// of the current segment, a new one is begun, so the log on disk shrinks to nothing while the
// store keeps up.
func (l *Log) Release(upto int64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return nil
	}
	if cur := l.segs[len(l.segs)-1]; cur.end > cur.base && cur.end <= upto && !l.committing && len(l.buf) == 0 {
		if err := l.startSegment(l.next); err != nil {
			return err
		}
	}
	var removed bool
	for len(l.segs) > 1 && l.segs[0].end <= upto {
		seg := l.segs[0]
		if err := os.Remove(filepath.Join(l.dir, seg.name())); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove a released log segment: %w", err)
		}
		l.segs = l.segs[1:]
		l.size -= seg.end - seg.base
		removed = true
	}
	if removed {
		return syncDir(l.dir)
	}
	return nil
}

// End returns the position after the last record appended: every record appended later lies
// at or after it.
func (l *Log) End() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.next
}

// Size returns the bytes the log holds on disk, counting records being written.
func (l *Log) Size() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.size
}

// Dir returns the log's directory.
func (l *Log) Dir() string { return l.dir }

// Close waits for a write in flight and closes the current segment. The log keeps its files
// for the next Open; when it holds nothing, the directory is removed.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.committing {
		l.cond.Wait()
	}
	if l.err == nil {
		l.err = errors.New("the log is closed")
	}
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	if err == nil && l.size == 0 && len(l.segs) == 1 {
		// Nothing to replay: tidy up. A failure here leaves an empty log, which is harmless.
		if os.Remove(filepath.Join(l.dir, l.segs[0].name())) == nil {
			os.Remove(filepath.Join(l.dir, "LOCK"))
			os.Remove(l.dir)
		}
	}
	l.lock.Close()
	return err
}
