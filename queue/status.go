package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/nats-io/nats.go/jetstream"
)

// Status is where a queue stands.
type Status struct {
	Queue    string           `json:"queue"`
	Pending  uint64           `json:"pending"`   // never yet delivered to a worker
	InFlight uint64           `json:"in_flight"` // delivered and not acked: running, or waiting to be retried
	Done     uint64           `json:"done"`      // items with a stored result
	Dead     uint64           `json:"dead"`      // items in the dead-letter stream
	Rate     float64          `json:"rate"`      // items done per second over the last minute
	ETA      gpucost.Duration `json:"eta_s"`     // time to finish Pending and InFlight at Rate; 0 when unknown
	// RecentDead are the newest dead letters, up to statusDeadShown, newest first.
	RecentDead []DeadLetter `json:"recent_dead,omitempty"`
}

// statusDeadShown is how many dead letters Status reads: enough to see what is going wrong,
// few enough that a status stays one screen and a handful of reads; `queue dead` lists all.
const statusDeadShown = 10

// rateWindow is how far back Status looks to measure the rate.
const rateWindow = time.Minute

// Status reads the counts of queue q. now is the time the rate is measured up to.
func (c *Client) Status(ctx context.Context, q string, now time.Time) (Status, error) {
	n, err := queueNames(q)
	if err != nil {
		return Status{}, err
	}
	st := Status{Queue: q}
	items, err := c.js.Stream(ctx, n.itemStream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return st, gpucost.Errorf(gpucost.ENotFound, "queue %s does not exist; push items to it first", q)
	}
	if err != nil {
		return st, unavailable("read queue "+q, err)
	}
	cons, err := items.Consumer(ctx, consumerName)
	switch {
	case err == nil:
		info, err := cons.Info(ctx)
		if err != nil {
			return st, unavailable("read queue "+q+" consumer", err)
		}
		st.Pending, st.InFlight = info.NumPending, uint64(info.NumAckPending)
	case errors.Is(err, jetstream.ErrConsumerNotFound):
		st.Pending = items.CachedInfo().State.Msgs // no worker has started yet
	default:
		return st, unavailable("read queue "+q+" consumer", err)
	}
	done, err := c.js.Stream(ctx, n.doneStr)
	if err != nil {
		return st, unavailable("read queue "+q+" done stream", err)
	}
	dead, err := c.js.Stream(ctx, n.deadStr)
	if err != nil {
		return st, unavailable("read queue "+q+" dead-letter stream", err)
	}
	st.Done, st.Dead = done.CachedInfo().State.Msgs, dead.CachedInfo().State.Msgs
	if st.RecentDead, err = recentDead(ctx, dead, q, statusDeadShown); err != nil {
		return st, err
	}
	if st.Rate, err = doneRate(ctx, done, now); err != nil {
		return st, unavailable("measure queue "+q+" rate", err)
	}
	if left := st.Pending + st.InFlight; st.Rate > 0 && left > 0 {
		st.ETA = gpucost.Duration(time.Duration(float64(left) / st.Rate * float64(time.Second)).Round(time.Second))
	}
	return st, nil
}

// doneRate is the number of done messages stored in the last rateWindow (or since the first,
// if that is later) per second. It finds the window's first message by binary search on
// sequence numbers, which a NATS 2.9 server supports as well as a new one.
func doneRate(ctx context.Context, done jetstream.Stream, now time.Time) (float64, error) {
	s := done.CachedInfo().State
	if s.Msgs == 0 || now.Sub(s.LastTime) > rateWindow {
		return 0, nil
	}
	from := now.Add(-rateWindow)
	lo, hi := s.FirstSeq, s.LastSeq // the answer is in [lo, hi]: LastSeq is inside the window
	for lo < hi {
		mid := lo + (hi-lo)/2
		m, err := done.GetMsg(ctx, mid)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			lo = mid + 1 // deleted by hand: treat as old
			continue
		}
		if err != nil {
			return 0, err
		}
		if m.Time.Before(from) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	first, err := done.GetMsg(ctx, lo)
	if err != nil {
		return 0, err
	}
	span := max(now.Sub(first.Time), time.Second)
	span = min(span, rateWindow)
	return float64(s.LastSeq-lo+1) / span.Seconds(), nil
}

// DeadLetters returns the queue's dead letters, oldest first.
func (c *Client) DeadLetters(ctx context.Context, q string) ([]DeadLetter, error) {
	n, err := queueNames(q)
	if err != nil {
		return nil, err
	}
	dead, err := c.js.Stream(ctx, n.deadStr)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, gpucost.Errorf(gpucost.ENotFound, "queue %s does not exist", q)
	}
	if err != nil {
		return nil, unavailable("read queue "+q+" dead letters", err)
	}
	s := dead.CachedInfo().State
	var out []DeadLetter
	for seq := s.FirstSeq; s.Msgs > 0 && seq <= s.LastSeq; seq++ {
		d, ok, err := deadLetterAt(ctx, dead, q, seq)
		if err != nil {
			return out, err
		}
		if ok {
			out = append(out, d)
		}
	}
	return out, nil
}

// recentDead returns up to k of the newest dead letters, newest first.
func recentDead(ctx context.Context, dead jetstream.Stream, q string, k int) ([]DeadLetter, error) {
	s := dead.CachedInfo().State
	var out []DeadLetter
	for seq := s.LastSeq; s.Msgs > 0 && seq >= s.FirstSeq && seq > 0 && len(out) < k; seq-- {
		d, ok, err := deadLetterAt(ctx, dead, q, seq)
		if err != nil {
			return out, err
		}
		if ok {
			out = append(out, d)
		}
	}
	return out, nil
}

// deadLetterAt reads the dead letter at seq; ok is false if it was deleted.
func deadLetterAt(ctx context.Context, dead jetstream.Stream, q string, seq uint64) (d DeadLetter, ok bool, err error) {
	m, err := dead.GetMsg(ctx, seq)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return d, false, nil
	}
	if err != nil {
		return d, false, unavailable("read queue "+q+" dead letters", err)
	}
	if err := json.Unmarshal(m.Data, &d); err != nil {
		return d, false, fmt.Errorf("dead letter %d of queue %s: %w", seq, q, err)
	}
	return d, true, nil
}
