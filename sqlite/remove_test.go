package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestRemove checks that Remove deletes the file with its -wal and -shm, that the next Open
// starts empty, and that removing what is not there is no error.
func TestRemove(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gpucost.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SetSetting(ctx, "idle_below", "7"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, suffix := range []string{"-wal", "-shm"} { // as a crashed writer leaves them
		if err := os.WriteFile(path+suffix, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := Remove(path); err != nil {
		t.Fatalf("Remove(%s) = %v", path, err)
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if _, err := os.Stat(path + suffix); !os.IsNotExist(err) {
			t.Errorf("after Remove, %s%s: %v; want it gone", path, suffix, err)
		}
	}
	if err := Remove(path); err != nil {
		t.Errorf("Remove(%s) again = %v; want nothing to do", path, err)
	}
	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v, err := db.Setting(ctx, "idle_below", "none"); err != nil || v != "none" {
		t.Errorf("Setting after Remove and Open = %q, %v; want an empty store", v, err)
	}
}
