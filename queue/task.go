package queue

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// task is one delivered item.
type task struct {
	msg       jetstream.Msg
	item      Item
	source    string // file:line it was pushed from, if known
	delivered uint64
	parseErr  error
	timeout   time.Duration // the item's own limit from its push; 0: the worker's
	// doneRecorded is set on a redelivered item whose done message is stored already.
	doneRecorded bool
}

// newTask reads a delivered message. Its delivery count is JetStream's own, so that a
// delivery whose worker died counts too.
func newTask(m jetstream.Msg) *task {
	t := parseTask(m.Data(), m.Headers())
	t.msg, t.delivered = m, 1
	if meta, err := m.Metadata(); err == nil {
		t.delivered = meta.NumDelivered
	}
	return t
}

// parseTask reads an item message's data and headers.
func parseTask(data []byte, h nats.Header) *task {
	t := &task{source: h.Get(headerSource)}
	if d, err := time.ParseDuration(h.Get(headerTimeout)); err == nil && d > 0 {
		t.timeout = d
	}
	// Parse again even if the pusher did: items may come from any NATS client.
	it, err := ParseItem(data)
	if id := h.Get(jetstream.MsgIDHeader); id != "" && CheckID(id) == nil {
		it.ID = id
	}
	t.item = it
	if perr := h.Get(headerError); perr != "" {
		err = errors.New(perr)
	}
	if err != nil {
		at := t.source
		if at == "" {
			at = "item " + it.ID
		}
		t.parseErr = fmt.Errorf("%s: malformed item: %w", at, err)
	}
	return t
}

// failure is why a command run did not produce results.
type failure struct {
	err      error
	exitCode *int
	stderr   string
	timedOut bool // killed after ItemTimeout per item
}

// stderrTail is how much of a failed command's stderr a dead letter keeps.
const stderrTail = 4096

// runCommand runs the command with tasks as JSONL on stdin and returns one output per task.
func (w *Worker) runCommand(ctx context.Context, queue string, tasks []*task) ([][]byte, *failure) {
	var in bytes.Buffer
	for _, t := range tasks {
		in.Write(t.item.Data)
		in.WriteByte('\n')
	}
	var out bytes.Buffer
	tail := &tailBuffer{max: stderrTail}
	runCtx, limit := ctx, w.runLimit(tasks)
	if limit > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, limit)
		defer cancel()
	}
	cmd := exec.CommandContext(runCtx, w.Command[0], w.Command[1:]...)
	inGroup(cmd) // a timeout or a stop kills what the command started as well
	cmd.Stdin = &in
	cmd.Stdout = &out
	cmd.Stderr = multiWriter{w.Stderr, tail}
	cmd.Env = append(cmd.Environ(), "GPUCOST_QUEUE="+queue, fmt.Sprintf("GPUCOST_BATCH_SIZE=%d", len(tasks)))
	cmd.WaitDelay = 10 * time.Second
	err := cmd.Run()
	if err != nil && limit > 0 && ctx.Err() == nil && errors.Is(runCtx.Err(), context.DeadlineExceeded) {
		return nil, &failure{err: fmt.Errorf("timed out after %s", limit), stderr: tail.String(), timedOut: true}
	}
	if err != nil {
		f := &failure{err: fmt.Errorf("run %s: %w", w.Command[0], err), stderr: tail.String()}
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() >= 0 {
			code := ee.ExitCode()
			f.exitCode = &code
		}
		return nil, f
	}
	if w.Batch == 1 {
		return [][]byte{out.Bytes()}, nil
	}
	outputs, err := splitLines(out.Bytes(), len(tasks))
	if err != nil {
		return nil, &failure{err: fmt.Errorf("%s: %w", w.Command[0], err), stderr: tail.String()}
	}
	return outputs, nil
}

// runLimit is how long a run over tasks may take: the sum of each item's own timeout, or the
// worker's ItemTimeout for an item pushed without one; 0, no limit, if an item has neither.
func (w *Worker) runLimit(tasks []*task) time.Duration {
	var limit time.Duration
	for _, t := range tasks {
		d := cmp.Or(t.timeout, w.ItemTimeout)
		if d <= 0 {
			return 0
		}
		limit += d
	}
	return limit
}

// splitLines returns the n lines of out, each with its line break.
func splitLines(out []byte, n int) ([][]byte, error) {
	lines := make([][]byte, 0, n)
	for len(out) > 0 {
		i := bytes.IndexByte(out, '\n')
		if i < 0 {
			lines = append(lines, append(out[:len(out):len(out)], '\n'))
			break
		}
		lines = append(lines, out[:i+1])
		out = out[i+1:]
	}
	if len(lines) != n {
		return nil, fmt.Errorf("wrote %d output lines for %d input items; with --batch above 1 the command must write one line per item, in order", len(lines), n)
	}
	return lines, nil
}

// finish stores outputs as one results segment (nil: the results exist already), records each
// item as done, and acks it: in that order, so that an acked item always has its result.
func (w *Worker) finish(ctx context.Context, n names, tasks []*task, outputs [][]byte) {
	var seg string
	var err error
	if outputs != nil {
		seg, err = w.storeSegment(ctx, n, tasks, outputs)
	}
	stored := make([]error, len(tasks))
	futs := make([]jetstream.PubAckFuture, len(tasks))
	for i, t := range tasks {
		if stored[i] = err; err != nil || t.doneRecorded {
			continue
		}
		m := nats.NewMsg(n.done + "." + doneToken(t.item.ID))
		m.Data = []byte(t.item.ID)
		m.Header.Set(jetstream.MsgIDHeader, t.item.ID)
		if seg != "" {
			m.Header.Set(headerSegment, seg)
		}
		futs[i], stored[i] = w.Client.js.PublishMsgAsync(m)
	}
	for i, t := range tasks {
		if stored[i] == nil && futs[i] != nil {
			stored[i] = waitAck(ctx, futs[i])
		}
		if stored[i] != nil {
			// Not the item's fault, but the delivery counts: record why, so that it does not
			// read as "worker died" should the item run out of deliveries.
			w.Log.Error("store result failed; the item will be retried", "id", t.item.ID, "err", stored[i])
			w.record(ctx, t, failure{err: fmt.Errorf("store result: %w", stored[i])})
			t.msg.NakWithDelay(w.backoff(t.delivered))
			continue
		}
		t.msg.Ack()
		if outputs != nil {
			w.stats.Done.Add(1)
		}
		if t.delivered > 1 {
			w.forget(ctx, t.item.ID) // earlier deliveries may have recorded failures
		}
	}
}

// storeSegment stores the outputs of tasks as one results segment and returns its key.
func (w *Worker) storeSegment(ctx context.Context, n names, tasks []*task, outputs [][]byte) (string, error) {
	now := w.now()
	data := encodeSegment(segmentHeader{Queue: n.queue, Worker: w.Name, Time: now.UTC()}, tasks, outputs)
	key := segmentKey(now)
	if err := w.Results.Put(ctx, key, bytes.NewReader(data), int64(len(data))); err != nil {
		return "", fmt.Errorf("results segment %s: %w", key, err)
	}
	return key, nil
}

func waitAck(ctx context.Context, f jetstream.PubAckFuture) error {
	select {
	case <-f.Ok():
		return nil
	case err := <-f.Err():
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// DeadLetter is an item that will not be tried again, with why.
type DeadLetter struct {
	ID     string `json:"id"`
	Item   string `json:"item"`
	Source string `json:"source,omitempty"` // file:line it was pushed from
	// Error is why: the parse error of a malformed item, or a summary of its deliveries such
	// as "worker died during 3 deliveries" or "timed out after 10m0s in 2 of 3 deliveries".
	Error      string    `json:"error"`
	ExitCode   *int      `json:"exit_code,omitempty"` // of the last failed run that exited
	Stderr     string    `json:"stderr,omitempty"`    // the end of the last failed run's stderr
	Deliveries uint64    `json:"deliveries"`          // deliveries that ran the command
	Attempts   []Attempt `json:"attempts,omitempty"`  // what each of them came to, oldest first
	Worker     string    `json:"worker,omitempty"`
	Time       time.Time `json:"time"`
}

// settler ends a message's delivery: ack once it is dead-lettered, retry if that failed.
type settler struct{ ack, retry func() }

// settleMsg settles t's delivered message.
func (w *Worker) settleMsg(t *task) settler {
	return settler{ack: func() { t.msg.Ack() }, retry: func() { t.msg.NakWithDelay(w.backoff(t.delivered)) }}
}

// deadLetter moves t to the dead-letter stream with the reason h gives for its first runs
// deliveries (or its parse error), then settles it.
func (w *Worker) deadLetter(ctx context.Context, n names, t *task, h history, upto uint64, settle settler) {
	d := DeadLetter{ID: t.item.ID, Item: string(t.item.Data), Source: t.source,
		Worker: w.Name, Time: w.now().UTC()}
	if t.parseErr != nil {
		d.Error, d.Deliveries = t.parseErr.Error(), t.delivered
	} else {
		d.Attempts = outcomes(h, upto, w.MaxDeliveries)
		d.Deliveries = uint64(len(d.Attempts))
		d.Error, d.ExitCode, d.Stderr = reason(d.Attempts), h.ExitCode, h.Stderr
	}
	data, _ := json.Marshal(d)
	m := nats.NewMsg(n.dead)
	m.Data = data
	m.Header.Set(jetstream.MsgIDHeader, t.item.ID)
	if _, err := w.Client.js.PublishMsg(ctx, m); err != nil {
		w.Log.Error("dead-letter failed; the item will be retried", "id", t.item.ID, "err", err)
		settle.retry()
		return
	}
	w.stats.Dead.Add(1)
	w.Log.Warn("item dead-lettered", "id", t.item.ID, "deliveries", d.Deliveries, "reason", d.Error)
	settle.ack()
	if t.parseErr == nil {
		w.forget(ctx, t.item.ID)
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// multiWriter writes to each writer and ignores their errors: a closed terminal must not fail
// the command.
type multiWriter []io.Writer

func (m multiWriter) Write(p []byte) (int, error) {
	for _, w := range m {
		w.Write(p)
	}
	return len(p), nil
}
