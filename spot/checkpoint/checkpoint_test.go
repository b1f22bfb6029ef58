package checkpoint

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/file"
	"github.com/gpucost/gpucost/s3/s3test"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// stores returns an empty file store and an empty gofakes3 store.
func stores(t *testing.T) map[string]gpucost.ObjectStore {
	fs, err := file.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	endpoint, bucket := s3test.StartFake(t)
	return map[string]gpucost.ObjectStore{"file": fs, "gofakes3": s3test.Open(t, endpoint, bucket, "ckpt")}
}

// write puts data in dir/rel, creating directories.
func write(t testing.TB, dir, rel string, data []byte) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func random(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

func mustSync(t testing.TB, s *Syncer) Stats {
	t.Helper()
	st, err := s.Sync(context.Background())
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	return st
}

// sameTree fails the test unless dir holds exactly the files of m with their content and mode.
func sameTree(t *testing.T, dir string, m Manifest) {
	t.Helper()
	s := &Syncer{Dir: dir, hashes: map[string]cacheLine{}}
	es, _, err := s.scan()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.hashAll(context.Background(), es); err != nil {
		t.Fatal(err)
	}
	if len(es) != len(m.Files) {
		t.Fatalf("%s holds %d files, manifest %s names %d", dir, len(es), m.Key, len(m.Files))
	}
	for i, e := range es {
		f := m.Files[i]
		if e.rel != f.Path || e.sum != f.SHA256 || e.mode != f.Mode || !e.mtime.Equal(f.MTime) {
			t.Errorf("%s: %s %s %v %v; manifest: %s %s %v %v", dir, e.rel, e.sum[:8], e.mode, e.mtime, f.Path, f.SHA256[:8], f.Mode, f.MTime)
		}
	}
}

func TestSyncRestore(t *testing.T) {
	for name, store := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			write(t, dir, "step-1/model.bin", random(3<<20))
			write(t, dir, "step-1/optim.bin", random(100_000))
			write(t, dir, "step-1/copy.bin", nil)
			write(t, dir, "step-1/empty.bin", nil) // same content as copy.bin: one object
			write(t, dir, "step-1/.model.bin.tmp", random(10))
			write(t, dir, "writing.tmp/part", random(10))
			write(t, dir, ".gpucost-restore-1", random(10))
			os.Chmod(filepath.Join(dir, "step-1/optim.bin"), 0o600)
			s := &Syncer{Store: store, Job: "job", Dir: dir}
			st := mustSync(t, s)
			if st.Files != 4 || st.Uploaded != 3 || st.Bytes != 3<<20+100_000 || st.Seq != 1 || st.Manifest != ManifestKey("job", 1) {
				t.Errorf("first Sync = %+v; want 4 files, 3 objects, %d bytes, manifest 1", st, 3<<20+100_000)
			}
			if st := mustSync(t, s); !st.Unchanged || st.Hashed != 0 || st.Uploaded != 0 || st.Manifest != "" || st.Seq != 1 {
				t.Errorf("Sync of an unchanged directory = %+v; want unchanged, nothing hashed or uploaded", st)
			}
			write(t, dir, "step-2/model.bin", random(1000))
			mtime := time.Now().Add(time.Hour).Truncate(time.Second).UTC() // newer than step-1
			os.Chtimes(filepath.Join(dir, "step-2/model.bin"), mtime, mtime)
			if st := mustSync(t, s); st.Hashed != 1 || st.Uploaded != 1 || st.Seq != 2 {
				t.Errorf("Sync after one new file = %+v; want 1 hashed, 1 uploaded, seq 2", st)
			} else if st.Latest != "step-2" || !st.LatestTime.Equal(mtime) || st.LatestBytes != 1000 {
				t.Errorf("Sync after one new file = latest %q written %v, %d bytes; want step-2 written %v, 1000 bytes", st.Latest, st.LatestTime, st.LatestBytes, mtime)
			}
			m, err := Latest(ctx, store, "job")
			if err != nil || m.Seq != 2 || m.Latest != "step-2" || len(m.Files) != 5 {
				t.Fatalf("Latest = %+v, %v; want seq 2, latest step-2, 5 files", m, err)
			}
			if err := Verify(ctx, store, m); err != nil {
				t.Errorf("Verify: %v", err)
			}
			into := filepath.Join(t.TempDir(), "restored")
			r := &Syncer{Store: store, Job: "job", Dir: into}
			got, ok, err := r.Restore(ctx)
			if err != nil || !ok || got.Seq != 2 {
				t.Fatalf("Restore = seq %d, %v, %v; want seq 2", got.Seq, ok, err)
			}
			sameTree(t, into, m)
			// The restored copy is up to date: its first Sync reads nothing and writes nothing.
			if st := mustSync(t, r); !st.Unchanged || st.Hashed != 0 {
				t.Errorf("Sync after Restore = %+v; want unchanged with nothing hashed", st)
			}
		})
	}
}

func TestRestoreFreshStart(t *testing.T) {
	s := &Syncer{Store: stores(t)["file"], Job: "new", Dir: t.TempDir()}
	if m, ok, err := s.Restore(context.Background()); ok || err != nil {
		t.Errorf("Restore of a job with no checkpoint = %+v, %v, %v; want false, nil", m, ok, err)
	}
	if _, err := Latest(context.Background(), s.Store, "new"); gpucost.ErrorCode(err) != gpucost.ENotFound {
		t.Errorf("Latest of a job with no checkpoint = %v, want %s", err, gpucost.ENotFound)
	}
}

// Restore links the files already there with the right content, downloads the others, and
// leaves the directory holding exactly the checkpoint.
func TestRestoreSkipsPresentFiles(t *testing.T) {
	store := stores(t)["file"]
	dir := t.TempDir()
	write(t, dir, "a", []byte("aaa"))
	write(t, dir, "b", []byte("bbb"))
	mustSync(t, &Syncer{Store: store, Job: "j", Dir: dir})
	into := t.TempDir()
	write(t, into, "a", []byte("aaa"))
	write(t, into, "b", []byte("BBB"))
	write(t, into, "extra", []byte("mine"))
	cs := &countingStore{ObjectStore: store}
	m, _, err := (&Syncer{Store: cs, Job: "j", Dir: into}).Restore(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n := cs.gets.Load(); n != 2 { // the manifest and b
		t.Errorf("Restore made %d Gets, want 2 (the manifest and b)", n)
	}
	if b, _ := os.ReadFile(filepath.Join(into, "b")); string(b) != "bbb" || len(m.Files) != 2 {
		t.Errorf("b = %q after Restore, want bbb", b)
	}
	sameTree(t, into, m)
	if _, err := os.Stat(filepath.Join(into, "extra")); err == nil {
		t.Errorf("Restore kept a file the manifest does not name: want the directory to hold exactly the checkpoint")
	}
}

func TestKeepPrunes(t *testing.T) {
	for name, store := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			s := &Syncer{Store: store, Job: "j", Dir: dir, Keep: 2}
			write(t, dir, "shared", []byte("kept by all"))
			for i := range 5 {
				write(t, dir, "model", random(100+i))
				mustSync(t, s)
			}
			ms, _ := store.List(ctx, "j/manifests/")
			objs, _ := store.List(ctx, "j/objects/")
			if len(ms) != 2 || ms[0].Key != ManifestKey("j", 4) || len(objs) != 3 {
				t.Errorf("after 5 syncs with Keep 2: manifests %v, %d objects; want 4 and 5, 3 objects", ms, len(objs))
			}
			for seq := int64(4); seq <= 5; seq++ {
				m, err := readManifest(ctx, store, ManifestKey("j", seq))
				if err == nil {
					err = Verify(ctx, store, m)
				}
				if err != nil {
					t.Errorf("kept manifest %d: %v", seq, err)
				}
			}
		})
	}
}

// faultyStore fails Puts from the failFrom-th on (1-based), failing times of them (0: all).
type faultyStore struct {
	gpucost.ObjectStore
	puts     atomic.Int64
	failFrom int64
	times    int64
	failed   atomic.Int64
}

func (f *faultyStore) Put(ctx context.Context, key string, r io.Reader, size int64) error {
	if n := f.puts.Add(1); n >= f.failFrom && (f.times == 0 || f.failed.Load() < f.times) {
		f.failed.Add(1)
		return gpucost.Errorf(gpucost.EUnavailable, "put %s: injected failure %d", key, n)
	}
	return f.ObjectStore.Put(ctx, key, r, size)
}

type countingStore struct {
	gpucost.ObjectStore
	gets atomic.Int64
}

func (c *countingStore) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	c.gets.Add(1)
	return c.ObjectStore.Get(ctx, key)
}

func TestFailingStoreMidSync(t *testing.T) {
	ctx := context.Background()
	store := stores(t)["file"]
	dir := t.TempDir()
	write(t, dir, "a", random(1000))
	mustSync(t, &Syncer{Store: store, Job: "j", Dir: dir})
	write(t, dir, "b", random(1000))
	write(t, dir, "c", random(1000))

	// Two failed Puts are retried and the Sync succeeds.
	flaky := &faultyStore{ObjectStore: store, failFrom: 2, times: 2}
	st, err := (&Syncer{Store: flaky, Job: "j", Dir: dir, Parallel: 1}).Sync(ctx)
	if err != nil || st.Seq != 2 || flaky.failed.Load() != 2 {
		t.Errorf("Sync through 2 transient failures = %+v, %v; want manifest 2", st, err)
	}

	// A store that keeps failing from the manifest's Put on: the error comes back, naming what
	// failed, and manifest 2 stays the latest.
	write(t, dir, "d", random(1000))
	broken := &faultyStore{ObjectStore: store, failFrom: 2}
	_, err = (&Syncer{Store: broken, Job: "j", Dir: dir, Parallel: 1}).Sync(ctx)
	if gpucost.ErrorCode(err) != gpucost.EUnavailable || !strings.Contains(err.Error(), "manifest") || broken.failed.Load() != retries {
		t.Errorf("Sync to a failing store = %v after %d failed Puts; want an %s error about the manifest after %d", err, broken.failed.Load(), gpucost.EUnavailable, retries)
	}
	if m, err := Latest(ctx, store, "j"); err != nil || m.Seq != 2 {
		t.Errorf("Latest after a failed Sync = seq %d, %v; want 2", m.Seq, err)
	}
}

func TestCorruptManifestIgnored(t *testing.T) {
	ctx := context.Background()
	store := stores(t)["file"]
	dir := t.TempDir()
	write(t, dir, "a", random(100))
	mustSync(t, &Syncer{Store: store, Job: "j", Dir: dir})
	put := func(seq int64, data string) {
		if err := store.Put(ctx, ManifestKey("j", seq), strings.NewReader(data), int64(len(data))); err != nil {
			t.Fatal(err)
		}
	}
	good, _ := readManifest(ctx, store, ManifestKey("j", 1))
	good.Files[0].SHA256 = strings.Repeat("0", 64) // an object that is not in the store
	missing, _ := good.Encode()
	put(2, string(missing))
	put(3, `{"version": 1, "job": "j", "seq": 3, "files": [{"path": "../etc/passwd"`)
	var logs bytes.Buffer
	s := &Syncer{Store: store, Job: "j", Dir: t.TempDir(), Log: slog.New(slog.NewTextHandler(&logs, nil))}
	m, ok, err := s.Restore(ctx)
	if err != nil || !ok || m.Seq != 1 {
		t.Fatalf("Restore past two bad manifests = seq %d, %v, %v; want 1", m.Seq, ok, err)
	}
	for _, want := range []string{"00000000000000000003.json", "unexpected EOF", "00000000000000000002.json", "is missing"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("warnings lack %q:\n%s", want, logs.String())
		}
	}
	// The next manifest is numbered after the corrupt ones, and prunes them.
	write(t, s.Dir, "b", random(10))
	if st := mustSync(t, s); st.Seq != 4 {
		t.Errorf("Sync after corrupt manifests wrote seq %d, want 4", st.Seq)
	}
}

// A file rewritten while the pass runs: the manifest names only the settled entry, the file is
// listed, no object's content differs from its name, and the next pass adds the file.
func TestUnstableDirectory(t *testing.T) {
	ctx := context.Background()
	store := stores(t)["file"]
	dir := t.TempDir()
	write(t, dir, "a", random(1000))
	write(t, dir, "big", random(1<<20))
	meddler := &meddlingStore{ObjectStore: store, during: func() { write(t, dir, "big", random(1<<20)) }}
	s := &Syncer{Store: meddler, Job: "j", Dir: dir, Parallel: 1}
	st := mustSync(t, s)
	if st.Seq != 1 || len(st.Unstable) != 1 || st.Unstable[0] != "big" {
		t.Errorf("Sync while big is rewritten = %+v; want manifest 1 and big unstable", st)
	}
	if m, err := Latest(ctx, store, "j"); err != nil || len(m.Files) != 1 || m.Files[0].Path != "a" || m.Latest != "a" {
		t.Errorf("Latest after the unsettled pass = %+v, %v; want only a", m, err)
	}
	objs, _ := store.List(ctx, "j/objects/")
	for _, o := range objs {
		sum, _, _ := hashFile(filepath.Join(store.(*file.Store).Root, o.Key))
		if "j/objects/"+sum != o.Key {
			t.Errorf("object %s holds content with sha256 %s", o.Key, sum)
		}
	}
	if st := mustSync(t, s); st.Seq != 2 || len(st.Unstable) != 0 {
		t.Errorf("the next Sync = %+v; want manifest 2", st)
	}
	if m, err := Latest(ctx, store, "j"); err != nil || len(m.Files) != 2 || Verify(ctx, store, m) != nil {
		t.Errorf("Latest after the settled pass = %+v, %v; want a and big, verified", m, err)
	}
}

// A file written long ago goes up as it is and is checked after the Put: rewritten meanwhile,
// its object is deleted again and the file listed as unstable; the next pass stores it.
func TestUploadRewrittenOldFile(t *testing.T) {
	ctx := context.Background()
	store := stores(t)["file"]
	dir := t.TempDir()
	write(t, dir, "big", random(1<<20))
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "big"), old, old); err != nil {
		t.Fatal(err)
	}
	meddler := &meddlingStore{ObjectStore: store, during: func() { write(t, dir, "big", random(1<<20)) }}
	s := &Syncer{Store: meddler, Job: "j", Dir: dir}
	if st := mustSync(t, s); st.Manifest != "" || len(st.Unstable) != 1 {
		t.Errorf("Sync while the old file is rewritten = %+v; want no manifest and big unstable", st)
	}
	if objs, _ := store.List(ctx, "j/objects/"); len(objs) != 0 {
		t.Errorf("objects after the failed check = %v, want none", objs)
	}
	if st := mustSync(t, s); st.Seq != 1 {
		t.Errorf("the next Sync = %+v; want manifest 1", st)
	}
	if m, err := Latest(ctx, store, "j"); err != nil || Verify(ctx, store, m) != nil {
		t.Errorf("Latest = %+v, %v; want big, verified", m, err)
	}
}

// An object that no manifest names (put by a Sync killed before its manifest) is not trusted:
// a new Syncer uploads its content again.
func TestOrphanObjectUploadedAgain(t *testing.T) {
	ctx := context.Background()
	store := stores(t)["file"]
	dir := t.TempDir()
	content := random(5000)
	write(t, dir, "a", content)
	sum, _, _ := hashFile(filepath.Join(dir, "a"))
	if err := store.Put(ctx, ObjectKey("j", sum), bytes.NewReader([]byte("not the content")), 15); err != nil {
		t.Fatal(err)
	}
	s := &Syncer{Store: store, Job: "j", Dir: dir}
	if st := mustSync(t, s); st.Uploaded != 1 {
		t.Errorf("Sync over an orphan object = %+v; want it uploaded again", st)
	}
	if m, err := Latest(ctx, store, "j"); err != nil || Verify(ctx, store, m) != nil {
		t.Errorf("Latest = %+v, %v; want a, verified", m, err)
	}
}

// meddlingStore calls during once, in the middle of the first Put of an object bigger than 64 KiB.
type meddlingStore struct {
	gpucost.ObjectStore
	during func()
	done   atomic.Bool
}

func (m *meddlingStore) Put(ctx context.Context, key string, r io.Reader, size int64) error {
	if size > 64<<10 && !m.done.Swap(true) {
		head := make([]byte, 1000)
		io.ReadFull(r, head)
		m.during()
		r = io.MultiReader(bytes.NewReader(head), r)
	}
	return m.ObjectStore.Put(ctx, key, r, size)
}

func TestPendingAndBandwidth(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write(t, dir, "a", random(5000))
	write(t, dir, "b", random(7000))
	s := &Syncer{Store: stores(t)["file"], Job: "j", Dir: dir}
	if n, err := s.Pending(ctx); err != nil || n != 12000 || s.Bandwidth() != 0 {
		t.Errorf("before any Sync: Pending = %d, %v, Bandwidth = %v; want 12000 and 0", n, err, s.Bandwidth())
	}
	mustSync(t, s)
	if n, err := s.Pending(ctx); err != nil || n != 0 || s.Bandwidth() <= 0 {
		t.Errorf("after Sync: Pending = %d, %v, Bandwidth = %v; want 0 and a rate", n, err, s.Bandwidth())
	}
	write(t, dir, "c", random(300))
	if n, _ := s.Pending(ctx); n != 300 {
		t.Errorf("Pending with one new file = %d, want 300", n)
	}
}

func TestManifestGolden(t *testing.T) {
	dir := t.TempDir()
	mtime := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for i, f := range []struct{ rel, data string }{{"step-100/model.safetensors", "weights"}, {"step-100/optimizer.pt", "moments"}, {"step-200/model.safetensors", "weights 2"}} {
		write(t, dir, f.rel, []byte(f.data))
		os.Chtimes(filepath.Join(dir, f.rel), mtime.Add(time.Duration(i)*time.Minute), mtime.Add(time.Duration(i)*time.Minute))
	}
	os.Chtimes(filepath.Join(dir, "step-100"), mtime, mtime)
	os.Chtimes(filepath.Join(dir, "step-200"), mtime.Add(time.Hour), mtime.Add(time.Hour))
	store := stores(t)["file"]
	s := &Syncer{Store: store, Job: "golden", Dir: dir, Now: func() time.Time { return mtime.Add(2 * time.Hour) }}
	mustSync(t, s)
	rc, err := store.Get(context.Background(), ManifestKey("golden", 1))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rc)
	rc.Close()
	golden := filepath.Join("testdata", "manifest.golden.json")
	if *update {
		os.WriteFile(golden, got, 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("manifest differs from %s (go test -run ManifestGolden -update rewrites it):\n%s", golden, got)
	}
}

func TestParseManifestErrors(t *testing.T) {
	valid, err := os.ReadFile(filepath.Join("testdata", "manifest.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseManifest("k", valid); err != nil {
		t.Fatalf("ParseManifest(golden) = %v", err)
	}
	sum := `"` + strings.Repeat("a", 64) + `"`
	for _, c := range []struct{ name, data, says string }{
		{"truncated", string(valid[:len(valid)/2]), "unexpected EOF"},
		{"version", `{"version": 9, "job": "j", "seq": 1}`, "version 9"},
		{"seq", `{"version": 1, "job": "j", "seq": 0}`, "seq 0"},
		{"unknown field", `{"version": 1, "job": "j", "seq": 1, "extra": 1}`, "unknown field"},
		{"escape", `{"version": 1, "job": "j", "seq": 1, "files": [{"path": "../x", "sha256": ` + sum + `}]}`, `files[0]: path "../x"`},
		{"absolute", `{"version": 1, "job": "j", "seq": 1, "files": [{"path": "/x", "sha256": ` + sum + `}]}`, "files[0]: path"},
		{"sha", `{"version": 1, "job": "j", "seq": 1, "files": [{"path": "x", "sha256": "ABC"}]}`, "files[0]: sha256"},
		{"twice", `{"version": 1, "job": "j", "seq": 1, "files": [{"path": "x", "sha256": ` + sum + `}, {"path": "x", "sha256": ` + sum + `}]}`, "appears twice"},
		{"bytes", `{"version": 1, "job": "j", "seq": 1, "bytes": 5, "files": [{"path": "x", "size": 4, "sha256": ` + sum + `}]}`, "bytes 5"},
	} {
		_, err := ParseManifest("jobs/m.json", []byte(c.data))
		if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), "jobs/m.json") {
			t.Errorf("%s: ParseManifest = %v; want an %s error naming the key and saying %q", c.name, err, gpucost.EInvalid, c.says)
		}
	}
}

func FuzzParseManifest(f *testing.F) {
	valid, err := os.ReadFile(filepath.Join("testdata", "manifest.golden.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(valid)
	f.Add([]byte(`{"version": 1, "job": "j", "seq": 1, "files": [{"path": "a/../b"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseManifest("k", data)
		if err != nil {
			return
		}
		for _, file := range m.Files {
			rel, err := filepath.Rel("/root", filepath.Join("/root", filepath.FromSlash(file.Path)))
			if err != nil || rel == ".." || strings.HasPrefix(rel, "../") || file.Mode&^fs.ModePerm != 0 {
				t.Errorf("ParseManifest accepted file %+v", file)
			}
		}
		again, err := m.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseManifest("k", again); err != nil {
			t.Errorf("a parsed manifest does not parse once encoded: %v", err)
		}
	})
}

func TestVerifyCatchesCorruptObject(t *testing.T) {
	ctx := context.Background()
	store := stores(t)["file"]
	dir := t.TempDir()
	write(t, dir, "a", []byte("good"))
	mustSync(t, &Syncer{Store: store, Job: "j", Dir: dir})
	m, _ := Latest(ctx, store, "j")
	store.Put(ctx, ObjectKey("j", m.Files[0].SHA256), strings.NewReader("evil"), 4)
	if err := Verify(ctx, store, m); gpucost.ErrorCode(err) != gpucost.EConflict {
		t.Errorf("Verify of a corrupt object = %v, want %s", err, gpucost.EConflict)
	}
	_, _, err := (&Syncer{Store: store, Job: "j", Dir: t.TempDir()}).Restore(ctx)
	if err == nil || !strings.Contains(err.Error(), "sha256") {
		t.Errorf("Restore of a corrupt object = %v, want a checksum error", err)
	}
	if errors.Is(err, fs.ErrNotExist) {
		t.Error("unexpected not-exist")
	}
}
