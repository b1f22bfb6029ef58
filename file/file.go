// Package file keeps a gpucost.ObjectStore in a local directory: one file per object, written to
// a temporary file beside it, synced and renamed into place, so a reader never sees a part.
package file

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gpucost/gpucost"
)

var _ gpucost.ObjectStore = (*Store)(nil)

// tempPrefix starts the name of a file that a Put is still writing; List never shows one.
const tempPrefix = ".gpucost-put-"

// Store is an ObjectStore over the directory Root. Keys are '/'-separated paths under it.
type Store struct {
	Root string
}

// New returns a store over dir, creating it if it does not exist.
func New(dir string) (*Store, error) {
	if dir == "" {
		return nil, gpucost.Errorf(gpucost.EInvalid, "object store directory is empty")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, gpucost.Errorf(gpucost.EUnavailable, "create object store directory %s: %w", dir, err)
	}
	return &Store{Root: dir}, nil
}

// CheckKey returns an EInvalid Error if key cannot name an object: empty, absolute, with a ".."
// or "." element, an empty element, or a backslash.
func CheckKey(key string) error {
	bad := key == "" || strings.HasPrefix(key, "/") || strings.HasSuffix(key, "/") ||
		strings.ContainsAny(key, "\\\x00") || path.Clean(key) != key
	if !bad {
		for el := range strings.SplitSeq(key, "/") {
			if el == ".." || el == "." || strings.HasPrefix(el, tempPrefix) {
				bad = true
			}
		}
	}
	if bad {
		return gpucost.Errorf(gpucost.EInvalid, "object key %q is not a relative '/'-separated path without '..'", key)
	}
	return nil
}

// path returns the file that holds key.
func (s *Store) path(key string) (string, error) {
	if err := CheckKey(key); err != nil {
		return "", err
	}
	return filepath.Join(s.Root, filepath.FromSlash(key)), nil
}

// Put writes size bytes from r under key: to a temporary file in the same directory, synced, then
// renamed over the old object.
func (s *Store) Put(ctx context.Context, key string, r io.Reader, size int64) error {
	p, err := s.path(key)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("put %s: create directory: %w", key, err)
	}
	f, err := os.CreateTemp(dir, tempPrefix+"*")
	if err != nil {
		return fmt.Errorf("put %s: %w", key, err)
	}
	defer os.Remove(f.Name()) // a no-op once renamed
	if err := writeSynced(ctx, f, r, size); err != nil {
		return fmt.Errorf("put %s: %w", key, err)
	}
	if err := os.Rename(f.Name(), p); err != nil {
		return fmt.Errorf("put %s: %w", key, err)
	}
	return syncDir(dir)
}

// writeSynced copies size bytes (all of r when size < 0) into f, syncs and closes it.
func writeSynced(ctx context.Context, f *os.File, r io.Reader, size int64) error {
	var n int64
	var err error
	if size >= 0 {
		n, err = io.Copy(f, io.LimitReader(ctxReader{ctx, r}, size))
	} else {
		n, err = io.Copy(f, ctxReader{ctx, r})
	}
	if err == nil && size >= 0 && n != size {
		err = fmt.Errorf("read %d bytes, want %d", n, size)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}

// ctxReader stops a copy when its context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// Get opens the object under key, or returns an ENotFound Error.
func (s *Store) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	p, err := s.path(key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, gpucost.Errorf(gpucost.ENotFound, "object %s not found in %s", key, s.Root)
	}
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", key, err)
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, gpucost.Errorf(gpucost.ENotFound, "object %s not found in %s", key, s.Root)
	}
	return f, nil
}

// List returns the objects whose keys start with prefix, in key order.
func (s *Store) List(ctx context.Context, prefix string) ([]gpucost.Object, error) {
	// Walk only the deepest directory the prefix names in full.
	start := s.Root
	if i := strings.LastIndex(prefix, "/"); i > 0 {
		dir := prefix[:i]
		if CheckKey(dir) != nil {
			return nil, gpucost.Errorf(gpucost.EInvalid, "list prefix %q is not a relative path", prefix)
		}
		start = filepath.Join(s.Root, filepath.FromSlash(dir))
	}
	var out []gpucost.Object
	err := filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // a directory that vanished, or a prefix with no objects
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() || strings.HasPrefix(d.Name(), tempPrefix) {
			return nil
		}
		rel, err := filepath.Rel(s.Root, p)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		if !strings.HasPrefix(key, prefix) {
			return nil
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil // deleted while we walked
		} else if err != nil {
			return err
		}
		out = append(out, gpucost.Object{Key: key, Size: info.Size(), Modified: info.ModTime()})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s prefix %q: %w", s.Root, prefix, err)
	}
	// WalkDir visits in lexical order per directory, but "a/b" sorts after "a.x" as a key.
	slices.SortFunc(out, func(a, b gpucost.Object) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

// Delete removes the object under key; a missing object is not an error.
func (s *Store) Delete(ctx context.Context, key string) error {
	p, err := s.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete %s: %w", key, err)
	}
	return nil
}
