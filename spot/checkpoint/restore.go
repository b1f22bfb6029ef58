package checkpoint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// readManifest gets and parses the manifest under key.
func readManifest(ctx context.Context, store gpucost.ObjectStore, key string) (Manifest, error) {
	var data []byte
	err := retry(ctx, func() error {
		rc, err := store.Get(ctx, key)
		if err != nil {
			return err
		}
		defer rc.Close()
		data, err = io.ReadAll(io.LimitReader(rc, 1<<30))
		return err
	})
	if err != nil {
		return Manifest{}, fmt.Errorf("read manifest %s: %w", key, err)
	}
	return ParseManifest(key, data)
}

// Latest returns the newest manifest of job that parses and whose objects are all in the store;
// newer manifests that do not are skipped. It returns an ENotFound Error when the job has no such
// manifest.
func Latest(ctx context.Context, store gpucost.ObjectStore, job string) (Manifest, error) {
	keys, have, err := listJob(ctx, store, job)
	if err != nil {
		return Manifest{}, err
	}
	for i := len(keys) - 1; i >= 0; i-- {
		m, err := usableManifest(ctx, func(ctx context.Context, key string) (*Manifest, error) {
			m, err := readManifest(ctx, store, key)
			return &m, err
		}, job, keys[i], have)
		if gpucost.ErrorCode(err) == gpucost.EUnavailable || errors.Is(err, context.Canceled) {
			return Manifest{}, err
		}
		if err != nil {
			continue
		}
		return m, nil
	}
	return Manifest{}, gpucost.Errorf(gpucost.ENotFound, "job %s has no complete checkpoint in the store", job)
}

// missingObject returns an error naming the first object of m that is not in have.
func missingObject(m Manifest, have map[string]bool) error {
	for _, f := range m.Files {
		if !have[ObjectKey(m.Job, f.SHA256)] {
			return gpucost.Errorf(gpucost.ENotFound, "manifest %s: object %s of %s is missing", m.Key, f.SHA256, f.Path)
		}
	}
	return nil
}

// Verify downloads every object m names and checks its size and sha256.
func Verify(ctx context.Context, store gpucost.ObjectStore, m Manifest) error {
	for _, f := range m.Files {
		rc, err := store.Get(ctx, ObjectKey(m.Job, f.SHA256))
		if err != nil {
			return fmt.Errorf("verify %s: %s: %w", m.Key, f.Path, err)
		}
		h := sha256.New()
		n, err := io.Copy(h, rc)
		rc.Close()
		if err != nil {
			return fmt.Errorf("verify %s: %s: %w", m.Key, f.Path, err)
		}
		if sum := hex.EncodeToString(h.Sum(nil)); n != f.Size || sum != f.SHA256 {
			return gpucost.Errorf(gpucost.EConflict, "verify %s: %s: object holds %d bytes with sha256 %s, want %d bytes with %s",
				m.Key, f.Path, n, sum, f.Size, f.SHA256)
		}
	}
	return nil
}

// ErrNoIntactCheckpoint is the cause of Restore's error when the job has checkpoints in the
// store but none of them can be restored: every one is unreadable, names a missing object or
// holds an object whose size or sha256 is not what its manifest says.
var ErrNoIntactCheckpoint = errors.New("no stored checkpoint passes verification")

// Restore makes Dir hold exactly the newest checkpoint whose objects are all in the store and
// verify, and returns its manifest; false when the job has no checkpoint, which is a fresh start
// and leaves Dir alone. A checkpoint that does not verify is skipped with a warning naming it,
// and the next older one is tried. Each is restored into a temporary directory inside Dir and
// moved into place only once every file checks out, so a failed restore leaves Dir as it was.
// Files already in Dir with the right content are linked rather than downloaded again. When
// checkpoints exist but none verifies, the error is an EConflict wrapping ErrNoIntactCheckpoint;
// an unreachable store is an error of its own, never a reason to skip a checkpoint.
func (s *Syncer) Restore(ctx context.Context) (Manifest, bool, error) {
	s.run.Lock()
	defer s.run.Unlock()
	keys, have, err := listJob(ctx, s.Store, s.Job)
	if err != nil {
		return Manifest{}, false, err
	}
	if len(keys) == 0 {
		return Manifest{}, false, nil
	}
	if err := s.load(ctx); err != nil {
		return Manifest{}, false, fmt.Errorf("restore %s: %w", s.Job, err)
	}
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return Manifest{}, false, fmt.Errorf("restore %s: %w", s.Job, err)
	}
	var skipped []string
	for i := len(keys) - 1; i >= 0; i-- {
		m, err := usableManifest(ctx, s.readManifest, s.Job, keys[i], have)
		if err == nil {
			err = s.restoreInto(ctx, m)
		}
		if err == nil {
			s.mu.Lock()
			s.last = &m
			s.manifests[m.Key] = &m
			s.mu.Unlock()
			s.log().Debug("checkpoint restored", "job", s.Job, "manifest", m.Key, "files", len(m.Files), "bytes", m.Bytes, "latest", m.Latest)
			return m, true, nil
		}
		if !unusable(err) {
			return Manifest{}, false, fmt.Errorf("restore %s into %s: %w", keys[i], s.Dir, err)
		}
		s.log().Warn("skipping a checkpoint that cannot be restored; trying the one before it", "job", s.Job, "manifest", keys[i], "err", err)
		skipped = append(skipped, fmt.Sprintf("%s (%v)", keys[i], err))
	}
	return Manifest{}, false, gpucost.Errorf(gpucost.EConflict,
		"job %s: %w: all %d checkpoints in the store are damaged: %s; %s was left as it was; delete the damaged manifests to start fresh",
		s.Job, ErrNoIntactCheckpoint, len(skipped), strings.Join(skipped, "; "), s.Dir)
}

// listJob returns the keys of job's manifests, oldest first, and every key the job has.
func listJob(ctx context.Context, store gpucost.ObjectStore, job string) ([]string, map[string]bool, error) {
	var objs []gpucost.Object
	err := retry(ctx, func() (err error) {
		objs, err = store.List(ctx, job+"/")
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("find the checkpoints of %s: %w", job, err)
	}
	have := map[string]bool{}
	var keys []string
	for _, o := range objs {
		have[o.Key] = true
		if _, ok := manifestSeq(job, o.Key); ok {
			keys = append(keys, o.Key)
		}
	}
	return keys, have, nil
}

// usableManifest reads the manifest under key with read and checks that it is job's and that
// every object it names is in have.
func usableManifest(ctx context.Context, read func(context.Context, string) (*Manifest, error), job, key string, have map[string]bool) (Manifest, error) {
	mp, err := read(ctx, key)
	if err != nil {
		return Manifest{}, err
	}
	m := *mp
	if m.Job != job {
		err = gpucost.Errorf(gpucost.EInvalid, "manifest %s is of job %q", key, m.Job)
	}
	if err == nil {
		err = missingObject(m, have)
	}
	return m, err
}

// unusable reports whether err says a checkpoint itself is damaged (a manifest that does not
// parse, an object missing or not matching its manifest), rather than that the store or the
// local disk failed.
func unusable(err error) bool {
	switch gpucost.ErrorCode(err) {
	case gpucost.EInvalid, gpucost.ENotFound, gpucost.EConflict:
		return true
	}
	return false
}

// restoreInto builds m's files in a temporary directory inside Dir, each checked against its
// size and sha256, and then swaps them for Dir's contents. A Dir on a mount point works too:
// the temporary directory is on the same file system, and its ".gpucost" name keeps Sync away.
func (s *Syncer) restoreInto(ctx context.Context, m Manifest) error {
	tmp, err := os.MkdirTemp(s.Dir, restorePrefix)
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // empty once swapped in
	err = parallel(ctx, s.parallel(), len(m.Files), func(i int) error {
		return s.restoreFile(ctx, m, m.Files[i], tmp)
	})
	if err != nil {
		return err
	}
	if err := swapIn(s.Dir, tmp); err != nil {
		return fmt.Errorf("move %s into place: %w", m.Key, err)
	}
	for _, f := range m.Files {
		if info, err := os.Stat(filepath.Join(s.Dir, filepath.FromSlash(f.Path))); err == nil {
			s.remember(f.Path, info.Size(), info.ModTime(), f.SHA256)
		}
	}
	return nil
}

// Names of restore's working directories inside Dir; Sync ignores both (see ignored).
const (
	restorePrefix = ".gpucost-restore-"
	oldPrefix     = ".gpucost-old-"
)

// swapIn replaces the contents of dir with those of tmp, a directory inside it: dir's entries
// are moved into another directory inside it, tmp's are moved up, and the old ones removed.
// Every step is a rename within one file system, so dir is half-replaced only if the process
// dies within those renames. Left-overs of a restore killed earlier are removed with the rest.
func swapIn(dir, tmp string) error {
	old, err := os.MkdirTemp(dir, oldPrefix)
	if err != nil {
		return err
	}
	defer os.RemoveAll(old)
	current, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range current {
		if p := filepath.Join(dir, e.Name()); p != tmp && p != old {
			if err := os.Rename(p, filepath.Join(old, e.Name())); err != nil {
				return err
			}
		}
	}
	restored, err := os.ReadDir(tmp)
	if err != nil {
		return err
	}
	for _, e := range restored {
		if err := os.Rename(filepath.Join(tmp, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// restoreFile puts one file of m under tmp: a hard link to the file in Dir when that has the
// right content already, else a download checked against its size and sha256. An object
// that does not match is forgotten as stored, so that a later Sync uploads it again.
func (s *Syncer) restoreFile(ctx context.Context, m Manifest, f File, tmp string) error {
	rel := filepath.FromSlash(f.Path)
	p := filepath.Join(tmp, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if s.linkPresent(filepath.Join(s.Dir, rel), p, f) {
		return nil
	}
	err := retry(ctx, func() error { return s.download(ctx, m, f, p) })
	if gpucost.ErrorCode(err) == gpucost.EConflict {
		s.mu.Lock()
		delete(s.known, f.SHA256)
		s.mu.Unlock()
	}
	if err != nil {
		return err
	}
	if err := os.Chtimes(p, f.MTime, f.MTime); err != nil {
		return fmt.Errorf("set mtime of %s: %w", f.Path, err)
	}
	return nil
}

// linkPresent links p to the file at have if that holds f's content, with f's mode and mtime.
func (s *Syncer) linkPresent(have, p string, f File) bool {
	info, err := os.Stat(have)
	if err != nil || !info.Mode().IsRegular() || info.Size() != f.Size {
		return false
	}
	if sum, n, err := hashFile(have); err != nil || n != f.Size || sum != f.SHA256 {
		return false
	}
	if os.Link(have, p) != nil || os.Chmod(p, f.Mode) != nil || os.Chtimes(p, f.MTime, f.MTime) != nil {
		os.Remove(p)
		return false
	}
	return true
}

func (s *Syncer) remember(rel string, size int64, mtime time.Time, sum string) {
	s.mu.Lock()
	s.hashes[rel] = cacheLine{size, mtime, sum}
	s.mu.Unlock()
}

// download writes f's object to a temporary file beside p, checks it and renames it to p.
func (s *Syncer) download(ctx context.Context, m Manifest, f File, p string) error {
	rc, err := s.Store.Get(ctx, ObjectKey(m.Job, f.SHA256))
	if err != nil {
		return fmt.Errorf("get %s: %w", f.Path, err)
	}
	defer rc.Close()
	tmp, err := os.CreateTemp(filepath.Dir(p), ".gpucost-restore-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), rc)
	if err == nil {
		err = tmp.Chmod(f.Mode)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("download %s: %w", f.Path, err)
	}
	if sum := hex.EncodeToString(h.Sum(nil)); n != f.Size || sum != f.SHA256 {
		return gpucost.Errorf(gpucost.EConflict, "download %s: got %d bytes with sha256 %s, manifest %s says %d bytes with %s",
			f.Path, n, sum, m.Key, f.Size, f.SHA256)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return fmt.Errorf("download %s: %w", f.Path, err)
	}
	return nil
}
