package file

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/objectstoretest"
)

func TestContract(t *testing.T) {
	s, err := New(filepath.Join(t.TempDir(), "store"))
	if err != nil {
		t.Fatal(err)
	}
	objectstoretest.Run(t, s)
	// No temporary file is left behind.
	filepath.WalkDir(s.Root, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), tempPrefix) {
			t.Errorf("temporary file %s left behind", p)
		}
		return nil
	})
}

func TestBadKeys(t *testing.T) {
	s, _ := New(t.TempDir())
	ctx := context.Background()
	for _, key := range []string{"", "/abs", "../up", "a/../../b", "a//b", "a/./b", "a/", `a\b`, "a/.gpucost-put-1"} {
		if err := s.Put(ctx, key, strings.NewReader("x"), 1); gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("Put(%q) = %v, want an %s error", key, err, gpucost.EInvalid)
		}
		if _, err := s.Get(ctx, key); gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("Get(%q) = %v, want an %s error", key, err, gpucost.EInvalid)
		}
	}
	if _, err := s.List(ctx, "../x/"); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("List(../x/) = %v, want an %s error", err, gpucost.EInvalid)
	}
}

func TestGetDirectoryIsNotFound(t *testing.T) {
	s, _ := New(t.TempDir())
	ctx := context.Background()
	objectstoretest.Put(ctx, t, s, "d/k", []byte("x"))
	if _, err := s.Get(ctx, "d"); gpucost.ErrorCode(err) != gpucost.ENotFound {
		t.Errorf("Get(directory) = %v, want %s", err, gpucost.ENotFound)
	}
}

func FuzzCheckKey(f *testing.F) {
	for _, k := range []string{"job/objects/abc", "job/manifests/00000000000000000001.json", "..", "a/../b", "/x", ""} {
		f.Add(k)
	}
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, key string) {
		if CheckKey(key) != nil {
			return
		}
		p := filepath.Join(root, filepath.FromSlash(key))
		rel, err := filepath.Rel(root, p)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
			t.Errorf("CheckKey(%q) accepted a key that maps outside the root: %q", key, rel)
		}
	})
}
