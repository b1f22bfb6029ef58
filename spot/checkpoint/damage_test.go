package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

// damage spoils the object of sum in store as one kind of fault would.
var damages = map[string]func(ctx context.Context, store gpucost.ObjectStore, key string) error{
	"checksum": func(ctx context.Context, store gpucost.ObjectStore, key string) error {
		r, err := store.Get(ctx, key)
		if err != nil {
			return err
		}
		var b bytes.Buffer
		b.ReadFrom(r)
		r.Close()
		data := b.Bytes()
		data[len(data)/2] ^= 0xff // same size, one flipped byte
		return store.Put(ctx, key, bytes.NewReader(data), int64(len(data)))
	},
	"size": func(ctx context.Context, store gpucost.ObjectStore, key string) error {
		return store.Put(ctx, key, strings.NewReader("short"), 5)
	},
	"missing": func(ctx context.Context, store gpucost.ObjectStore, key string) error {
		return store.Delete(ctx, key)
	},
}

// twoCheckpoints syncs step-1 (manifest 1), then step-2 (manifest 2), and returns the manifests
// and the sha256 of a file only step-2 holds.
func twoCheckpoints(t *testing.T, store gpucost.ObjectStore, job string) (Manifest, Manifest, string, []byte) {
	t.Helper()
	dir := t.TempDir()
	write(t, dir, "step-1/model.bin", random(200_000))
	s := &Syncer{Store: store, Job: job, Dir: dir}
	mustSync(t, s)
	step2 := random(300_000)
	write(t, dir, "step-2/model.bin", step2)
	mustSync(t, s)
	ctx := context.Background()
	m1, err := readManifest(ctx, store, ManifestKey(job, 1))
	if err != nil {
		t.Fatal(err)
	}
	m2, err := readManifest(ctx, store, ManifestKey(job, 2))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range m2.Files {
		if f.Path == "step-2/model.bin" {
			return m1, m2, f.SHA256, step2
		}
	}
	t.Fatalf("manifest 2 lacks step-2/model.bin: %+v", m2)
	return m1, m2, "", nil
}

// One damaged object in the newest checkpoint: Restore warns naming it and restores the one
// before, into a directory that then holds exactly that checkpoint; a later Sync uploads the
// damaged content again, so the next latest checkpoint verifies.
func TestRestoreFallsBackPastDamagedCheckpoint(t *testing.T) {
	for storeName, store := range stores(t) {
		for damageName, damage := range damages {
			t.Run(storeName+"/"+damageName, func(t *testing.T) {
				ctx := context.Background()
				job := "fb-" + damageName
				m1, m2, sum, step2 := twoCheckpoints(t, store, job)
				if err := damage(ctx, store, ObjectKey(job, sum)); err != nil {
					t.Fatal(err)
				}
				into := filepath.Join(t.TempDir(), "ckpt")
				write(t, into, "step-1/model.bin", []byte("stale")) // replaced
				write(t, into, "step-9/partial.bin", []byte("x"))   // not in the checkpoint: removed
				var logs bytes.Buffer
				s := &Syncer{Store: store, Job: job, Dir: into, Log: slog.New(slog.NewTextHandler(&logs, nil))}
				got, ok, err := s.Restore(ctx)
				if err != nil || !ok || got.Seq != 1 {
					t.Fatalf("Restore with manifest 2 damaged = seq %d, %v, %v; want seq 1", got.Seq, ok, err)
				}
				if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), m2.Key) {
					t.Errorf("warnings do not name the damaged checkpoint %s:\n%s", m2.Key, logs.String())
				}
				sameTree(t, into, m1)
				// The job writes step 2 again: it must be uploaded again, not taken as stored.
				write(t, into, "step-2/model.bin", step2)
				if st := mustSync(t, s); st.Seq != 3 {
					t.Errorf("Sync after the fallback wrote seq %d, want 3", st.Seq)
				}
				m3, err := Latest(ctx, store, job)
				if err != nil || m3.Seq != 3 {
					t.Fatalf("Latest = seq %d, %v; want 3", m3.Seq, err)
				}
				if err := Verify(ctx, store, m3); err != nil {
					t.Errorf("Verify of the checkpoint synced after the fallback: %v", err)
				}
			})
		}
	}
}

// When every checkpoint is damaged Restore fails with ErrNoIntactCheckpoint, naming them, and
// the directory keeps what it held, with no working directories left in it.
func TestRestoreAllDamaged(t *testing.T) {
	for name, store := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			m1, m2, sum, _ := twoCheckpoints(t, store, "bad")
			for _, f := range m1.Files {
				if err := damages["checksum"](ctx, store, ObjectKey("bad", f.SHA256)); err != nil {
					t.Fatal(err)
				}
			}
			if err := damages["size"](ctx, store, ObjectKey("bad", sum)); err != nil {
				t.Fatal(err)
			}
			into := t.TempDir()
			write(t, into, "mine/notes.txt", []byte("keep me"))
			_, ok, err := (&Syncer{Store: store, Job: "bad", Dir: into}).Restore(ctx)
			if ok || !errors.Is(err, ErrNoIntactCheckpoint) || gpucost.ErrorCode(err) != gpucost.EConflict {
				t.Fatalf("Restore with every checkpoint damaged = %v, %v; want an %s error wrapping ErrNoIntactCheckpoint", ok, err, gpucost.EConflict)
			}
			for _, key := range []string{m1.Key, m2.Key} {
				if !strings.Contains(err.Error(), key) {
					t.Errorf("Restore error %q does not name %s", err, key)
				}
			}
			entries, _ := os.ReadDir(into)
			if len(entries) != 1 || entries[0].Name() != "mine" {
				t.Errorf("directory after a failed restore holds %v, want only what it held", entries)
			}
			if b, _ := os.ReadFile(filepath.Join(into, "mine/notes.txt")); string(b) != "keep me" {
				t.Errorf("mine/notes.txt = %q after a failed restore, want it untouched", b)
			}
		})
	}
}
