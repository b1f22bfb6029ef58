package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost/file"
	"github.com/gpucost/gpucost/spot"
	"github.com/gpucost/gpucost/spot/notice/noticetest"
)

// torchPython returns a Python that imports torch: python3 on PATH, else Debian's
// /usr/bin/python3 (where python3-torch installs). Without one the test skips with the install
// command, and fails under CI, which installs python3-torch (.ci/run).
func torchPython(t *testing.T) string {
	t.Helper()
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(py, "-c", "import torch").Run() == nil {
			return py
		}
	}
	msg := "python3 cannot import torch: apt-get install -y --no-install-recommends python3-torch"
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

var (
	finalLossRe = regexp.MustCompile(`(?m)^final step (\d+) loss (\S+)$`)
	resumedRe   = regexp.MustCompile(`resumed from (\S+ckpt-(\d+)\.pt) at step (\d+)`)
)

// finalLoss returns the loss examples/pytorch/train.py printed after its last step, exactly as
// printed.
func finalLoss(t *testing.T, what, stdout string, steps int) string {
	t.Helper()
	m := finalLossRe.FindStringSubmatch(stdout)
	if m == nil || m[1] != strconv.Itoa(steps) {
		t.Fatalf("%s: stdout %q has no line \"final step %d loss L\"", what, stdout, steps)
	}
	return m[2]
}

// TestExamplePyTorchResume runs examples/pytorch/train.py on CPU under gpucost run: a spot
// notice from a fake AWS metadata service mid-run makes the example save and exit 75, and
// gpucost run exit 75 after storing the checkpoint; a second run into an empty checkpoint
// directory restores it from the store, continues from the saved step, and ends with exactly
// the loss of an uninterrupted run with the same seed (issue 16, item 3).
func TestExamplePyTorchResume(t *testing.T) {
	py := torchPython(t)
	script, err := filepath.Abs(filepath.Join("..", "..", "examples", "pytorch", "train.py"))
	if err != nil {
		t.Fatal(err)
	}
	const steps = 200
	// About 2 s of training a tiny model; the step delay leaves time for the notice mid-run.
	train := []string{"--", py, script, "--steps", strconv.Itoa(steps), "--every", "20", "--batch", "32",
		"--width", "16", "--hidden", "32", "--lr", "0.01", "--seed", "7", "--step-delay", "0.01"}
	gpucostRun := func(store, dir string, flags ...string) []string {
		args := append([]string{"run", "--name", "torch", "--checkpoint-dir", dir, "--store", "file://" + store,
			"--instance-type", "g5.xlarge", "--price", "0.40"}, flags...)
		return append(args, train...)
	}

	// The uninterrupted run.
	code, out, errOut := runGpucost(t, nil, gpucostRun(t.TempDir(), t.TempDir(), "--cloud", "none")...)
	if code != exitOK {
		t.Fatalf("uninterrupted gpucost run = exit %d; stderr %s", code, errOut)
	}
	want := finalLoss(t, "uninterrupted run", out, steps)

	// The interrupted run: the notice goes up once the first checkpoint is written.
	store := t.TempDir()
	imds := noticetest.NewAWS(t)
	environ := map[string]string{"AWS_EC2_METADATA_SERVICE_ENDPOINT": imds.URL}
	first := t.TempDir()
	type result struct {
		code        int
		out, errOut string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errOut := runGpucost(t, environ, gpucostRun(store, first, "--cloud", "aws", "--poll", "50ms")...)
		done <- result{code, out, errOut}
	}()
	firstCkpt := filepath.Join(first, "ckpt-00000020.pt")
	var r result
	for issued, giveUp := false, time.Now().Add(2*time.Minute); ; {
		if !issued {
			if _, err := os.Stat(firstCkpt); err == nil {
				imds.IssueSpotAction("terminate", time.Now().Add(2*time.Minute))
				issued = true
			}
		}
		select {
		case r = <-done:
		case <-time.After(10 * time.Millisecond):
			if time.Now().After(giveUp) {
				t.Fatalf("gpucost run with a spot notice still running after 2 min (notice issued: %v)", issued)
			}
			continue
		}
		break
	}
	if r.code != spot.ExitInterrupted || !strings.Contains(r.errOut, "notice (deadline ") {
		t.Fatalf("gpucost run with a spot notice mid-run = exit %d, want %d after the example saved on the notice; stdout %q, stderr %s",
			r.code, spot.ExitInterrupted, r.out, r.errOut)
	}
	if finalLossRe.MatchString(r.out) {
		t.Fatalf("the interrupted run trained to the end before the notice (stdout %q): the notice came too late", r.out)
	}
	// The runner logs the command's status once it has exited after the notice.
	if !regexp.MustCompile(`"the command exited after the notice".* status=75\b`).MatchString(r.errOut) {
		t.Errorf("the runner's log does not show the example exiting 75 after the notice; stderr %s", r.errOut)
	}

	// The resumed run, on a "new machine": an empty checkpoint directory.
	second := filepath.Join(t.TempDir(), "ckpt")
	code, out, errOut = runGpucost(t, nil, gpucostRun(store, second, "--cloud", "none")...)
	if code != exitOK {
		t.Fatalf("resumed gpucost run = exit %d; stderr %s", code, errOut)
	}
	m := resumedRe.FindStringSubmatch(errOut)
	if m == nil {
		t.Fatalf("the resumed run did not resume from a checkpoint; stderr %s", errOut)
	}
	saved, _ := strconv.Atoi(m[2])
	if at, _ := strconv.Atoi(m[3]); filepath.Dir(m[1]) != second || at != saved || at < 20 || at >= steps {
		t.Errorf("the example %s; want a checkpoint in %s between step 20 and %d, resumed at its own step", m[0], second, steps)
	}
	if ev := lastStart(t, store); ev.ResumeFrom != m[1] {
		t.Errorf("the resumed run's start event resumes from %q, the example from %q", ev.ResumeFrom, m[1])
	}
	t.Logf("interrupted at step %d, resumed from %s; uninterrupted final loss %s", saved, m[1], want)
	if got := finalLoss(t, "resumed run", out, steps); got != want {
		t.Errorf("interrupted at step %d and resumed: final loss %s, uninterrupted %s; want them equal", saved, got, want)
	}
	// Issue 16: report jobs showed no productive time for a job that had stored its checkpoints.
	code, out, errOut = runGpucost(t, nil, "report", "jobs", "--store", store, "--output", "json")
	var jobs []jobJSON
	if code != exitOK || json.Unmarshal([]byte(out), &jobs) != nil || len(jobs) != 1 {
		t.Fatalf("report jobs = exit %d, %q; %s", code, out, errOut)
	}
	if j := jobs[0]; j.Runs != 2 || j.Status != "done" || j.ProductiveS <= 0 || j.LostWorkS < 0 {
		t.Errorf("report jobs = %+v; want 2 runs, done, with productive time", j)
	}
}

// lastStart returns the last start event of the job "torch" in store.
func lastStart(t *testing.T, store string) spot.Event {
	t.Helper()
	var last spot.Event
	for _, ev := range torchEvents(t, store) {
		if ev.Kind == spot.EventStart {
			last = ev
		}
	}
	return last
}

func torchEvents(t *testing.T, store string) []spot.Event {
	t.Helper()
	fs, err := file.New(store)
	if err != nil {
		t.Fatal(err)
	}
	events, _, err := spot.ReadEvents(context.Background(), fs, "torch", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(fmt.Errorf("read the events of job torch: %w", err))
	}
	return events
}
