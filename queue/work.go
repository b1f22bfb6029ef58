package queue

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/nats-io/nats.go/jetstream"
)

// Worker runs Command over batches of a queue's items and stores each item's result.
//
// An item is acked only after its result is stored and its completion recorded, and a
// redelivered item whose result already exists is acked without running again; so a worker
// killed at any moment leaves each item with exactly one result. A command that exits non-zero
// or runs past ItemTimeout per item naks its items with a growing delay. When a batch of
// several items fails, it is split in halves and retried, so one bad item does not fail its
// neighbours.
//
// Every delivery counts, including one whose worker died (see attempt.go): an item that fails
// on its MaxDeliveries-th delivery, or is delivered again after it, moves to the dead-letter
// stream with a reason made from what each delivery came to, the exit code and the end of
// stderr; the other items keep flowing.
type Worker struct {
	Client  *Client
	Queue   string
	Results gpucost.ObjectStore // one segment of results per batch (results.go)
	Command []string            // the program and its arguments; items arrive as JSONL on stdin

	Visibility    time.Duration // an unacked delivery goes to another worker after this; default 10m
	MaxDeliveries int           // deliveries before a failing item is dead-lettered; default 5
	ItemTimeout   time.Duration // a run over k items is killed after k×ItemTimeout; 0: no limit
	Batch         int           // items per command run; default 1
	Concurrency   int           // batches run at once; default 1
	ExitWhenEmpty bool          // return once nothing is pending or in flight anywhere
	Name          string        // written into dead letters, such as host:pid

	Stderr io.Writer // the command's stderr is copied here; nil discards it
	Log    *slog.Logger
	Now    func() time.Time // the clock of records and dead letters; nil is time.Now

	stats WorkStats
	tries jetstream.KeyValue // records of failed deliveries, by item
	done  jetstream.Stream   // the done messages, looked up by item (resultStored)
}

func (w *Worker) now() time.Time {
	if w.Now == nil {
		return time.Now()
	}
	return w.Now()
}

// WorkStats counts what a worker did.
type WorkStats struct {
	Done    atomic.Int64 // results stored and items acked
	Skipped atomic.Int64 // redelivered items whose result already existed
	Retried atomic.Int64 // failed items nak'd for another try
	Dead    atomic.Int64 // items moved to the dead-letter stream
}

// Stats returns the worker's counters.
func (w *Worker) Stats() *WorkStats { return &w.stats }

// fetchWait is how long an idle worker waits on the server for an item before looking again.
const fetchWait = 2 * time.Second

// fetchWaitExiting is the wait instead with ExitWhenEmpty, so that a worker sees the queue empty
// soon after the last item is done.
const fetchWaitExiting = 200 * time.Millisecond

func (w *Worker) defaults() error {
	if w.Visibility == 0 {
		w.Visibility = 10 * time.Minute
	}
	if w.MaxDeliveries == 0 {
		w.MaxDeliveries = 5
	}
	if w.Batch == 0 {
		w.Batch = 1
	}
	if w.Concurrency == 0 {
		w.Concurrency = 1
	}
	if w.Log == nil {
		w.Log = slog.New(slog.DiscardHandler)
	}
	if w.Stderr == nil {
		w.Stderr = io.Discard
	}
	switch {
	case len(w.Command) == 0:
		return gpucost.Errorf(gpucost.EInvalid, "queue work: no command; give it after --")
	case w.Results == nil:
		return gpucost.Errorf(gpucost.EInvalid, "queue work: no results store")
	case w.Visibility < 100*time.Millisecond:
		return gpucost.Errorf(gpucost.EInvalid, "--visibility %s: use at least 100ms", w.Visibility)
	case w.MaxDeliveries < 1 || w.MaxDeliveries > maxMaxDeliveries:
		return gpucost.Errorf(gpucost.EInvalid, "--max-deliveries %d: use 1 to %d", w.MaxDeliveries, maxMaxDeliveries)
	case w.ItemTimeout < 0:
		return gpucost.Errorf(gpucost.EInvalid, "--item-timeout %s: use a positive duration, or 0 for no limit", w.ItemTimeout)
	case w.Batch < 1 || w.Batch > 10_000:
		return gpucost.Errorf(gpucost.EInvalid, "--batch %d: use 1 to 10000", w.Batch)
	case w.Concurrency < 1:
		return gpucost.Errorf(gpucost.EInvalid, "--concurrency %d: use 1 or more", w.Concurrency)
	}
	return nil
}

// maxMaxDeliveries bounds --max-deliveries: each failed delivery adds an attempt to the item's
// record and dead letter, which must stay well under NATS's 1 MiB message limit (an attempt
// is about 200 bytes, plus 4 KiB of stderr).
const maxMaxDeliveries = 1000

// Run works until ctx ends, or with ExitWhenEmpty until the queue is empty. When ctx ends it
// stops fetching and lets running batches finish for up to Visibility; then it kills their
// commands and hands their items back.
func (w *Worker) Run(ctx context.Context) error {
	if err := w.defaults(); err != nil {
		return err
	}
	n, err := w.Client.ensureStreams(ctx, w.Queue)
	if err != nil {
		return err
	}
	cons, err := w.Client.ensureConsumer(ctx, n, w.Visibility, w.MaxDeliveries)
	if err != nil {
		return err
	}
	if w.tries, err = w.Client.ensureTries(ctx, n); err != nil {
		return err
	}
	if w.done, err = w.Client.js.Stream(ctx, n.doneStr); err != nil {
		return unavailable("open stream "+n.doneStr, err)
	}
	hard, cancelHard := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelHard()
	stopGrace := context.AfterFunc(ctx, func() { time.AfterFunc(w.Visibility, cancelHard) })
	defer stopGrace()

	errs := make(chan error, w.Concurrency)
	var wg sync.WaitGroup
	for range w.Concurrency {
		wg.Go(func() { errs <- w.loop(ctx, hard, n, cons) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// loop fetches and runs batches until ctx ends or the queue is empty.
func (w *Worker) loop(ctx, hard context.Context, n names, cons jetstream.Consumer) error {
	failures := 0
	for ctx.Err() == nil {
		msgs, err := w.fetch(ctx, cons)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			failures++
			w.Log.Warn("fetch from queue failed; retrying", "queue", n.queue, "err", err)
			if failures > 30 {
				return unavailable("fetch from queue "+n.queue, err)
			}
			sleep(ctx, time.Second)
			continue
		}
		failures = 0
		if len(msgs) == 0 {
			if empty, err := w.idle(ctx, n, cons); err == nil && empty && w.ExitWhenEmpty {
				return nil
			}
			continue
		}
		w.handle(hard, n, msgs)
	}
	return nil
}

// fetch returns up to Batch items: those ready now, or else the first to arrive within
// fetchWait topped up with those ready by then. It does not wait to fill a batch.
func (w *Worker) fetch(ctx context.Context, cons jetstream.Consumer) ([]jetstream.Msg, error) {
	msgs, err := collect(cons.FetchNoWait(w.Batch))
	if err != nil || len(msgs) > 0 {
		return msgs, err
	}
	wait := fetchWait
	if w.ExitWhenEmpty {
		wait = fetchWaitExiting
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	msgs, err = collect(cons.Fetch(1, jetstream.FetchContext(wctx)))
	if err != nil || len(msgs) == 0 || w.Batch == 1 {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			err = nil
		}
		return msgs, err
	}
	more, err := collect(cons.FetchNoWait(w.Batch - 1))
	return append(msgs, more...), err
}

func collect(b jetstream.MessageBatch, err error) ([]jetstream.Msg, error) {
	if err != nil {
		return nil, err
	}
	var msgs []jetstream.Msg
	for m := range b.Messages() {
		msgs = append(msgs, m)
	}
	if err := b.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) {
		return msgs, err
	}
	return msgs, nil
}

// idle reports whether the queue has nothing to deliver and nothing in flight; if so it first
// dead-letters the items the server gave up delivering (see sweep).
func (w *Worker) idle(ctx context.Context, n names, cons jetstream.Consumer) (bool, error) {
	info, err := cons.Info(ctx)
	if err != nil {
		return false, err
	}
	if info.NumPending != 0 || info.NumAckPending != 0 {
		return false, nil
	}
	if err := w.sweep(ctx, n, info.AckFloor.Stream); err != nil {
		w.Log.Warn("look for items left undelivered failed", "queue", n.queue, "err", err)
	}
	return true, nil
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// backoff is the delay before a failed item is delivered again: 1s, 2s, 4s … up to the
// visibility timeout.
func (w *Worker) backoff(delivered uint64) time.Duration {
	d := time.Second << min(delivered-1, 20)
	return min(d, w.Visibility)
}

// handle runs one fetched batch to the end: every message is acked or nak'd when it returns.
func (w *Worker) handle(ctx context.Context, n names, msgs []jetstream.Msg) {
	stopBeat := w.heartbeat(msgs)
	defer stopBeat()
	var run, alone []*task
	for _, m := range msgs {
		t := newTask(m)
		switch {
		case t.parseErr != nil:
			w.deadLetter(ctx, n, t, history{}, 0, w.settleMsg(t))
		case t.delivered > 1 && w.resultStored(ctx, n, t):
			w.stats.Skipped.Add(1)
			w.finish(ctx, n, []*task{t}, nil)
		case t.delivered > uint64(w.MaxDeliveries):
			// Its last run's worker died, unless some deliveries never started it.
			h, err := w.loadHistory(ctx, t.item.ID)
			if err != nil {
				w.Log.Warn("read the item's earlier deliveries failed", "id", t.item.ID, "err", err)
			}
			if w.spent(h, t.delivered-1) {
				w.deadLetter(ctx, n, t, h, t.delivered-1, w.settleMsg(t))
			} else {
				alone = append(alone, t)
			}
		case t.delivered > isolateAfter:
			alone = append(alone, t)
		default:
			run = append(run, t)
		}
	}
	if len(run) > 0 {
		w.runTasks(ctx, n, run)
	}
	w.runAlone(ctx, n, alone)
}

// isolateAfter is the delivery after which an item runs alone rather than in a batch. An item
// whose command kills its worker takes its whole batch down with it, and all of it comes back;
// run alone from the third delivery on, the items that were merely beside it complete (see
// runAlone). One death is let pass: a reclaimed spot machine kills batches too, and running
// every item of a batch alone would start the command once per item.
const isolateAfter = 2

// heartbeat tells the server every Visibility/3 that msgs are still being worked on, so that
// no other worker gets them while the command runs. It returns a function that stops it.
func (w *Worker) heartbeat(msgs []jetstream.Msg) func() {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(w.Visibility / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				for _, m := range msgs {
					m.InProgress() // an already acked message answers with an error: nothing to do
				}
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// resultStored reports whether t's item has a stored result: its done message, which a worker
// stores only after the result, or else its own result object from a worker before results
// segments (ResultKey). It sets t.doneRecorded when it found the done message. Either lookup
// failing reads as no result: the item runs again, and readers keep its first result
// (ReadResults).
func (w *Worker) resultStored(ctx context.Context, n names, t *task) bool {
	m, err := w.done.GetLastMsgForSubject(ctx, n.done+"."+doneToken(t.item.ID))
	if err == nil && string(m.Data) == t.item.ID {
		t.doneRecorded = true
		return true
	}
	if err != nil && !errors.Is(err, jetstream.ErrMsgNotFound) {
		w.Log.Warn("look up the item's done message failed", "id", t.item.ID, "err", err)
	}
	r, err := w.Results.Get(ctx, ResultKey(t.item.ID))
	if err != nil {
		return false
	}
	r.Close()
	return true
}

// runTasks runs the command over tasks; on failure it splits them in halves and tries again,
// until a single failing item is nak'd or dead-lettered.
func (w *Worker) runTasks(ctx context.Context, n names, tasks []*task) {
	outputs, fail := w.runCommand(ctx, n.queue, tasks)
	if fail == nil {
		w.finish(ctx, n, tasks, outputs)
		return
	}
	if ctx.Err() != nil {
		// Shutting down past the grace period: hand the items back at once.
		for _, t := range tasks {
			t.msg.Nak()
		}
		return
	}
	if len(tasks) > 1 {
		w.Log.Info("batch failed; splitting it", "items", len(tasks), "err", fail.err)
		half := len(tasks) / 2
		w.runTasks(ctx, n, tasks[:half])
		w.runTasks(ctx, n, tasks[half:])
		return
	}
	t := tasks[0]
	h := w.record(ctx, t, *fail)
	if w.spent(h, t.delivered) {
		w.deadLetter(ctx, n, t, h, t.delivered, w.settleMsg(t))
		return
	}
	w.stats.Retried.Add(1)
	w.Log.Info("item failed; it will be retried", "id", t.item.ID, "delivery", t.delivered, "err", fail.err)
	t.msg.NakWithDelay(w.backoff(t.delivered))
}
