package queue

import (
	"bytes"
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
}

func newTask(m jetstream.Msg) *task {
	t := &task{msg: m, delivered: 1}
	if meta, err := m.Metadata(); err == nil {
		t.delivered = meta.NumDelivered
	}
	h := m.Headers()
	t.source = h.Get(headerSource)
	// Parse again even if the pusher did: items may come from any NATS client.
	it, err := ParseItem(m.Data())
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
	cmd := exec.CommandContext(ctx, w.Command[0], w.Command[1:]...)
	cmd.Stdin = &in
	cmd.Stdout = &out
	cmd.Stderr = multiWriter{w.Stderr, tail}
	cmd.Env = append(cmd.Environ(), "GPUCOST_QUEUE="+queue, fmt.Sprintf("GPUCOST_BATCH_SIZE=%d", len(tasks)))
	cmd.WaitDelay = 10 * time.Second
	err := cmd.Run()
	if err != nil {
		f := &failure{err: fmt.Errorf("run %s: %w", w.Command[0], err), stderr: tail.String()}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
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

// putParallel bounds concurrent result writes per batch.
const putParallel = 64

// finish stores outputs (nil: the results exist already), records each item as done, and
// acks it: in that order, so that an acked item always has its result.
func (w *Worker) finish(ctx context.Context, n names, tasks []*task, outputs [][]byte) {
	stored := make([]error, len(tasks))
	if outputs != nil {
		sem := make(chan struct{}, putParallel)
		var wg sync.WaitGroup
		for i, t := range tasks {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				out := outputs[i]
				stored[i] = w.Results.Put(ctx, ResultKey(t.item.ID), bytes.NewReader(out), int64(len(out)))
			})
		}
		wg.Wait()
	}
	futs := make([]jetstream.PubAckFuture, len(tasks))
	for i, t := range tasks {
		if stored[i] != nil {
			continue
		}
		m := nats.NewMsg(n.done)
		m.Data = []byte(t.item.ID)
		m.Header.Set(jetstream.MsgIDHeader, t.item.ID)
		futs[i], stored[i] = w.Client.js.PublishMsgAsync(m)
	}
	for i, t := range tasks {
		if stored[i] == nil {
			stored[i] = waitAck(ctx, futs[i])
		}
		if stored[i] != nil {
			// Not the item's fault: try again later without counting it as a failure.
			w.Log.Error("store result failed; the item will be retried", "id", t.item.ID, "err", stored[i])
			t.msg.NakWithDelay(w.backoff(t.delivered))
			continue
		}
		t.msg.Ack()
		if outputs != nil {
			w.stats.Done.Add(1)
		}
	}
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
	ID         string    `json:"id"`
	Item       string    `json:"item"`
	Source     string    `json:"source,omitempty"` // file:line it was pushed from
	Error      string    `json:"error"`
	ExitCode   *int      `json:"exit_code,omitempty"`
	Stderr     string    `json:"stderr,omitempty"` // the end of the command's stderr
	Deliveries uint64    `json:"deliveries"`
	Worker     string    `json:"worker,omitempty"`
	Time       time.Time `json:"time"`
}

// deadLetter moves t to the dead-letter stream, then acks it.
func (w *Worker) deadLetter(ctx context.Context, n names, t *task, f failure) {
	d := DeadLetter{ID: t.item.ID, Item: string(t.item.Data), Source: t.source, Error: f.err.Error(),
		ExitCode: f.exitCode, Stderr: f.stderr, Deliveries: t.delivered, Worker: w.Name, Time: time.Now().UTC()}
	data, _ := json.Marshal(d)
	m := nats.NewMsg(n.dead)
	m.Data = data
	m.Header.Set(jetstream.MsgIDHeader, t.item.ID)
	if _, err := w.Client.js.PublishMsg(ctx, m); err != nil {
		w.Log.Error("dead-letter failed; the item will be retried", "id", t.item.ID, "err", err)
		t.msg.NakWithDelay(w.backoff(t.delivered))
		return
	}
	w.stats.Dead.Add(1)
	w.Log.Warn("item dead-lettered", "id", t.item.ID, "deliveries", t.delivered, "err", f.err)
	t.msg.Ack()
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
