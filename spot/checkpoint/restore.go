package checkpoint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
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
	return latest(ctx, store, job, slog.New(slog.DiscardHandler))
}

// latest is Latest, warning on log about each manifest it skips.
func latest(ctx context.Context, store gpucost.ObjectStore, job string, log *slog.Logger) (Manifest, error) {
	var objs []gpucost.Object
	err := retry(ctx, func() (err error) {
		objs, err = store.List(ctx, job+"/")
		return err
	})
	if err != nil {
		return Manifest{}, fmt.Errorf("find the latest checkpoint of %s: %w", job, err)
	}
	have := map[string]bool{}
	var keys []string
	for _, o := range objs {
		have[o.Key] = true
		if _, ok := manifestSeq(job, o.Key); ok {
			keys = append(keys, o.Key)
		}
	}
	for i := len(keys) - 1; i >= 0; i-- {
		m, err := readManifest(ctx, store, keys[i])
		if gpucost.ErrorCode(err) == gpucost.EUnavailable || errors.Is(err, context.Canceled) {
			return Manifest{}, err
		}
		if err == nil && m.Job != job {
			err = fmt.Errorf("manifest %s is of job %q", keys[i], m.Job)
		}
		if err == nil {
			err = missingObject(m, have)
		}
		if err != nil {
			log.Warn("skipping a checkpoint manifest that cannot be restored", "job", job, "manifest", keys[i], "err", err)
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
			return fmt.Errorf("manifest %s: object %s of %s is missing", m.Key, f.SHA256, f.Path)
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

// Restore fetches the newest complete checkpoint (see Latest) into Dir and returns its manifest;
// false when the job has none, which is a fresh start. Files already in Dir with the right
// content are kept; the others are downloaded in parallel, checked against their sha256 and
// renamed into place. Files in Dir that the manifest does not name are left alone.
func (s *Syncer) Restore(ctx context.Context) (Manifest, bool, error) {
	s.run.Lock()
	defer s.run.Unlock()
	m, err := latest(ctx, s.Store, s.Job, s.log())
	if gpucost.ErrorCode(err) == gpucost.ENotFound {
		return Manifest{}, false, nil
	}
	if err != nil {
		return Manifest{}, false, err
	}
	s.mu.Lock()
	s.initLocked()
	s.manifests[m.Key] = &m // load need not read it again
	s.mu.Unlock()
	if err := s.load(ctx); err != nil {
		return Manifest{}, false, fmt.Errorf("restore %s: %w", m.Key, err)
	}
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return Manifest{}, false, fmt.Errorf("restore %s: %w", m.Key, err)
	}
	err = parallel(ctx, s.parallel(), len(m.Files), func(i int) error {
		return s.restoreFile(ctx, m, m.Files[i])
	})
	if err != nil {
		return Manifest{}, false, fmt.Errorf("restore %s into %s: %w", m.Key, s.Dir, err)
	}
	s.mu.Lock()
	s.last = &m
	s.manifests[m.Key] = &m
	s.mu.Unlock()
	s.log().Debug("checkpoint restored", "job", s.Job, "manifest", m.Key, "files", len(m.Files), "bytes", m.Bytes, "latest", m.Latest)
	return m, true, nil
}

// restoreFile puts one file of m in place unless it is there already, and records its hash so
// the next Sync does not read it again.
func (s *Syncer) restoreFile(ctx context.Context, m Manifest, f File) error {
	p := filepath.Join(s.Dir, filepath.FromSlash(f.Path))
	if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Size() == f.Size {
		if sum, n, err := hashFile(p); err == nil && n == f.Size && sum == f.SHA256 {
			s.remember(f.Path, info.Size(), info.ModTime(), sum)
			return nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	err := retry(ctx, func() error { return s.download(ctx, m, f, p) })
	if err != nil {
		return err
	}
	if err := os.Chtimes(p, f.MTime, f.MTime); err != nil {
		return fmt.Errorf("set mtime of %s: %w", f.Path, err)
	}
	if info, err := os.Stat(p); err == nil {
		s.remember(f.Path, info.Size(), info.ModTime(), f.SHA256)
	}
	return nil
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
