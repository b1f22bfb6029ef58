package queue

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/gpucost/gpucost/file"
)

// The test binary doubles as the command a worker runs and as a worker process, so that the
// fault test can kill real processes without building the gpucost binary.
const (
	roleJob    = "queue-test-job"
	roleWorker = "queue-test-worker"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case roleJob:
			os.Exit(fakeJob(os.Stdin, os.Stdout, os.Stderr))
		case roleWorker:
			os.Exit(workerProcess(os.Args[2:]))
		}
	}
	os.Exit(m.Run())
}

// testItem is what the tests push.
type testItem struct {
	ID      json.RawMessage `json:"id,omitempty"`
	N       int             `json:"n"`
	Fail    bool            `json:"fail,omitempty"`
	SleepMS int             `json:"sleep_ms,omitempty"`
	// KillWorker makes the job kill its worker with SIGKILL, as a job that takes the machine
	// down with it would.
	KillWorker bool `json:"kill_worker,omitempty"`
	// Hang makes the job start `sleep 3600`, append its pid to the file Hang names, and wait.
	Hang string `json:"hang,omitempty"`
}

// fakeJob answers each JSONL item with one line, {"id":…,"square":n²}, exits 3 on an item
// built to fail, kills its worker or hangs on an item built to.
func fakeJob(in io.Reader, out, errOut io.Writer) int {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	w := bufio.NewWriter(out)
	defer w.Flush()
	for sc.Scan() {
		var it testItem
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			fmt.Fprintln(errOut, "fake job:", err)
			return 2
		}
		if it.Fail {
			fmt.Fprintf(errOut, "item %d is built to fail\n", it.N)
			return 3
		}
		if it.KillWorker {
			syscall.Kill(os.Getppid(), syscall.SIGKILL)
			return 4
		}
		if it.Hang != "" {
			return hang(it.Hang, errOut)
		}
		time.Sleep(time.Duration(it.SleepMS) * time.Millisecond)
		w.WriteString(expectedResult(it))
	}
	return 0
}

// hang runs `sleep 3600` with the job's stdout, notes its pid in pidFile and waits for it: only
// a kill of the whole process group ends it at once.
func hang(pidFile string, errOut io.Writer) int {
	cmd := exec.Command("sleep", "3600")
	cmd.Stdout = os.Stdout
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(errOut, "fake job:", err)
		return 2
	}
	f, err := os.OpenFile(pidFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintln(errOut, "fake job:", err)
		return 2
	}
	fmt.Fprintln(f, cmd.Process.Pid)
	f.Close()
	cmd.Wait()
	return 5
}

func expectedResult(it testItem) string {
	id := string(it.ID)
	if id == "" {
		id = "null"
	}
	return fmt.Sprintf("{\"id\":%s,\"square\":%d}\n", id, it.N*it.N)
}

// workerProcess runs a worker: URL QUEUE RESULTS_DIR BATCH VISIBILITY MAX_DELIVERIES ITEM_TIMEOUT.
func workerProcess(args []string) int {
	if len(args) != 7 {
		fmt.Fprintln(os.Stderr, "usage: URL QUEUE RESULTS BATCH VISIBILITY MAX_DELIVERIES ITEM_TIMEOUT")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	store, err := file.New(args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	batch, _ := strconv.Atoi(args[3])
	vis, _ := time.ParseDuration(args[4])
	maxDel, _ := strconv.Atoi(args[5])
	timeout, _ := time.ParseDuration(args[6])
	c, err := Dial(ctx, args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer c.Close()
	w := &Worker{Client: c, Queue: args[1], Results: store, Command: []string{os.Args[0], roleJob},
		Visibility: vis, MaxDeliveries: maxDel, ItemTimeout: timeout, Batch: batch, ExitWhenEmpty: true,
		Name: fmt.Sprintf("pid %d", os.Getpid())}
	if err := w.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
