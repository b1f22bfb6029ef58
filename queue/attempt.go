package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Every delivery of an item counts towards MaxDeliveries, whether its command failed, timed
// out, or its worker died with it. JetStream counts the deliveries (NumDelivered in a message's
// metadata); a worker that sees a run fail writes what happened into the queue's tries bucket,
// keyed by item. A worker that dies writes nothing, so when an item is dead-lettered, every
// delivery without a record is one whose worker died: the reason holds even though the worker
// that knew it is gone.
//
// One kind of delivery does not count: an item that runs alone (see isolateAfter) and waited
// behind another item that killed the worker never started. Its worker marks it as waiting
// before running the first, so the next worker knows; such deliveries are retried, up to
// deliveryCap in all, so that a killer cannot take the items fetched with it down too.

// Attempt is what one delivery of an item came to.
type Attempt struct {
	Delivery uint64    `json:"delivery"`
	Error    string    `json:"error"`               // "worker died" for a delivery with no record
	TimedOut bool      `json:"timed_out,omitempty"` // the command ran past --item-timeout
	Alone    bool      `json:"alone,omitempty"`     // the item ran by itself (see isolateAfter)
	Waited   bool      `json:"waited,omitempty"`    // it never started: its worker died running another item first
	Worker   string    `json:"worker,omitempty"`
	Time     time.Time `json:"time,omitzero"`
}

// workerDied is the Error of a delivery that left no record.
const workerDied = "worker died"

// notStarted is the Error of a delivery whose worker died before it started the item.
const notStarted = "not started"

// deliveryCap is how many deliveries an item gets at most: MaxDeliveries that ran it, and as
// many again that never started it (see Attempt.Waited). It bounds an item's deliveries even if
// every worker that fetches it dies before starting it.
func deliveryCap(maxDeliveries int) uint64 { return 2 * uint64(maxDeliveries) }

// history is what the failed deliveries of one item recorded, as stored in the tries bucket.
type history struct {
	Attempts []Attempt `json:"attempts"`
	ExitCode *int      `json:"exit_code,omitempty"` // of the last failed run that exited
	Stderr   string    `json:"stderr,omitempty"`    // the end of the last failed run's stderr
}

// triesMaxAge bounds how long a record of failed deliveries is kept. Records are deleted when
// their item is done or dead-lettered; this only removes those a worker killed in between left
// behind. Deliveries of one item are at most MaxDeliveries × (--visibility + --item-timeout)
// apart, far below a week; a record lost to age makes its deliveries read as "worker died".
const triesMaxAge = 7 * 24 * time.Hour

// ensureTries opens the queue's tries bucket, creating it on first use.
func (c *Client) ensureTries(ctx context.Context, n names) (jetstream.KeyValue, error) {
	kv, err := c.js.KeyValue(ctx, n.tries)
	if err == nil {
		return kv, nil
	}
	if !errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, unavailable("open bucket "+n.tries, err)
	}
	kv, err = c.js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: n.tries, History: 1,
		TTL: triesMaxAge, Storage: jetstream.FileStorage})
	if errors.Is(err, jetstream.ErrBucketExists) {
		kv, err = c.js.KeyValue(ctx, n.tries)
	}
	if err != nil {
		return nil, unavailable("create bucket "+n.tries, err)
	}
	return kv, nil
}

// triesKey is the bucket key of item id: ids may hold characters a key may not.
func triesKey(id string) string { return hashID([]byte(id)) }

// loadHistory reads what earlier deliveries of id recorded; none is an empty history.
func (w *Worker) loadHistory(ctx context.Context, id string) (history, error) {
	var h history
	e, err := w.tries.Get(ctx, triesKey(id))
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
		return h, nil
	}
	if err != nil {
		return h, err
	}
	if err := json.Unmarshal(e.Value(), &h); err != nil {
		return history{}, fmt.Errorf("record of item %s: %w", id, err)
	}
	return h, nil
}

// record adds the failed delivery of t to its history and returns the history. If the bucket
// cannot be read or written the delivery will later read as "worker died"; the item is retried
// or dead-lettered all the same.
func (w *Worker) record(ctx context.Context, t *task, f failure) history {
	h, err := w.loadHistory(ctx, t.item.ID)
	if err != nil {
		w.Log.Warn("read the item's earlier deliveries failed", "id", t.item.ID, "err", err)
	}
	alone := false
	h.Attempts = slices.DeleteFunc(h.Attempts, func(a Attempt) bool {
		alone = alone || a.Delivery == t.delivered && a.Alone
		return a.Delivery == t.delivered // the mark runAlone left
	})
	h.Attempts = append(h.Attempts, Attempt{Delivery: t.delivered, Error: f.err.Error(), TimedOut: f.timedOut,
		Alone: alone, Worker: w.Name, Time: w.now().UTC()})
	if f.exitCode != nil {
		h.ExitCode = f.exitCode
	}
	h.Stderr = f.stderr
	data, _ := json.Marshal(h)
	if _, err := w.tries.Put(ctx, triesKey(t.item.ID), data); err != nil {
		w.Log.Warn("record the failed delivery failed", "id", t.item.ID, "err", err)
	}
	return h
}

// runAlone runs each of tasks by itself. First it marks every one as waiting (Attempt.Waited);
// before each run it records the delivery as one whose worker died while running the item
// alone, which the run's outcome replaces. So if the worker does die, the next worker knows
// which item did it, which ones never started (their delivery does not count), and runs the
// killer after the others it fetched with it, rather than first again.
func (w *Worker) runAlone(ctx context.Context, n names, tasks []*task) {
	hs := make(map[*task]history, len(tasks))
	for _, t := range tasks {
		h, err := w.loadHistory(ctx, t.item.ID)
		if err != nil {
			w.Log.Warn("read the item's earlier deliveries failed", "id", t.item.ID, "err", err)
		}
		hs[t] = h
	}
	slices.SortStableFunc(tasks, func(a, b *task) int { return killedAlone(hs[a]) - killedAlone(hs[b]) })
	mark := func(t *task, a Attempt) {
		h := hs[t]
		h.Attempts = slices.DeleteFunc(h.Attempts, func(o Attempt) bool { return o.Delivery == t.delivered })
		a.Delivery, a.Alone, a.Worker, a.Time = t.delivered, true, w.Name, w.now().UTC()
		h.Attempts = append(h.Attempts, a)
		hs[t] = h
		data, _ := json.Marshal(h)
		if _, err := w.tries.Put(ctx, triesKey(t.item.ID), data); err != nil {
			w.Log.Warn("record the delivery failed", "id", t.item.ID, "err", err)
		}
	}
	if len(tasks) > 1 {
		for _, t := range tasks[1:] {
			mark(t, Attempt{Error: notStarted, Waited: true})
		}
	}
	for _, t := range tasks {
		mark(t, Attempt{Error: workerDied})
		w.runTasks(ctx, n, []*task{t})
	}
}

// killedAlone counts the deliveries on which the item ran alone and its worker died.
func killedAlone(h history) int {
	n := 0
	for _, a := range h.Attempts {
		if a.Alone && a.Error == workerDied {
			n++
		}
	}
	return n
}

// forget deletes the history of id once the item is done or dead.
func (w *Worker) forget(ctx context.Context, id string) {
	if err := w.tries.Purge(ctx, triesKey(id)); err != nil {
		w.Log.Debug("delete the item's record of failed deliveries failed", "id", id, "err", err)
	}
}

// outcomes returns the deliveries of an item up to delivery upto that ran it, oldest first:
// the recorded outcome, or "worker died" where there is none. It stops at the maxDeliveries-th:
// a delivery after that only dead-lettered the item. Where fewer ran (the item reached
// deliveryCap), the deliveries that never started are listed too.
func outcomes(h history, upto uint64, maxDeliveries int) []Attempt {
	byDelivery := map[uint64]Attempt{}
	for _, a := range h.Attempts {
		byDelivery[a.Delivery] = a
	}
	var all []Attempt
	ran := 0
	for d := uint64(1); d <= upto && ran < maxDeliveries; d++ {
		a, ok := byDelivery[d]
		if !ok {
			a = Attempt{Delivery: d, Error: workerDied}
		}
		all = append(all, a)
		if !a.Waited {
			ran++
		}
	}
	if ran < maxDeliveries {
		return all
	}
	return slices.DeleteFunc(all, func(a Attempt) bool { return a.Waited })
}

// spent reports whether an item whose deliveries up to upto recorded h may run no more: it ran
// on MaxDeliveries of them, or it reached deliveryCap.
func (w *Worker) spent(h history, upto uint64) bool {
	if upto >= deliveryCap(w.MaxDeliveries) {
		return true
	}
	ran := 0
	for _, a := range outcomes(h, upto, w.MaxDeliveries) {
		if !a.Waited {
			ran++
		}
	}
	return ran >= w.MaxDeliveries
}

// reason sums up attempts for a dead letter, most frequent kind first:
// "worker died during 3 deliveries", "timed out after 10m0s in 2 of 3 deliveries;
// worker died during 1 of 3 deliveries", "run job: exit status 1 in 3 of 3 deliveries".
// Failures other than timeouts are named by the latest one's error.
func reason(attempts []Attempt) string {
	type kind struct {
		text  string // the latest error of the kind
		count int
		died  bool
	}
	var died, timedOut, failed, waited kind
	died.died = true
	waited.text = notStarted
	for _, a := range attempts {
		k := &failed
		switch {
		case a.Waited:
			k = &waited
		case a.Error == workerDied:
			k = &died
		case a.TimedOut:
			k = &timedOut
		}
		k.text = a.Error
		k.count++
	}
	kinds := []kind{failed, timedOut, died, waited}
	slices.SortStableFunc(kinds, func(a, b kind) int { return b.count - a.count })
	var parts []string
	n := len(attempts)
	for _, k := range kinds {
		switch {
		case k.count == 0:
		case k.died && k.count == n:
			parts = append(parts, fmt.Sprintf("worker died during %s", deliveries(n)))
		case k.died:
			parts = append(parts, fmt.Sprintf("worker died during %d of %s", k.count, deliveries(n)))
		default:
			parts = append(parts, fmt.Sprintf("%s in %d of %s", k.text, k.count, deliveries(n)))
		}
	}
	return strings.Join(parts, "; ")
}

// deliveries is "1 delivery" or "n deliveries".
func deliveries(n int) string {
	if n == 1 {
		return "1 delivery"
	}
	return fmt.Sprintf("%d deliveries", n)
}

// exhausted dead-letters t, which may run no more (spent), with the reason its history up to
// delivery upto gives.
func (w *Worker) exhausted(ctx context.Context, n names, t *task, upto uint64, settle settler) {
	h, err := w.loadHistory(ctx, t.item.ID)
	if err != nil {
		w.Log.Warn("read the item's earlier deliveries failed", "id", t.item.ID, "err", err)
	}
	w.deadLetter(ctx, n, t, h, upto, settle)
}

// sweep dead-letters the items that JetStream stopped delivering: those whose worker died on
// the delivery that was to dead-letter them (the consumer's MaxDeliver is deliveryCap +
// deadLetterDeliveries). The server leaves such an item in the stream below the consumer's ack
// floor, where nothing delivers it again. It is called when nothing is pending or in flight.
func (w *Worker) sweep(ctx context.Context, n names, ackFloor uint64) error {
	items, err := w.Client.js.Stream(ctx, n.itemStream)
	if err != nil {
		return err
	}
	s := items.CachedInfo().State
	for seq := s.FirstSeq; s.Msgs > 0 && seq <= min(s.LastSeq, ackFloor); {
		// The next message at or after seq: acked items leave long gaps in a work queue.
		m, err := items.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(n.items))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if seq = m.Sequence + 1; m.Sequence > ackFloor {
			return nil
		}
		t := parseTask(m.Data, m.Header)
		t.delivered = deliveryCap(w.MaxDeliveries) + deadLetterDeliveries
		drop := func() { items.DeleteMsg(ctx, m.Sequence) } // another sweeper may have deleted it
		if w.resultStored(ctx, n, t) {
			drop() // done, and acked as this sweep began
			continue
		}
		w.Log.Warn("item left undelivered after its last delivery; dead-lettering it", "id", t.item.ID)
		w.exhausted(ctx, n, t, t.delivered, settler{ack: drop, retry: func() {}})
	}
	return nil
}
