package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/gpucost/gpucost/file"
	"github.com/gpucost/gpucost/spot"
)

// TestRunGraceOnSIGTERM is issue 16's run: "gpucost run --grace 10s", stopped with a SIGTERM
// before any upload was measured (the default 5 min sync interval), killed the command 4 ms
// after signalling it. Here a real gpucost run process gets the SIGTERM; the command, which
// takes 300 ms to save, must get its grace (the floor, 5 s, since the assumed 15 s upload does
// not fit 10 s), save and exit by itself; report jobs then shows its running time as productive,
// held by that checkpoint, and nothing lost.
func TestRunGraceOnSIGTERM(t *testing.T) {
	storeDir, dir := t.TempDir(), filepath.Join(t.TempDir(), "ckpt")
	cmd := exec.Command(os.Args[0], "gpucost", "run", "--name", "g", "--checkpoint-dir", dir, "--store", storeDir,
		"--cloud", "none", "--grace", "10s", "--",
		os.Args[0], "faketrainer", "-steps", "1000000", "-every", "10", "-step-time", "1ms", "-signal-exit", "75", "-save-delay", "300ms")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for giveUp := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if names, _ := filepath.Glob(filepath.Join(dir, "ckpt-*.bin")); len(names) > 0 {
			break
		}
		if time.Now().After(giveUp) {
			cmd.Process.Kill()
			t.Fatalf("the trainer wrote no checkpoint within 20 s; stderr %s", errb.String())
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != spot.ExitInterrupted {
		t.Fatalf("gpucost run after SIGTERM = exit %d, want %d; stderr %s", code, spot.ExitInterrupted, errb.String())
	}

	store, err := file.New(storeDir)
	if err != nil {
		t.Fatal(err)
	}
	evs, _, err := spot.ReadEvents(context.Background(), store, "g", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	var notice, stop spot.Event
	for _, ev := range evs {
		switch ev.Kind {
		case spot.EventNotice:
			notice = ev
		case spot.EventStop:
			stop = ev
		}
	}
	if notice.Grace == nil || *notice.Grace < 4.5 || *notice.Grace > 5 {
		t.Errorf("notice event = %+v; want a grace of about 5 s, the floor", notice)
	}
	if stop.Kind == "" || stop.Killed || stop.Status == nil || *stop.Status != 75 {
		t.Errorf("stop event = %+v; want the command's own exit 75 after saving", stop)
	}

	code, out, errOut := runGpucost(t, nil, "report", "jobs", "--store", storeDir, "--output", "json")
	var jobs []jobJSON
	if code != exitOK || json.Unmarshal([]byte(out), &jobs) != nil || len(jobs) != 1 {
		t.Fatalf("report jobs = exit %d, %q; %s", code, out, errOut)
	}
	j := jobs[0]
	if j.ProductiveS <= 0 || j.LostWorkS != 0 || j.Status != "interrupted" {
		t.Errorf("report jobs = productive %v s, lost %v s, status %q; want the time to the checkpoint saved on the signal productive, none lost",
			j.ProductiveS, j.LostWorkS, j.Status)
	}
}
