// Package objectstoretest holds the tests every gpucost.ObjectStore must pass, so the local
// directory store and the S3 store are held to the same contract.
package objectstoretest

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/gpucost/gpucost"
)

// Run checks s against the ObjectStore contract. s must be empty.
func Run(t *testing.T, s gpucost.ObjectStore) {
	t.Helper()
	ctx := context.Background()
	t.Run("PutGet", func(t *testing.T) { putGet(ctx, t, s) })
	t.Run("Missing", func(t *testing.T) { missing(ctx, t, s) })
	t.Run("List", func(t *testing.T) { list(ctx, t, s) })
	t.Run("Overwrite", func(t *testing.T) { overwrite(ctx, t, s) })
	t.Run("ShortReader", func(t *testing.T) { shortReader(ctx, t, s) })
}

// Put stores data under key or fails the test.
func Put(ctx context.Context, t testing.TB, s gpucost.ObjectStore, key string, data []byte) {
	t.Helper()
	if err := s.Put(ctx, key, bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatalf("Put(%q, %d bytes) = %v", key, len(data), err)
	}
}

// Get reads the object under key or fails the test.
func Get(ctx context.Context, t testing.TB, s gpucost.ObjectStore, key string) []byte {
	t.Helper()
	rc, err := s.Get(ctx, key)
	if err != nil {
		t.Fatalf("Get(%q) = %v", key, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("Get(%q): read: %v", key, err)
	}
	return b
}

func putGet(ctx context.Context, t *testing.T, s gpucost.ObjectStore) {
	for _, n := range []int{0, 1, 100_000, 9 << 20, 21 << 20} {
		data := make([]byte, n)
		rand.Read(data)
		key := "pg/obj-" + strings.Repeat("x", n%7)
		Put(ctx, t, s, key, data)
		if got := Get(ctx, t, s, key); !bytes.Equal(got, data) {
			t.Errorf("Get(%q) returned %d bytes, want the %d put", key, len(got), n)
		}
	}
}

func missing(ctx context.Context, t *testing.T, s gpucost.ObjectStore) {
	_, err := s.Get(ctx, "missing/none")
	if gpucost.ErrorCode(err) != gpucost.ENotFound {
		t.Errorf("Get(missing) = %v, want an %s error", err, gpucost.ENotFound)
	}
	if err := s.Delete(ctx, "missing/none"); err != nil {
		t.Errorf("Delete(missing) = %v, want nil", err)
	}
}

func list(ctx context.Context, t *testing.T, s gpucost.ObjectStore) {
	keys := []string{"ls/a/b", "ls/a.x", "ls/a/c/d", "ls/b", "lsx"}
	for _, k := range keys {
		Put(ctx, t, s, k, []byte(k))
	}
	for _, c := range []struct {
		prefix string
		want   []string
	}{
		{"ls/", []string{"ls/a.x", "ls/a/b", "ls/a/c/d", "ls/b"}},
		{"ls/a", []string{"ls/a.x", "ls/a/b", "ls/a/c/d"}},
		{"ls/a/", []string{"ls/a/b", "ls/a/c/d"}},
		{"ls/zz/", nil},
		{"nothing/", nil},
	} {
		got, err := s.List(ctx, c.prefix)
		if err != nil {
			t.Fatalf("List(%q) = %v", c.prefix, err)
		}
		var names []string
		for _, o := range got {
			names = append(names, o.Key)
			if o.Size != int64(len(o.Key)) {
				t.Errorf("List(%q): %s size %d, want %d", c.prefix, o.Key, o.Size, len(o.Key))
			}
		}
		if strings.Join(names, " ") != strings.Join(c.want, " ") {
			t.Errorf("List(%q) = %v, want %v", c.prefix, names, c.want)
		}
	}
	for _, k := range keys {
		if err := s.Delete(ctx, k); err != nil {
			t.Errorf("Delete(%q) = %v", k, err)
		}
	}
	if got, err := s.List(ctx, "ls"); err != nil || len(got) != 0 {
		t.Errorf("List after Delete = %v, %v; want none", got, err)
	}
}

// overwrite puts two versions of one key concurrently with readers: every read sees one whole
// version.
func overwrite(ctx context.Context, t *testing.T, s gpucost.ObjectStore) {
	a, b := bytes.Repeat([]byte("a"), 1<<20), bytes.Repeat([]byte("b"), 1<<20)
	Put(ctx, t, s, "ow/k", a)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for i := range 6 {
			Put(ctx, t, s, "ow/k", [][]byte{a, b}[i%2])
		}
		close(stop)
	})
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			got := Get(ctx, t, s, "ow/k")
			if !bytes.Equal(got, a) && !bytes.Equal(got, b) {
				t.Errorf("Get during Put returned %d bytes that are neither version", len(got))
				return
			}
		}
	})
	wg.Wait()
}

// shortReader puts a reader with fewer bytes than announced: the Put fails and the old object
// stays.
func shortReader(ctx context.Context, t *testing.T, s gpucost.ObjectStore) {
	Put(ctx, t, s, "short/k", []byte("old"))
	err := s.Put(ctx, "short/k", io.MultiReader(strings.NewReader("new"), errReader{}), 10)
	if err == nil {
		t.Errorf("Put with a failing reader = nil, want an error")
	}
	if got := Get(ctx, t, s, "short/k"); string(got) != "old" {
		t.Errorf("after a failed Put, Get = %q, want %q", got, "old")
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("reader broke") }
