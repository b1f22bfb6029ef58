package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/file"
	"github.com/gpucost/gpucost/internal/exitcode"
	"github.com/gpucost/gpucost/spot"
	"github.com/gpucost/gpucost/spot/checkpoint"
)

// flipObject flips one byte of every object of m that match selects, keeping its size.
func flipObject(t *testing.T, store gpucost.ObjectStore, m checkpoint.Manifest, match string) {
	t.Helper()
	ctx := context.Background()
	for _, f := range m.Files {
		if !strings.HasPrefix(f.Path, match) {
			continue
		}
		key := checkpoint.ObjectKey(m.Job, f.SHA256)
		r, err := store.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(r)
		r.Close()
		data[0] ^= 0xff
		if err := store.Put(ctx, key, bytes.NewReader(data), int64(len(data))); err != nil {
			t.Fatal(err)
		}
	}
}

// A damaged object in the newest checkpoint: gpucost run warns naming it and resumes from the
// one before. With every checkpoint damaged it exits with the code --help lists for that,
// without starting the command or touching the directory.
func TestRunFallsBackPastDamagedCheckpoint(t *testing.T) {
	ctx := context.Background()
	storeDir := t.TempDir()
	store, err := file.New(storeDir)
	if err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	s := &checkpoint.Syncer{Store: store, Job: "fb", Dir: src}
	var ms []checkpoint.Manifest
	for step := 1; step <= 2; step++ {
		p := filepath.Join(src, fmt.Sprintf("step-%d", step), "weights.bin")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, bytes.Repeat([]byte{byte(step)}, 10_000), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		m, err := checkpoint.Latest(ctx, store, "fb")
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	flipObject(t, store, ms[1], "step-2/")

	out := filepath.Join(t.TempDir(), "resumed-from")
	job := []string{"--", "sh", "-c", `printf %s "$GPUCOST_RESUME_FROM" > ` + out}
	ckpt := filepath.Join(t.TempDir(), "ckpt")
	args := append([]string{"run", "--name", "fb", "--checkpoint-dir", ckpt, "--store", "file://" + storeDir, "--cloud", "none"}, job...)
	code, _, errOut := runGpucost(t, nil, args...)
	if code != exitOK {
		t.Fatalf("gpucost run with the newest checkpoint damaged = exit %d; stderr %s", code, errOut)
	}
	if got, _ := os.ReadFile(out); string(got) != filepath.Join(ckpt, "step-1") {
		t.Errorf("the command resumed from %q, want %s", got, filepath.Join(ckpt, "step-1"))
	}
	if !strings.Contains(errOut, "skipping a checkpoint") || !strings.Contains(errOut, ms[1].Key) {
		t.Errorf("stderr does not warn about the damaged checkpoint %s:\n%s", ms[1].Key, errOut)
	}

	flipObject(t, store, ms[0], "step-1/")
	os.Remove(out)
	fresh := filepath.Join(t.TempDir(), "ckpt")
	os.MkdirAll(fresh, 0o755)
	os.WriteFile(filepath.Join(fresh, "mine"), []byte("keep"), 0o644)
	args = append([]string{"run", "--name", "fb", "--checkpoint-dir", fresh, "--store", "file://" + storeDir, "--cloud", "none"}, job...)
	code, _, errOut = runGpucost(t, nil, args...)
	if code != spot.ExitDamaged || !strings.Contains(errOut, "no stored checkpoint passes verification") {
		t.Errorf("gpucost run with every checkpoint damaged = exit %d, want %d and a clear error; stderr %s", code, spot.ExitDamaged, errOut)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("the command ran although no checkpoint could be restored")
	}
	if entries, _ := os.ReadDir(fresh); len(entries) != 1 || entries[0].Name() != "mine" {
		t.Errorf("checkpoint directory after the failed restore holds %v, want only what it held", entries)
	}
}

// Every exit code gpucost run returns is listed in its --help.
func TestRunHelpListsExitCodes(t *testing.T) {
	code, out, errOut := runGpucost(t, nil, "run", "--help")
	if code != exitOK {
		t.Fatalf("gpucost run --help = exit %d; %s", code, errOut)
	}
	for _, c := range []int{exitOK, exitFailure, exitInvalid, exitUnavailable,
		spot.ExitDamaged, spot.ExitFailed, spot.ExitSyncFailed, spot.ExitInterrupted} {
		if !strings.Contains(out, fmt.Sprintf("\n  %-4d", c)) {
			t.Errorf("gpucost run --help does not list exit code %d:\n%s", c, out)
		}
	}
}

// runError keeps failures without a code of gpucost run's own to exit 1.
func TestRunErrorCodes(t *testing.T) {
	e := &env{stderr: io.Discard}
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"conflict", gpucost.Errorf(gpucost.EConflict, "x"), exitFailure},
		{"not found", gpucost.Errorf(gpucost.ENotFound, "x"), exitFailure},
		{"invalid", gpucost.Errorf(gpucost.EInvalid, "x"), exitInvalid},
		{"unavailable", gpucost.Errorf(gpucost.EUnavailable, "x"), exitUnavailable},
		{"runner's", exitError{spot.ExitInterrupted}, spot.ExitInterrupted},
	} {
		got := exitcode.For(runError(e, tc.err))
		if got != tc.want {
			t.Errorf("%s: runError(%v) exits %d, want %d", tc.name, tc.err, got, tc.want)
		}
	}
}
