package checkpoint

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// manifest builds the manifest of a pass's entries.
func (s *Syncer) manifest(es []entry, latest string, created time.Time) Manifest {
	m := Manifest{Version: Version, Job: s.Job, Created: created.UTC(), Latest: latest, Files: make([]File, len(es))}
	for i, e := range es {
		m.Files[i] = File{Path: e.rel, Size: e.size, SHA256: e.sum, Mode: e.mode, MTime: e.mtime.UTC()}
		m.Bytes += e.size
	}
	return m
}

// sameContent reports whether two manifests name the same files with the same content, modes
// and latest entry.
func sameContent(a, b *Manifest) bool {
	return a.Latest == b.Latest && slices.EqualFunc(a.Files, b.Files, func(x, y File) bool {
		return x.Path == y.Path && x.Size == y.Size && x.SHA256 == y.SHA256 && x.Mode == y.Mode
	})
}

// writeManifest numbers m after the newest manifest in the store and puts it, in one atomic Put.
func (s *Syncer) writeManifest(ctx context.Context, m *Manifest) error {
	s.mu.Lock()
	m.Seq = s.lastSeq + 1
	s.mu.Unlock()
	m.Key = ManifestKey(s.Job, m.Seq)
	data, err := m.Encode()
	if err != nil {
		return err
	}
	err = retry(ctx, func() error {
		return s.Store.Put(ctx, m.Key, bytes.NewReader(data), int64(len(data)))
	})
	if err != nil {
		return fmt.Errorf("write manifest %s: %w", m.Key, err)
	}
	s.mu.Lock()
	s.lastSeq, s.last = m.Seq, m
	s.manifests[m.Key] = m
	s.mu.Unlock()
	return nil
}

// prune deletes all but the newest Keep valid manifests (newest is m, just written), then every
// object that none of the kept ones names. Manifests go first, so no manifest ever names a deleted
// object.
func (s *Syncer) prune(ctx context.Context, m *Manifest) error {
	keys, err := s.Store.List(ctx, s.Job+"/manifests/")
	if err != nil {
		return fmt.Errorf("list manifests: %w", err)
	}
	kept := []*Manifest{}
	var drop []string
	for i := len(keys) - 1; i >= 0; i-- {
		key := keys[i].Key
		seq, ok := manifestSeq(s.Job, key)
		switch {
		case !ok:
			continue // not ours
		case seq > m.Seq:
			continue // written by someone else meanwhile: leave it
		case len(kept) == s.keep():
			drop = append(drop, key)
			continue
		}
		km, err := s.readManifest(ctx, key)
		if err != nil {
			drop = append(drop, key) // older than m and unreadable: of no use
			continue
		}
		kept = append(kept, km)
	}
	for _, key := range drop {
		if err := s.Store.Delete(ctx, key); err != nil {
			return fmt.Errorf("delete manifest %s: %w", key, err)
		}
	}
	return s.pruneObjects(ctx, kept, drop)
}

// pruneObjects deletes the job's objects that no kept manifest names.
func (s *Syncer) pruneObjects(ctx context.Context, kept []*Manifest, dropped []string) error {
	s.mu.Lock()
	for _, key := range dropped {
		delete(s.manifests, key)
	}
	s.mu.Unlock()
	used := map[string]bool{}
	for _, km := range kept {
		for _, f := range km.Files {
			used[f.SHA256] = true
		}
	}
	objs, err := s.Store.List(ctx, s.Job+"/objects/")
	if err != nil {
		return fmt.Errorf("list objects: %w", err)
	}
	for _, o := range objs {
		sum := strings.TrimPrefix(o.Key, s.Job+"/objects/")
		if used[sum] {
			continue
		}
		if err := s.Store.Delete(ctx, o.Key); err != nil {
			return fmt.Errorf("delete object %s: %w", o.Key, err)
		}
		s.mu.Lock()
		delete(s.known, sum)
		s.mu.Unlock()
	}
	return nil
}

// readManifest returns the manifest under key, from memory when this Syncer has read or written
// it before.
func (s *Syncer) readManifest(ctx context.Context, key string) (*Manifest, error) {
	s.mu.Lock()
	m, ok := s.manifests[key]
	s.mu.Unlock()
	if ok {
		return m, nil
	}
	got, err := readManifest(ctx, s.Store, key)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.manifests[key] = &got
	s.mu.Unlock()
	return &got, nil
}

// Bandwidth returns the upload rate in bytes per second measured over the recent Syncs that
// uploaded anything, or 0 when there has been none.
func (s *Syncer) Bandwidth() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var bytes int64
	var took time.Duration
	for _, r := range s.rates {
		bytes += r.bytes
		took += r.took
	}
	if bytes == 0 || took <= 0 {
		return 0
	}
	return float64(bytes) / took.Seconds()
}

// Pending returns the bytes the next Sync would upload: the files whose content the store
// lacks. It reads no file: a file whose size or mtime changed since it was last hashed counts in
// full, so the figure errs high, as an estimate of upload time in a notice window should.
func (s *Syncer) Pending(ctx context.Context) (int64, error) {
	if err := s.load(ctx); err != nil {
		return 0, fmt.Errorf("pending upload of %s: %w", s.Dir, err)
	}
	es, _, err := s.scan()
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int64
	counted := map[string]bool{}
	for _, e := range es {
		c, ok := s.hashes[e.rel]
		if ok && c.size == e.size && c.mtime.Equal(e.mtime) {
			if s.known[c.sum] || counted[c.sum] {
				continue
			}
			counted[c.sum] = true
		}
		n += e.size
	}
	return n, nil
}
