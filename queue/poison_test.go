package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// A poison item ends instead of holding the queue: an item whose command kills its worker is
// dead-lettered after --max-deliveries deliveries as "worker died", one whose command never
// exits is killed after --item-timeout each time and dead-lettered as timed out, and every
// other item completes, also those batched with the killer. Workers run as child processes,
// restarted when their job kills them.
func TestPoisonItemsEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("poison test skipped in -short mode: it runs worker processes for some seconds")
	}
	for _, tc := range []struct {
		batch, maxDeliveries int
		hung                 string // the hung item's reason, or a part of it
	}{
		{1, 3, "timed out after 2s in 3 of 3 deliveries"},
		// Beside the killer in a batch, the others die with it twice and then run alone
		// (isolateAfter), the killer last once it is known; the hung item times out when it
		// gets to run.
		{4, 5, "timed out after 2s in "},
	} {
		t.Run(fmt.Sprintf("batch %d", tc.batch), func(t *testing.T) { poisonItemsEnd(t, tc.batch, tc.maxDeliveries, tc.hung) })
	}
}

func poisonItemsEnd(t *testing.T, batch, maxDeliveries int, hungReason string) {
	s := startServer(t, t.TempDir())
	c := dial(t, s.URL())
	ctx := context.Background()
	pids := filepath.Join(t.TempDir(), "sleep.pids")
	items := []testItem{
		{ID: json.RawMessage(`"killer"`), KillWorker: true},
		{ID: json.RawMessage(`"hung"`), Hang: pids},
	}
	var good []testItem
	for i := range 8 {
		good = append(good, testItem{ID: json.RawMessage(fmt.Sprintf(`"g%d"`, i)), N: i})
	}
	items = append(items, good...)
	if _, err := c.Push(ctx, "poison", strings.NewReader(jsonl(items...)), "poison.jsonl", nil); err != nil {
		t.Fatal(err)
	}
	resultsDir := filepath.Join(t.TempDir(), "results")
	kills := runUntilEmpty(t, []string{s.URL(), "poison", resultsDir, strconv.Itoa(batch), "1s", strconv.Itoa(maxDeliveries), "2s"}, 10)
	if kills != maxDeliveries {
		t.Errorf("the killer item killed %d workers, want %d (--max-deliveries)", kills, maxDeliveries)
	}
	checkResults(t, resultsDir, append(good, testItem{ID: json.RawMessage(`"killer"`), Fail: true},
		testItem{ID: json.RawMessage(`"hung"`), Fail: true}))

	dead, err := c.DeadLetters(ctx, "poison")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"killer": fmt.Sprintf("worker died during %d deliveries", maxDeliveries),
		"hung":   hungReason,
	}
	for _, d := range dead {
		if !strings.Contains(d.Error, want[d.ID]) || want[d.ID] == "" || d.Deliveries != uint64(maxDeliveries) || len(d.Attempts) != maxDeliveries {
			t.Errorf("dead letter %s: error %q, %d deliveries, attempts %+v; want %q, %d deliveries and attempts",
				d.ID, d.Error, d.Deliveries, d.Attempts, want[d.ID], maxDeliveries)
		}
		delete(want, d.ID)
	}
	if len(dead) != 2 || len(want) != 0 {
		t.Errorf("DeadLetters = %+v; want the killer and the hung item", dead)
	}
	st, err := c.Status(ctx, "poison", time.Now())
	if err != nil || st.Done != 8 || st.Dead != 2 || st.Pending != 0 || st.InFlight != 0 || len(st.RecentDead) != 2 {
		t.Errorf("Status = %+v, %v; want 8 done, 2 dead with reasons, nothing pending or in flight", st, err)
	}
	info, err := c.js.Consumer(ctx, "GPUCOST_Q_poison", consumerName)
	if err != nil {
		t.Fatal(err)
	}
	if got := info.CachedInfo().Config.MaxDeliver; got != 2*maxDeliveries+deadLetterDeliveries {
		t.Errorf("consumer MaxDeliver = %d, want twice --max-deliveries %d + %d", got, maxDeliveries, deadLetterDeliveries)
	}
	checkGone(t, pids, -1)
}

// runUntilEmpty runs one worker process at a time until one exits on an empty queue,
// starting another whenever its job kills it. It returns the number of workers killed.
func runUntilEmpty(t *testing.T, args []string, maxKills int) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for kills := 0; ; kills++ {
		cmd := exec.CommandContext(ctx, os.Args[0], append([]string{roleWorker}, args...)...)
		cmd.Stderr = os.Stderr
		err := cmd.Run()
		if err == nil {
			return kills
		}
		var ee *exec.ExitError
		if ctx.Err() != nil || !errors.As(err, &ee) || kills == maxKills {
			t.Fatalf("worker %d: %v (after %d killed)", kills+1, err, kills)
		}
		if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("worker %d ended with %v, want an exit on an empty queue or SIGKILL from its job", kills+1, err)
		}
	}
}

// checkGone checks that the n (-1: any number of) processes whose pids are in file have ended: the item timeout
// killed the hung job's whole process group, not just the job.
func checkGone(t *testing.T, file string, n int) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(string(data))
	if n >= 0 && len(lines) != n || len(lines) == 0 {
		t.Errorf("%s holds %d pids, want %d (one per run of the hung item)", file, len(lines), n)
	}
	for _, l := range lines {
		pid, _ := strconv.Atoi(l)
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue // gone, or no /proc here
		}
		// The state follows the command name in parentheses; Z is a zombie waiting for init.
		if f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:])); len(f) > 0 && f[0] != "Z" {
			t.Errorf("sleep %d started by the hung item is still running (state %s): the timeout did not kill its process group", pid, f[0])
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// An item the server stopped delivering, because the worker of its last delivery died too,
// is found by an idle worker's sweep and dead-lettered.
func TestSweepDeadLettersAbandonedItems(t *testing.T) {
	s := startServer(t, t.TempDir())
	c := dial(t, s.URL())
	ctx := context.Background()
	if _, err := c.Push(ctx, "t6", strings.NewReader(`{"id":"lost","n":1}`), "-", nil); err != nil {
		t.Fatal(err)
	}
	n, _ := queueNames("t6")
	cons, err := c.ensureConsumer(ctx, n, 100*time.Millisecond, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Workers take "lost" (its run, a delivery up to its cap and its dead-letter delivery) and
	// die without a word.
	for range deliveryCap(1) + deadLetterDeliveries {
		b, err := cons.Fetch(1, jetstream.FetchMaxWait(5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		m, ok := <-b.Messages()
		if !ok || m == nil || m.Headers().Get(jetstream.MsgIDHeader) != "lost" {
			t.Fatalf("fetched %v, want the item \"lost\"", m)
		}
	}
	// The next pull finds the server has given up on it: nothing in flight, the item still in
	// the stream.
	b, err := cons.Fetch(1, jetstream.FetchMaxWait(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := <-b.Messages(); ok {
		t.Fatalf("fetched %v after %d deliveries, want nothing", m.Headers(), deliveryCap(1)+deadLetterDeliveries)
	}
	if info, err := cons.Info(ctx); err != nil || info.NumAckPending != 0 || info.NumPending != 0 {
		t.Fatalf("consumer after %d deliveries: %+v, %v; want nothing pending or in flight", deliveryCap(1)+deadLetterDeliveries, info, err)
	}
	if _, err := c.Push(ctx, "t6", strings.NewReader(`{"id":"ok","n":2}`), "-", nil); err != nil {
		t.Fatal(err)
	}
	store := newStore(t)
	w := testWorker(c, "t6", store)
	w.MaxDeliveries, w.Visibility = 1, 100*time.Millisecond
	runWorker(t, w)
	dead, err := c.DeadLetters(ctx, "t6")
	if err != nil {
		t.Fatal(err)
	}
	if len(dead) != 1 || dead[0].ID != "lost" || dead[0].Error != "worker died during 1 delivery" {
		t.Errorf("DeadLetters = %+v, want \"lost\": worker died during 1 delivery", dead)
	}
	if _, ok := readResult(t, store, "ok"); !ok {
		t.Errorf("the other item has no result")
	}
	if items, err := c.js.Stream(ctx, n.itemStream); err != nil || items.CachedInfo().State.Msgs != 0 {
		t.Errorf("items stream after the sweep: %v; want it empty", err)
	}
}

func TestReason(t *testing.T) {
	died := Attempt{Error: workerDied}
	timeout := Attempt{Error: "timed out after 10m0s", TimedOut: true}
	exit := Attempt{Error: "run job: exit status 1"}
	for _, tc := range []struct {
		name     string
		attempts []Attempt
		want     string
	}{
		{"all died", []Attempt{died, died, died}, "worker died during 3 deliveries"},
		{"one died", []Attempt{died}, "worker died during 1 delivery"},
		{"timeouts and a death", []Attempt{timeout, died, timeout}, "timed out after 10m0s in 2 of 3 deliveries; worker died during 1 of 3 deliveries"},
		{"exits", []Attempt{exit, exit}, "run job: exit status 1 in 2 of 2 deliveries"},
		{"one of each, failures first", []Attempt{died, timeout, exit}, "run job: exit status 1 in 1 of 3 deliveries; timed out after 10m0s in 1 of 3 deliveries; worker died during 1 of 3 deliveries"},
	} {
		if got := reason(tc.attempts); got != tc.want {
			t.Errorf("%s: reason(%v) = %q, want %q", tc.name, tc.attempts, got, tc.want)
		}
	}
}

func TestOutcomesFillDeaths(t *testing.T) {
	h := history{Attempts: []Attempt{{Delivery: 2, Error: "run job: exit status 3"}}}
	got := outcomes(h, 3, 5)
	want := []string{workerDied, "run job: exit status 3", workerDied}
	if len(got) != len(want) {
		t.Fatalf("outcomes(%+v, 3, 5) = %+v, want 3", h, got)
	}
	for i, a := range got {
		if a.Delivery != uint64(i+1) || a.Error != want[i] {
			t.Errorf("outcomes(%+v, 3, 5)[%d] = %+v, want delivery %d: %s", h, i, a, i+1, want[i])
		}
	}
}

// Deliveries that never started an item (it waited behind a killer) do not count towards
// MaxDeliveries, and deliveries after the MaxDeliveries-th that ran only dead-lettered it; an
// item that reached deliveryCap is spent whatever ran, and its dead letter lists the waits.
func TestOutcomesSkipWaits(t *testing.T) {
	waited := func(d uint64) Attempt { return Attempt{Delivery: d, Error: notStarted, Waited: true, Alone: true} }
	for _, tc := range []struct {
		name   string
		h      history
		upto   uint64
		want   []uint64 // deliveries listed
		spent  bool
		reason string
	}{
		{"waits skipped", history{Attempts: []Attempt{waited(3), waited(4)}}, 5, []uint64{1, 2, 5}, true,
			"worker died during 3 deliveries"},
		{"not yet spent", history{Attempts: []Attempt{waited(3)}}, 3, []uint64{1, 2, 3}, false,
			"worker died during 2 of 3 deliveries; not started in 1 of 3 deliveries"},
		{"dead-letter deliveries dropped", history{}, 5, []uint64{1, 2, 3}, true,
			"worker died during 3 deliveries"},
		{"cap reached", history{Attempts: []Attempt{waited(3), waited(4), waited(5), waited(6)}}, 6, []uint64{1, 2, 3, 4, 5, 6}, true,
			"not started in 4 of 6 deliveries; worker died during 2 of 6 deliveries"},
	} {
		w := &Worker{MaxDeliveries: 3}
		got := outcomes(tc.h, tc.upto, w.MaxDeliveries)
		var ds []uint64
		for _, a := range got {
			ds = append(ds, a.Delivery)
		}
		if !slices.Equal(ds, tc.want) {
			t.Errorf("%s: outcomes(upto %d, max 3) = deliveries %v, want %v", tc.name, tc.upto, ds, tc.want)
		}
		if s := w.spent(tc.h, tc.upto); s != tc.spent {
			t.Errorf("%s: spent(upto %d) = %v, want %v", tc.name, tc.upto, s, tc.spent)
		}
		if r := reason(got); r != tc.reason {
			t.Errorf("%s: reason = %q, want %q", tc.name, r, tc.reason)
		}
	}
}

func TestRunLimit(t *testing.T) {
	own := &task{timeout: 3 * time.Second}
	none := &task{}
	for _, tc := range []struct {
		name   string
		worker time.Duration
		tasks  []*task
		want   time.Duration
	}{
		{"worker's per item", 2 * time.Second, []*task{none, none}, 4 * time.Second},
		{"item's own wins", 2 * time.Second, []*task{own, none}, 5 * time.Second},
		{"no limit anywhere", 0, []*task{own, none}, 0},
		{"only items' own", 0, []*task{own, own}, 6 * time.Second},
	} {
		w := &Worker{ItemTimeout: tc.worker}
		if got := w.runLimit(tc.tasks); got != tc.want {
			t.Errorf("%s: runLimit with --item-timeout %s = %s, want %s", tc.name, tc.worker, got, tc.want)
		}
	}
}
