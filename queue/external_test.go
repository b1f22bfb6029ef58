package queue

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestExternalNATSServer runs push, work and status against a separate nats-server process,
// as a team running a NATS cluster would: Debian's nats-server 2.9 with -js.
func TestExternalNATSServer(t *testing.T) {
	bin, err := exec.LookPath("nats-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("nats-server is not installed; CI must install it: apt-get install -y nats-server")
		}
		t.Skip("nats-server not installed; install it with: apt-get install -y nats-server")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	srv := exec.Command(bin, "-js", "-sd", t.TempDir(), "-a", "127.0.0.1", "-p", fmt.Sprint(port))
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	url := fmt.Sprintf("nats://127.0.0.1:%d", port)
	var c *Client
	for i := 0; c == nil; i++ {
		if c, err = Dial(context.Background(), url); err != nil && i > 50 {
			t.Fatalf("nats-server did not come up: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Cleanup(c.Close)
	ctx := context.Background()
	input := jsonl(testItem{N: 1}, testItem{N: 2}, testItem{N: 3, Fail: true}, testItem{N: 4}) + "oops\n"
	st, err := c.Push(ctx, "ext", strings.NewReader(input), "ext.jsonl", nil)
	if err != nil || st.Pushed != 5 || st.Malformed != 1 {
		t.Fatalf("Push = %+v, %v; want 5 pushed, 1 malformed", st, err)
	}
	store := newStore(t)
	w := testWorker(c, "ext", store)
	w.MaxDeliveries = 1
	runWorker(t, w)
	status, err := c.Status(ctx, "ext", time.Now())
	if err != nil || status.Done != 3 || status.Dead != 2 || status.Pending != 0 || status.InFlight != 0 {
		t.Errorf("Status = %+v, %v; want 3 done, 2 dead", status, err)
	}
	res, err := ReadResults(ctx, store, func(Result) error { return nil })
	if err != nil || res.Items != 3 {
		t.Errorf("ReadResults = %+v, %v; want 3 items", res, err)
	}
	// A worker with another --max-deliveries updates the consumer, and the record of failed
	// deliveries (a key-value bucket) works on this server too.
	if _, err := c.Push(ctx, "ext", strings.NewReader(jsonl(testItem{ID: []byte(`"f2"`), N: 5, Fail: true})), "-", nil); err != nil {
		t.Fatal(err)
	}
	w = testWorker(c, "ext", store)
	w.MaxDeliveries = 2
	runWorker(t, w)
	dead, err := c.DeadLetters(ctx, "ext")
	if err != nil || len(dead) != 3 || !strings.HasSuffix(dead[2].Error, "exit status 3 in 2 of 2 deliveries") {
		t.Errorf("DeadLetters = %+v, %v; want f2 last: exit status 3 in 2 of 2 deliveries", dead, err)
	}
}
