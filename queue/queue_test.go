package queue

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/file"
	"github.com/gpucost/gpucost/queue/natsserver"
	"github.com/nats-io/nats.go/jetstream"
)

// startServer runs an embedded server on a free port for the test.
func startServer(t testing.TB, dir string) *natsserver.Server {
	t.Helper()
	s, err := natsserver.Start(natsserver.Options{DataDir: dir, Listen: "127.0.0.1:-1"})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(s.Shutdown)
	return s
}

func dial(t testing.TB, url string) *Client {
	t.Helper()
	c, err := Dial(context.Background(), url)
	if err != nil {
		t.Fatalf("Dial(%s): %v", url, err)
	}
	t.Cleanup(c.Close)
	return c
}

func newStore(t testing.TB) *file.Store {
	t.Helper()
	s, err := file.New(filepath.Join(t.TempDir(), "results"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func jsonl(items ...testItem) string {
	var b strings.Builder
	for _, it := range items {
		line, _ := json.Marshal(it)
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// readResult reads the result of item id as any reader would (FindResult).
func readResult(t testing.TB, s gpucost.ObjectStore, id string) (string, bool) {
	t.Helper()
	r, err := FindResult(context.Background(), s, id)
	if gpucost.ErrorCode(err) == gpucost.ENotFound {
		return "", false
	}
	if err != nil {
		t.Fatalf("FindResult(%s): %v", id, err)
	}
	return string(r.Data), true
}

func testWorker(c *Client, q string, store gpucost.ObjectStore) *Worker {
	return &Worker{Client: c, Queue: q, Results: store, Command: []string{os.Args[0], roleJob},
		Visibility: time.Second, MaxDeliveries: 2, Batch: 8, ExitWhenEmpty: true}
}

func runWorker(t testing.TB, w *Worker) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := w.Run(ctx); err != nil {
		t.Fatalf("Worker.Run: %v", err)
	}
}

// A push of good, duplicate, failing and malformed lines ends with a result for each good item
// and the others dead-lettered with their errors.
func TestPushWorkStatus(t *testing.T) {
	s := startServer(t, t.TempDir())
	c := dial(t, s.URL())
	ctx := context.Background()
	var items []testItem
	for i := range 30 {
		it := testItem{N: i}
		switch i % 3 {
		case 0:
			it.ID = json.RawMessage(fmt.Sprintf("%q", fmt.Sprintf("item-%d", i)))
		case 1:
			it.ID = json.RawMessage(fmt.Sprint(1000 + i))
		}
		items = append(items, it)
	}
	items = append(items, testItem{ID: json.RawMessage(`"bad"`), N: 7, Fail: true})
	input := jsonl(items...) + "\n{not json\n" + `{"id":"a/b","n":1}` + "\n"

	st, err := c.Push(ctx, "t1", strings.NewReader(input), "in.jsonl", nil)
	if err != nil {
		t.Fatalf("Push: %v", err)
	}
	if st.Pushed != 33 || st.Duplicates != 0 || st.Malformed != 2 {
		t.Errorf("Push = %+v, want 33 pushed, 0 duplicates, 2 malformed", st)
	}
	if len(st.FirstErrors) != 2 || !strings.HasPrefix(st.FirstErrors[0], "in.jsonl:33: ") || !strings.HasPrefix(st.FirstErrors[1], "in.jsonl:34: ") {
		t.Errorf("Push FirstErrors = %q, want in.jsonl:33 and in.jsonl:34", st.FirstErrors)
	}
	again, err := c.Push(ctx, "t1", strings.NewReader(input), "in.jsonl", nil)
	if err != nil || again.Pushed != 0 || again.Duplicates != 33 {
		t.Errorf("second Push = %+v, %v; want 0 pushed, 33 duplicates", again, err)
	}

	store := newStore(t)
	w := testWorker(c, "t1", store)
	runWorker(t, w)

	for _, it := range items[:30] {
		id, _ := idOf(it.ID)
		if id == "" {
			line, _ := json.Marshal(it)
			id = hashID(line)
		}
		got, ok := readResult(t, store, id)
		if want := expectedResult(it); !ok || got != want {
			t.Errorf("result %s = %q (found %v), want %q", id, got, ok, want)
		}
	}
	if _, ok := readResult(t, store, "bad"); ok {
		t.Errorf("the failing item has a result")
	}
	checkDead(t, c, "t1")
	status, err := c.Status(ctx, "t1", time.Now())
	if err != nil {
		t.Fatalf("Status: %v", err)
	}
	if status.Pending != 0 || status.InFlight != 0 || status.Done != 30 || status.Dead != 3 || status.Rate <= 0 {
		t.Errorf("Status = %+v, want 0 pending, 0 in flight, 30 done, 3 dead, a rate", status)
	}
}

func checkDead(t *testing.T, c *Client, q string) {
	t.Helper()
	dead, err := c.DeadLetters(context.Background(), q)
	if err != nil {
		t.Fatalf("DeadLetters: %v", err)
	}
	byID := map[string]DeadLetter{}
	for _, d := range dead {
		byID[d.ID] = d
	}
	if len(dead) != 3 {
		t.Fatalf("DeadLetters = %d letters %+v, want 3", len(dead), dead)
	}
	bad := byID["bad"]
	if bad.ExitCode == nil || *bad.ExitCode != 3 || !strings.Contains(bad.Stderr, "built to fail") || bad.Deliveries != 2 || bad.Source != "in.jsonl:31" {
		t.Errorf("dead letter of the failing item = %+v, want exit 3, its stderr, 2 deliveries, in.jsonl:31", bad)
	}
	var parse, id int
	for _, d := range dead {
		switch {
		case strings.HasPrefix(d.Error, "in.jsonl:33: malformed item: not a JSON object"):
			parse++
		case strings.HasPrefix(d.Error, "in.jsonl:34: malformed item: id \"a/b\""):
			id++
		}
	}
	if parse != 1 || id != 1 {
		t.Errorf("dead letters %+v: want one naming in.jsonl:33 (not JSON) and one in.jsonl:34 (bad id)", dead)
	}
}

// An item redelivered after its worker stored the result but died before acking is acked
// without running again, also when that was its last delivery: it is done, not dead.
func TestWorkerSkipsStoredResult(t *testing.T) {
	for _, maxDeliveries := range []int{2, 1} {
		t.Run(fmt.Sprintf("max-deliveries %d", maxDeliveries), func(t *testing.T) { skipsStoredResult(t, maxDeliveries) })
	}
}

func skipsStoredResult(t *testing.T, maxDeliveries int) {
	s := startServer(t, t.TempDir())
	c := dial(t, s.URL())
	ctx := context.Background()
	if _, err := c.Push(ctx, "t2", strings.NewReader(`{"id":"x","n":3}`), "-", nil); err != nil {
		t.Fatal(err)
	}
	store := newStore(t)
	w := testWorker(c, "t2", store)
	w.Visibility, w.MaxDeliveries = 300*time.Millisecond, maxDeliveries
	n, _ := queueNames("t2")
	cons, err := c.ensureConsumer(ctx, n, w.Visibility, w.MaxDeliveries)
	if err != nil {
		t.Fatal(err)
	}
	// A worker takes the item, stores a result and is killed before the ack.
	b, err := cons.Fetch(1, jetstream.FetchMaxWait(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := <-b.Messages(); !ok || m == nil {
		t.Fatal("no message fetched")
	}
	if err := store.Put(ctx, ResultKey("x"), strings.NewReader("first\n"), 6); err != nil {
		t.Fatal(err)
	}
	runWorker(t, w)
	if got, _ := readResult(t, store, "x"); got != "first\n" {
		t.Errorf("result = %q, want the first worker's %q", got, "first\n")
	}
	if w.Stats().Skipped.Load() != 1 || w.Stats().Done.Load() != 0 || w.Stats().Dead.Load() != 0 {
		t.Errorf("worker skipped %d, did %d and dead-lettered %d, want 1, 0 and 0", w.Stats().Skipped.Load(), w.Stats().Done.Load(), w.Stats().Dead.Load())
	}
}

// A command that runs longer than the visibility timeout keeps its items: the heartbeat stops
// a second worker from getting them.
func TestHeartbeatExtendsVisibility(t *testing.T) {
	s := startServer(t, t.TempDir())
	c := dial(t, s.URL())
	ctx := context.Background()
	if _, err := c.Push(ctx, "t3", strings.NewReader(`{"id":"slow","n":2,"sleep_ms":1500}`), "-", nil); err != nil {
		t.Fatal(err)
	}
	store := newStore(t)
	w1, w2 := testWorker(c, "t3", store), testWorker(c, "t3", store)
	w1.Visibility, w2.Visibility = 500*time.Millisecond, 500*time.Millisecond
	done := make(chan struct{})
	go func() { runWorker(t, w2); close(done) }()
	runWorker(t, w1)
	<-done
	if runs := w1.Stats().Done.Load() + w2.Stats().Done.Load(); runs != 1 {
		t.Errorf("the item ran %d times, want 1", runs)
	}
}

// A worker told to stop lets its running batch finish and store its result.
func TestWorkerStopFinishesBatch(t *testing.T) {
	s := startServer(t, t.TempDir())
	c := dial(t, s.URL())
	if _, err := c.Push(context.Background(), "t4", strings.NewReader(`{"id":"s","n":4,"sleep_ms":700}`), "-", nil); err != nil {
		t.Fatal(err)
	}
	store := newStore(t)
	w := testWorker(c, "t4", store)
	w.ExitWhenEmpty = false
	w.Visibility = 5 * time.Second
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for w.Stats().Done.Load() == 0 && ctx.Err() == nil {
			st, _ := c.Status(context.Background(), "t4", time.Now())
			if st.InFlight == 1 {
				cancel() // the command is running now
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	if err := w.Run(ctx); err != nil {
		t.Fatalf("Run: %v", err)
	}
	cancel()
	if got, ok := readResult(t, store, "s"); !ok || got != `{"id":"s","square":16}`+"\n" {
		t.Errorf("result after stop = %q (found %v), want the finished batch's", got, ok)
	}
}

// Queues live in the data directory: a restarted server still has them.
func TestServeSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	s, err := natsserver.Start(natsserver.Options{DataDir: dir, Listen: "127.0.0.1:-1"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Dial(context.Background(), s.URL())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Push(context.Background(), "t5", strings.NewReader(jsonl(testItem{N: 1}, testItem{N: 2})), "-", nil); err != nil {
		t.Fatal(err)
	}
	c.Close()
	s.Shutdown()

	ctx, cancel := context.WithCancel(context.Background())
	urls := make(chan string, 1)
	served := make(chan error, 1)
	go func() {
		served <- natsserver.Serve(ctx, natsserver.Options{DataDir: dir, Listen: "127.0.0.1:-1", Ready: func(u string) { urls <- u }})
	}()
	c2 := dial(t, <-urls)
	st, err := c2.Status(context.Background(), "t5", time.Now())
	if err != nil || st.Pending != 2 {
		t.Errorf("Status after restart = %+v, %v; want 2 pending", st, err)
	}
	cancel()
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

func TestStatusOfMissingQueue(t *testing.T) {
	s := startServer(t, t.TempDir())
	c := dial(t, s.URL())
	_, err := c.Status(context.Background(), "nope", time.Now())
	if gpucost.ErrorCode(err) != gpucost.ENotFound {
		t.Errorf("Status(nope) = %v, want a not-found error", err)
	}
	if _, err := c.Status(context.Background(), "a.b", time.Now()); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("Status(a.b) = %v, want an invalid-name error", err)
	}
}

func TestDialUnreachable(t *testing.T) {
	_, err := Dial(context.Background(), "nats://127.0.0.1:1")
	if gpucost.ErrorCode(err) != gpucost.EUnavailable || !strings.Contains(err.Error(), "gpucost queue serve") {
		t.Errorf("Dial(closed port) = %v, want an unavailable error that says how to start a server", err)
	}
}

func TestSplitLines(t *testing.T) {
	for _, tc := range []struct {
		name, out string
		n         int
		want      []string
	}{
		{"terminated", "a\nb\n", 2, []string{"a\n", "b\n"}},
		{"last unterminated", "a\nb", 2, []string{"a\n", "b\n"}},
		{"empty line kept", "a\n\n", 2, []string{"a\n", "\n"}},
		{"too few", "a\n", 2, nil},
		{"too many", "a\nb\nc\n", 2, nil},
	} {
		got, err := splitLines([]byte(tc.out), tc.n)
		if tc.want == nil {
			if err == nil {
				t.Errorf("%s: splitLines(%q, %d) = %q, want an error", tc.name, tc.out, tc.n, got)
			}
			continue
		}
		if err != nil || len(got) != len(tc.want) {
			t.Errorf("%s: splitLines(%q, %d) = %q, %v; want %q", tc.name, tc.out, tc.n, got, err, tc.want)
			continue
		}
		for i := range got {
			if !bytes.Equal(got[i], []byte(tc.want[i])) {
				t.Errorf("%s: splitLines(%q, %d)[%d] = %q, want %q", tc.name, tc.out, tc.n, i, got[i], tc.want[i])
			}
		}
	}
}
