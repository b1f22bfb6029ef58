// Package faketrainer is a small stand-in for a training script, used by the runner's tests. It
// counts steps, folds each step into a state hash that only a correct resume can reproduce,
// writes a checkpoint every few steps the way real trainers do (temporary file, then rename),
// resumes from GPUCOST_RESUME_FROM, and on its signal saves a checkpoint and exits.
//
// Test binaries call Main from TestMain when their first argument is "faketrainer", so no
// separate binary has to be built.
package faketrainer

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Checkpoint files are named ckpt-<step>.bin and hold a header line, a payload, and a SHA-256
// of both, so a torn or mixed checkpoint is detected on resume.
const prefix = "ckpt-"

// Result is what the trainer writes to its -result file when it finishes all its steps.
type Result struct {
	Steps   int    `json:"steps"`
	State   string `json:"state"`   // hex of the state hash after Steps steps
	Resumes int    `json:"resumes"` // how many runs resumed from a checkpoint, this one included
}

// options are the trainer's flags.
type options struct {
	steps, every, size, crashAt, keep int
	periodic                          int // periodic checkpoints written at most; 0: no limit
	stepTime, saveDelay               time.Duration
	result, stamp                     string
	crashAlways, ignoreSignal         bool
	signalSave                        bool
	exitCode                          int
}

// Main runs the trainer with args (without the program name) and returns its exit status.
func Main(args []string) int {
	var o options
	fs := flag.NewFlagSet("faketrainer", flag.ContinueOnError)
	fs.IntVar(&o.steps, "steps", 100, "steps to train")
	fs.IntVar(&o.every, "every", 10, "checkpoint every N steps")
	fs.IntVar(&o.size, "size", 1024, "payload bytes per checkpoint")
	fs.IntVar(&o.keep, "keep", 2, "checkpoints to keep locally")
	fs.IntVar(&o.crashAt, "crash-at", 0, "on a fresh start, exit 3 when this step is reached")
	fs.BoolVar(&o.crashAlways, "crash-always", false, "exit 3 at once")
	fs.BoolVar(&o.ignoreSignal, "ignore-signal", false, "ignore SIGTERM (a trainer that never saves)")
	fs.IntVar(&o.exitCode, "signal-exit", 0, "exit status after saving on SIGTERM")
	fs.BoolVar(&o.signalSave, "signal-save", true, "save a checkpoint on SIGTERM before exiting (false: exit without saving)")
	fs.DurationVar(&o.saveDelay, "save-delay", 0, "time from SIGTERM to the save, as a trainer that saves at its next step boundary")
	fs.IntVar(&o.periodic, "periodic", 0, "write at most this many periodic checkpoints (0: no limit)")
	fs.DurationVar(&o.stepTime, "step-time", time.Millisecond, "time per step")
	fs.StringVar(&o.result, "result", "", "write a Result as JSON here when done")
	fs.StringVar(&o.stamp, "signal-stamp", "", "write the time the signal arrived (Unix ns) here")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := train(o); err != nil {
		var ex exitStatus
		if errors.As(err, &ex) {
			return int(ex)
		}
		fmt.Fprintln(os.Stderr, "faketrainer:", err)
		return 1
	}
	return 0
}

// exitStatus ends the trainer with a given status without it being a failure to report.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func train(o options) error {
	if o.crashAlways {
		return exitStatus(3)
	}
	dir := os.Getenv("GPUCOST_CHECKPOINT_DIR")
	if dir == "" {
		return errors.New("GPUCOST_CHECKPOINT_DIR is not set")
	}
	step, state, resumes := 0, Initial(), 0
	if from := os.Getenv("GPUCOST_RESUME_FROM"); from != "" {
		var err error
		if step, state, err = Load(from); err != nil {
			return err
		}
		resumes = 1 + readResumes(o.result)
	}
	fresh := resumes == 0
	saved := 0 // periodic checkpoints written by this run
	sigs := make(chan os.Signal, 1)
	if o.ignoreSignal {
		signal.Ignore(syscall.SIGTERM)
	} else {
		signal.Notify(sigs, syscall.SIGTERM, syscall.SIGUSR1)
	}
	fmt.Fprintf(os.Stderr, "faketrainer: starting at step %d\n", step)
	for step < o.steps {
		select {
		case <-sigs:
			if o.stamp != "" {
				os.WriteFile(o.stamp, fmt.Append(nil, time.Now().UnixNano()), 0o644)
			}
			if !o.signalSave {
				fmt.Fprintf(os.Stderr, "faketrainer: exiting at step %d on signal without saving\n", step)
				return exitStatus(o.exitCode)
			}
			time.Sleep(o.saveDelay)
			if err := save(dir, step, state, o); err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "faketrainer: saved step %d on signal\n", step)
			return exitStatus(o.exitCode)
		case <-time.After(o.stepTime):
		}
		state = Next(state, step)
		step++
		if fresh && step == o.crashAt {
			return exitStatus(3)
		}
		if step%o.every == 0 && (o.periodic == 0 || saved < o.periodic) || step == o.steps {
			if err := save(dir, step, state, o); err != nil {
				return err
			}
			saved++
		}
	}
	return writeResult(o.result, Result{Steps: step, State: hex.EncodeToString(state), Resumes: resumes})
}

// Initial is the state before step 0.
func Initial() []byte { s := sha256.Sum256([]byte("gpucost faketrainer")); return s[:] }

// Next folds step into state.
func Next(state []byte, step int) []byte {
	h := sha256.New()
	h.Write(state)
	binary.Write(h, binary.BigEndian, int64(step))
	return h.Sum(nil)
}

// StateAfter returns the state after n steps from the start: what a run that resumed correctly
// any number of times must end with.
func StateAfter(n int) string {
	s := Initial()
	for i := range n {
		s = Next(s, i)
	}
	return hex.EncodeToString(s)
}

// save writes the checkpoint for step through a temporary file and a rename, then removes all
// but the newest o.keep checkpoints.
func save(dir string, step int, state []byte, o options) error {
	name := filepath.Join(dir, fmt.Sprintf("%s%08d.bin", prefix, step))
	tmp := filepath.Join(dir, fmt.Sprintf(".%s%08d.bin.tmp", prefix, step))
	body := []byte(fmt.Sprintf("%d %x\n", step, state))
	payload := make([]byte, o.size)
	for i := range payload {
		payload[i] = byte(step + i)
	}
	body = append(body, payload...)
	sum := sha256.Sum256(body)
	if err := os.WriteFile(tmp, append(body, sum[:]...), 0o644); err != nil {
		return fmt.Errorf("write checkpoint: %w", err)
	}
	if err := os.Rename(tmp, name); err != nil {
		return fmt.Errorf("publish checkpoint: %w", err)
	}
	entries, err := filepath.Glob(filepath.Join(dir, prefix+"*.bin"))
	if err != nil {
		return err
	}
	for i := 0; i < len(entries)-o.keep; i++ { // Glob sorts, and names sort by step
		os.Remove(entries[i])
	}
	return nil
}

// Load reads and checks a checkpoint file, returning its step and state.
func Load(path string) (int, []byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, nil, fmt.Errorf("resume: %w", err)
	}
	if len(b) < sha256.Size {
		return 0, nil, fmt.Errorf("resume from %s: %d bytes is too short for a checkpoint", path, len(b))
	}
	body, sum := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	if got := sha256.Sum256(body); string(got[:]) != string(sum) {
		return 0, nil, fmt.Errorf("resume from %s: checksum mismatch, the checkpoint is torn", path)
	}
	line, _, _ := strings.Cut(string(body), "\n")
	var step int
	var hexState string
	if _, err := fmt.Sscanf(line, "%d %s", &step, &hexState); err != nil {
		return 0, nil, fmt.Errorf("resume from %s: header %q: %w", path, line, err)
	}
	state, err := hex.DecodeString(hexState)
	if err != nil {
		return 0, nil, fmt.Errorf("resume from %s: state: %w", path, err)
	}
	return step, state, nil
}

// readResumes returns the resume count recorded in the progress file beside the result, so a
// test can tell how many times the job was resumed.
func readResumes(result string) int {
	if result == "" {
		return 0
	}
	b, err := os.ReadFile(result + ".resumes")
	n := 0
	if err == nil {
		fmt.Sscan(string(b), &n)
	}
	os.WriteFile(result+".resumes", []byte(fmt.Sprint(n+1)), 0o644)
	return n
}

func writeResult(path string, r Result) error {
	if path == "" {
		return nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// ReadResult reads the -result file a finished trainer wrote.
func ReadResult(path string) (Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return Result{}, err
	}
	defer f.Close()
	var r Result
	b, err := io.ReadAll(f)
	if err != nil {
		return Result{}, err
	}
	return r, json.Unmarshal(b, &r)
}
