package queue

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestQueues: the queues items were pushed to, sorted; none on a new server.
func TestQueues(t *testing.T) {
	ctx := context.Background()
	s := startServer(t, t.TempDir())
	c := dial(t, s.URL())
	if got, err := c.Queues(ctx); err != nil || len(got) != 0 {
		t.Fatalf("Queues(new server) = %q, %v; want none", got, err)
	}
	for _, q := range []string{"train", "eval"} {
		if _, err := c.Push(ctx, q, strings.NewReader("echo 1\n"), "test", nil); err != nil {
			t.Fatalf("Push(%s): %v", q, err)
		}
	}
	if got, err := c.Queues(ctx); err != nil || !slices.Equal(got, []string{"eval", "train"}) {
		t.Errorf("Queues = %q, %v; want [eval train]", got, err)
	}
}
