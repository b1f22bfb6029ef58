package checkpoint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gpucost/gpucost"
)

// Syncer copies the checkpoint directory Dir of job Job to Store and back. Its methods may be
// called from several goroutines; Syncs and Restores run one at a time.
type Syncer struct {
	Store    gpucost.ObjectStore
	Job      string // the key prefix of the job's objects and manifests
	Dir      string
	Parallel int              // uploads and downloads at a time; default 4
	Keep     int              // manifests kept; default 3
	Log      *slog.Logger     // default: discard
	Now      func() time.Time // default time.Now

	run sync.Mutex // one Sync or Restore at a time

	mu        sync.Mutex
	loaded    bool                 // known and lastSeq were read from the store
	known     map[string]bool      // sha256s whose objects are in the store
	hashes    map[string]cacheLine // relative path → hash of the file as last seen
	last      *Manifest            // the newest manifest written or restored
	lastSeq   int64                // the highest manifest sequence number in the store
	manifests map[string]*Manifest // kept manifests read or written, by key
	rates     []rate               // recent upload measurements
}

// cacheLine is a file's sha256 as of its size and mtime.
type cacheLine struct {
	size  int64
	mtime time.Time
	sum   string
}

// rate is one upload measurement.
type rate struct {
	bytes int64
	took  time.Duration
}

// Stats says what one Sync did.
type Stats struct {
	Files    int           // files in the checkpoint directory
	Hashed   int           // files read to compute their sha256 (the others were unchanged)
	Uploaded int           // objects uploaded
	Bytes    int64         // bytes uploaded
	Elapsed  time.Duration // the whole pass
	Manifest string        // key of the manifest written; empty when none was
	Seq      int64         // its sequence number, or the latest one's when none was written
	// Latest is the checkpoint the manifest written names as latest, LatestTime the newest mtime
	// of its files (when the job wrote it, on the file system's clock) and LatestBytes their size;
	// all three are zero when no manifest was written.
	Latest      string
	LatestTime  time.Time
	LatestBytes int64
	// Unchanged is set when the directory matched the latest manifest, so none was written.
	Unchanged bool
	// Unstable lists the files that changed while the pass ran. The manifest leaves out the
	// top-level entries holding them, or keeps what the previous manifest held of them, since the
	// job is in the middle of writing them.
	Unstable []string
}

// entry is one file of the directory as a pass sees it.
type entry struct {
	rel   string // '/'-separated
	size  int64
	mtime time.Time
	mode  fs.FileMode
	sum   string
}

const (
	defaultParallel = 4
	defaultKeep     = 3
	retries         = 4                      // attempts of one store operation
	retryBase       = 100 * time.Millisecond // first backoff, doubled on each retry
	rateWindow      = 8                      // uploads Bandwidth averages over
)

func (s *Syncer) parallel() int { return cmpOr(s.Parallel, defaultParallel) }
func (s *Syncer) keep() int     { return cmpOr(s.Keep, defaultKeep) }

func cmpOr(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

func (s *Syncer) log() *slog.Logger {
	if s.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Log
}

func (s *Syncer) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

// Sync uploads the files of Dir that the store lacks, in parallel, and then writes a manifest
// naming them all. It writes none when the directory matches the latest manifest. Files that
// changed while the pass ran (listed in Stats.Unstable) keep, with the rest of their top-level
// entry, what the previous manifest held of them; when that would leave a manifest older than
// the previous one, none is written, so the latest checkpoint never goes back. A failing store is retried a few times
// with backoff; if it keeps failing Sync returns the error and the previous manifest stays the
// latest.
func (s *Syncer) Sync(ctx context.Context) (Stats, error) {
	s.run.Lock()
	defer s.run.Unlock()
	start := time.Now()
	st, err := s.sync(ctx)
	st.Elapsed = time.Since(start)
	if err != nil {
		s.mu.Lock()
		s.loaded = false // read the store afresh next time
		s.mu.Unlock()
		return st, fmt.Errorf("sync checkpoint %s of job %s: %w", s.Dir, s.Job, err)
	}
	return st, nil
}

func (s *Syncer) sync(ctx context.Context) (Stats, error) {
	created := s.now()
	if err := s.load(ctx); err != nil {
		return Stats{}, err
	}
	before, latest, err := s.scan()
	if err != nil {
		return Stats{}, err
	}
	st := Stats{Files: len(before), Seq: s.lastSeq}
	if st.Hashed, err = s.hashAll(ctx, before); err != nil {
		return st, err
	}
	if err := s.uploadMissing(ctx, before, &st); err != nil {
		return st, err
	}
	after, _, err := s.scan()
	if err != nil {
		return st, err
	}
	if st.Unstable = changed(before, after); len(st.Unstable) > 0 {
		if before = s.settled(before, st.Unstable); len(before) == 0 {
			s.log().Info("every checkpoint changed during sync; no manifest written this time",
				"job", s.Job, "dir", s.Dir, "changed", st.Unstable)
			return st, nil
		}
		if s.last != nil && newestMTime(before) < s.last.newestMTime() {
			// Every newer checkpoint was changing: what is left is older than the latest
			// manifest, which stays the latest rather than going back.
			s.log().Info("the newer checkpoints changed during sync; the previous manifest stays the latest",
				"job", s.Job, "dir", s.Dir, "changed", st.Unstable, "latest", s.last.Latest)
			return st, nil
		}
		latest = newest(before)
		s.log().Info("checkpoint files changed during sync; the manifest keeps their previous state",
			"job", s.Job, "dir", s.Dir, "changed", st.Unstable)
	}
	m := s.manifest(before, latest, created)
	if s.last != nil && sameContent(s.last, &m) {
		st.Unchanged = true
		return st, nil
	}
	if err := s.writeManifest(ctx, &m); err != nil {
		return st, err
	}
	st.Manifest, st.Seq = m.Key, m.Seq
	st.Latest, st.LatestTime, st.LatestBytes = m.Latest, m.entryTime(m.Latest), m.entryBytes(m.Latest)
	s.log().Debug("checkpoint synced", "job", s.Job, "manifest", m.Key, "files", st.Files,
		"uploaded", st.Uploaded, "bytes", st.Bytes, "latest", m.Latest)
	if err := s.prune(ctx, &m); err != nil {
		s.log().Warn("pruning old checkpoints failed; will retry on the next sync", "job", s.Job, "err", err)
	}
	return st, nil
}

// load reads, once, which objects and manifests the store holds for the job. Only the objects
// that a readable manifest names count as present: an object nothing names yet may be one that a
// killed Sync put before it could check it, so it is uploaded again when needed.
func (s *Syncer) load(ctx context.Context) error {
	s.mu.Lock()
	loaded := s.loaded
	s.initLocked()
	s.mu.Unlock()
	if loaded {
		return nil
	}
	var objs []gpucost.Object
	err := retry(ctx, func() (err error) {
		objs, err = s.Store.List(ctx, s.Job+"/")
		return err
	})
	if err != nil {
		return fmt.Errorf("list the job's objects: %w", err)
	}
	stored, named := map[string]bool{}, map[string]bool{}
	var lastSeq int64
	for _, o := range objs {
		if sum, ok := strings.CutPrefix(o.Key, s.Job+"/objects/"); ok {
			stored[sum] = true
		} else if n, ok := manifestSeq(s.Job, o.Key); ok {
			lastSeq = max(lastSeq, n)
			if m, err := s.readManifest(ctx, o.Key); err == nil {
				for _, f := range m.Files {
					named[f.SHA256] = true
				}
			}
		}
	}
	known := map[string]bool{}
	for sum := range named {
		if stored[sum] {
			known[sum] = true
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.known, s.lastSeq, s.loaded = known, lastSeq, true
	return nil
}

// initLocked makes the Syncer's maps; s.mu is held.
func (s *Syncer) initLocked() {
	if s.hashes == nil {
		s.hashes = map[string]cacheLine{}
	}
	if s.manifests == nil {
		s.manifests = map[string]*Manifest{}
	}
}

// scan lists the regular files under Dir, leaving out temporary and gpucost files, in path
// order, and returns the name of the newest top-level entry (see newest).
func (s *Syncer) scan() ([]entry, string, error) {
	var out []entry
	err := filepath.WalkDir(s.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p != s.Dir {
				return nil // removed while we walked
			}
			return err
		}
		if p == s.Dir {
			return nil
		}
		if ignored(d.Name()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		} else if err != nil {
			return err
		}
		rel, _ := filepath.Rel(s.Dir, p)
		rel = filepath.ToSlash(rel)
		if !info.Mode().IsRegular() {
			return nil // directories are walked; links, sockets and devices are not copied
		}
		out = append(out, entry{rel: rel, size: info.Size(), mtime: info.ModTime(), mode: info.Mode().Perm()})
		return nil
	})
	if err != nil {
		return nil, "", fmt.Errorf("read checkpoint directory %s: %w", s.Dir, err)
	}
	return out, newest(out), nil
}

// newest returns the top-level entry of es with the newest content: a file by its mtime, a
// directory by the newest mtime of the files under it, the greater name on a tie. Directory
// mtimes are not used: removing an old checkpoint's files would make it the newest, and a restore
// could not reproduce them.
func newest(es []entry) string {
	var latest string
	var at time.Time
	for _, e := range es {
		top := topLevel(e.rel)
		if latest == "" || e.mtime.After(at) || e.mtime.Equal(at) && top > latest {
			latest, at = top, e.mtime
		}
	}
	return latest
}

// newestMTime returns the newest mtime of es, in Unix nanoseconds.
func newestMTime(es []entry) int64 {
	var at int64
	for _, e := range es {
		at = max(at, e.mtime.UnixNano())
	}
	return at
}

// hashAll fills in the sha256 of every entry, reading only the files whose size or mtime
// differs from the last time, in parallel. It returns how many it read.
func (s *Syncer) hashAll(ctx context.Context, es []entry) (int, error) {
	var todo []int
	s.mu.Lock()
	for i := range es {
		if c, ok := s.hashes[es[i].rel]; ok && c.size == es[i].size && c.mtime.Equal(es[i].mtime) {
			es[i].sum = c.sum
		} else {
			todo = append(todo, i)
		}
	}
	s.mu.Unlock()
	err := parallel(ctx, s.parallel(), len(todo), func(k int) error {
		e := &es[todo[k]]
		sum, n, err := hashFile(filepath.Join(s.Dir, filepath.FromSlash(e.rel)))
		if errors.Is(err, fs.ErrNotExist) || err == nil && n != e.size {
			return nil // removed or rewritten since the scan: the second scan will say so
		}
		if err != nil {
			return fmt.Errorf("hash %s: %w", e.rel, err)
		}
		e.sum = sum
		s.mu.Lock()
		s.hashes[e.rel] = cacheLine{e.size, e.mtime, sum}
		s.mu.Unlock()
		return nil
	})
	return len(todo), err
}

// hashFile returns the sha256 of a file's content, in hex, and its length.
func hashFile(p string) (string, int64, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// uploadMissing uploads one object for each distinct content the store lacks, largest first.
func (s *Syncer) uploadMissing(ctx context.Context, es []entry, st *Stats) error {
	var todo []entry
	s.mu.Lock()
	queued := map[string]bool{}
	for _, e := range es {
		if e.sum != "" && !s.known[e.sum] && !queued[e.sum] {
			queued[e.sum] = true
			todo = append(todo, e)
		}
	}
	s.mu.Unlock()
	slices.SortFunc(todo, func(a, b entry) int { return int(min(max(b.size-a.size, -1), 1)) })
	start := time.Now()
	var mu sync.Mutex
	err := parallel(ctx, s.parallel(), len(todo), func(k int) error {
		e := todo[k]
		err := retry(ctx, func() error { return s.upload(ctx, e) })
		if errors.Is(err, errChanged) || errors.Is(err, fs.ErrNotExist) {
			return nil // the second scan will list it as changed
		}
		if err != nil {
			return err
		}
		s.mu.Lock()
		s.known[e.sum] = true
		s.mu.Unlock()
		mu.Lock()
		st.Uploaded++
		st.Bytes += e.size
		mu.Unlock()
		return nil
	})
	if st.Bytes > 0 {
		s.mu.Lock()
		s.rates = append(s.rates, rate{st.Bytes, time.Since(start)})
		if len(s.rates) > rateWindow {
			s.rates = s.rates[len(s.rates)-rateWindow:]
		}
		s.mu.Unlock()
	}
	return err
}

// errChanged says that a file's content no longer matched its hash while it was uploaded.
var errChanged = errors.New("file changed while it was uploaded")

// upload puts one file under its content's key, so that an object's content always matches its
// name even when the job rewrites the file meanwhile. A file last written at least settleAge
// before it is opened goes up as it is, read in parallel parts, and is checked afterwards: any
// later write gives it a newer mtime, so the same size and mtime on the same file mean the same
// content; if it changed, the object is deleted again. A younger file may share its mtime with a
// write still to come, so it is hashed again as it is read, and a difference fails the Put before
// the object appears.
func (s *Syncer) upload(ctx context.Context, e entry) error {
	f, err := os.Open(filepath.Join(s.Dir, filepath.FromSlash(e.rel)))
	if err != nil {
		return err
	}
	defer f.Close()
	before, err := f.Stat()
	if err != nil {
		return err
	}
	if !sameStat(before, e) {
		return fmt.Errorf("upload %s: %w", e.rel, errChanged)
	}
	key := ObjectKey(s.Job, e.sum)
	if time.Since(e.mtime) < settleAge {
		r := &verifyReader{r: f, h: sha256.New(), left: e.size, want: e.sum}
		err = s.Store.Put(ctx, key, r, e.size)
		if r.changed {
			return fmt.Errorf("upload %s: %w", e.rel, errChanged)
		}
	} else if err = s.Store.Put(ctx, key, f, e.size); err == nil {
		if after, serr := f.Stat(); serr != nil || !sameStat(after, e) {
			if derr := s.Store.Delete(ctx, key); derr != nil {
				return fmt.Errorf("upload %s: %w; deleting the object: %w", e.rel, errChanged, derr)
			}
			return fmt.Errorf("upload %s: %w", e.rel, errChanged)
		}
	}
	if err != nil {
		return fmt.Errorf("upload %s (%d bytes): %w", e.rel, e.size, err)
	}
	return nil
}

// settleAge is how long ago a file must have been written for its mtime to change with any later
// write: far above the coarsest file-system clock tick.
const settleAge = time.Second

// sameStat reports whether info shows the file as the scan saw it.
func sameStat(info fs.FileInfo, e entry) bool {
	return info.Size() == e.size && info.ModTime().Equal(e.mtime)
}

// verifyReader reads exactly left bytes and, with the last of them, fails unless their sha256 is
// want.
type verifyReader struct {
	r       io.Reader
	h       hash.Hash
	left    int64
	want    string
	changed bool
}

func (v *verifyReader) Read(p []byte) (int, error) {
	n := 0
	if v.left > 0 {
		if int64(len(p)) > v.left {
			p = p[:v.left]
		}
		var err error
		n, err = v.r.Read(p)
		v.h.Write(p[:n])
		v.left -= int64(n)
		if v.left > 0 {
			if err == io.EOF {
				v.changed = true
				return n, fmt.Errorf("file shrank: %w", errChanged)
			}
			return n, err
		}
	}
	// The last byte is read (or there were none): the content must match its name, even empty.
	if v.changed || hex.EncodeToString(v.h.Sum(nil)) != v.want {
		v.changed = true
		return n, errChanged
	}
	return n, io.EOF
}

// settled returns the entries a manifest may name when some files changed while a pass ran:
// every top-level entry none of whose files changed and all of whose contents are in the store,
// as scanned, and for the others what the previous manifest held of them. A checkpoint published
// by a rename does not change once it appears, so a job that writes checkpoints faster than they
// upload still gets each finished one into a manifest.
func (s *Syncer) settled(es []entry, unstable []string) []entry {
	moving := map[string]bool{}
	for _, p := range unstable {
		moving[topLevel(p)] = true
	}
	s.mu.Lock()
	for _, e := range es {
		if e.sum == "" || !s.known[e.sum] {
			moving[topLevel(e.rel)] = true
		}
	}
	last := s.last
	s.mu.Unlock()
	var out []entry
	for _, e := range es {
		if !moving[topLevel(e.rel)] {
			out = append(out, e)
		}
	}
	if last != nil {
		for _, f := range last.Files {
			if moving[topLevel(f.Path)] {
				out = append(out, entry{rel: f.Path, size: f.Size, mtime: f.MTime, mode: f.Mode, sum: f.SHA256})
			}
		}
	}
	slices.SortFunc(out, func(a, b entry) int { return strings.Compare(a.rel, b.rel) })
	return out
}

// topLevel returns the top-level entry of the checkpoint directory that a path is under.
func topLevel(rel string) string {
	top, _, _ := strings.Cut(rel, "/")
	return top
}

// changed returns the paths whose size or mtime differ between two scans, or that only one holds.
func changed(before, after []entry) []string {
	var out []string
	i, j := 0, 0
	for i < len(before) || j < len(after) {
		switch {
		case j == len(after) || i < len(before) && before[i].rel < after[j].rel:
			out = append(out, before[i].rel)
			i++
		case i == len(before) || after[j].rel < before[i].rel:
			out = append(out, after[j].rel)
			j++
		default:
			b, a := before[i], after[j]
			if b.size != a.size || !b.mtime.Equal(a.mtime) || b.mode != a.mode || b.sum == "" {
				out = append(out, b.rel)
			}
			i++
			j++
		}
	}
	return out
}

// parallel runs fn(0) … fn(n-1) on up to workers goroutines and returns the first error; after
// an error no new call starts.
func parallel(ctx context.Context, workers, n int, fn func(int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for i := range next {
				if err := fn(i); err != nil {
					cancel(err)
				}
			}
		})
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	return context.Cause(ctx)
}

// retry runs op until it succeeds, fails with an error retrying cannot mend (bad input, a
// missing object, a file that changed) or has failed retries times, backing off in between.
func retry(ctx context.Context, op func() error) error {
	wait := retryBase
	for attempt := 1; ; attempt++ {
		err := op()
		if err == nil || attempt == retries || !retryable(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		wait *= 2
	}
}

func retryable(err error) bool {
	if errors.Is(err, errChanged) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, context.Canceled) ||
		errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	switch gpucost.ErrorCode(err) {
	case gpucost.EInvalid, gpucost.ENotFound:
		return false
	}
	return true
}
