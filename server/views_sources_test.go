package server_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/file"
	"github.com/gpucost/gpucost/queue"
	"github.com/gpucost/gpucost/queue/natsserver"
	"github.com/gpucost/gpucost/server"
	"github.com/gpucost/gpucost/spot"
)

// TestViewsJobsAndQueues reads the jobs of a job store and the queues of a NATS server as
// gpucost report jobs and gpucost queue status do, and keeps a NATS password out of errors and
// logs when the server cannot be reached.
func TestViewsJobsAndQueues(t *testing.T) {
	ctx := context.Background()
	jobs := t.TempDir()
	store, err := file.New(jobs)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	ok := 0
	for _, ev := range []spot.Event{
		{Job: "llama-ft", Kind: spot.EventStart, Time: t0, Run: "h1", Host: "h1", InstanceType: "g5.xlarge", Spot: true, Price: "0.40", OnDemand: "1.006", Currency: "USD"},
		{Job: "llama-ft", Kind: spot.EventExit, Time: t0.Add(time.Hour), Run: "h1", Host: "h1", InstanceType: "g5.xlarge", Spot: true, Price: "0.40", OnDemand: "1.006", Currency: "USD", Status: &ok, ExitCode: &ok},
	} {
		if err := spot.PutEvent(ctx, store, ev); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := natsserver.Start(natsserver.Options{DataDir: t.TempDir(), Listen: "127.0.0.1:-1"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	c, err := queue.Dial(ctx, srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	for q, n := range map[string]int{"embed": 3, "score": 1} {
		var items strings.Builder
		for i := range n {
			fmt.Fprintf(&items, "{\"id\":%d}\n", i)
		}
		if _, err := c.Push(ctx, q, strings.NewReader(items.String()), q+".jsonl", nil); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()

	logs := &bytes.Buffer{}
	now := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	o := server.Options{ViewsEvery: time.Minute, Now: func() time.Time { return now }, Log: slog.New(slog.NewTextHandler(logs, nil)),
		OpenObjectStore: func(ctx context.Context, url string) (gpucost.ObjectStore, error) { return file.New(url) }}
	withSources := o
	withSources.JobsStore, withSources.NATSURL = jobs, srv.URL()
	v := server.NewViews(nil, withSources)
	reps, err := v.Jobs(ctx)
	if err != nil || len(reps) != 1 || reps[0].Job != "llama-ft" || reps[0].Status != "done" || reps[0].Billable != time.Hour || !reps[0].Priced {
		t.Errorf("Jobs = %+v, %v; want llama-ft done after an hour, priced", reps, err)
	}
	qs, err := v.Queues(ctx, now)
	if err != nil || len(qs) != 2 || qs[0].Queue != "embed" || qs[0].Pending != 3 || qs[1].Queue != "score" || qs[1].Pending != 1 {
		t.Errorf("Queues = %+v, %v; want embed with 3 pending and score with 1", qs, err)
	}

	none := server.NewViews(nil, o)
	if reps, err := none.Jobs(ctx); err != nil || reps == nil || len(reps) != 0 {
		t.Errorf("Jobs without a jobs store = %v, %v; want an empty list", reps, err)
	}
	if qs, err := none.Queues(ctx, now); err != nil || qs == nil || len(qs) != 0 {
		t.Errorf("Queues without a NATS server = %v, %v; want an empty list", qs, err)
	}

	unreachable := o
	unreachable.NATSURL = "nats://gpucost:s3cret-pw@127.0.0.1:1"
	down := server.NewViews(nil, unreachable)
	_, err = down.Queues(ctx, now)
	if gpucost.ErrorCode(err) != gpucost.EUnavailable || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("Queues with an unreachable NATS = %v; want unavailable, without the password", err)
	}
	if strings.Contains(logs.String(), "s3cret") {
		t.Errorf("the log holds the NATS password:\n%s", logs)
	}
}
