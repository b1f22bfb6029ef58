package queue

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// PushStats counts what a push did.
type PushStats struct {
	Pushed     int64 // new items stored
	Duplicates int64 // items whose id the queue already held (within DuplicateWindow)
	Malformed  int64 // lines that are not items; stored, and dead-lettered by the first worker
	// FirstErrors are the first few malformed lines, "file:line: error".
	FirstErrors []string
}

// maxReported bounds PushStats.FirstErrors.
const maxReported = 5

// Push adds every non-blank line of r, named source in messages, to queue q.
//
// A malformed line does not stop the push: it goes into the queue with its parse error, the
// first worker moves it to the dead-letter stream with that error and source:line, and the push
// counts and names it. One bad line in a million should not hold up the other 999,999, and the
// dead-letter stream is where a user looks for what did not run.
//
// Publishing is asynchronous with about a thousand in flight; each item is sent with its id as
// Nats-Msg-Id, so JetStream drops a repeat it has seen within DuplicateWindow. progress, if
// set, is called with the count of lines read so far.
func (c *Client) Push(ctx context.Context, q string, r io.Reader, source string, progress func(lines int64)) (PushStats, error) {
	return c.PushWith(ctx, q, r, PushOptions{Source: source, Progress: progress})
}

// PushOptions say how PushWith pushes.
type PushOptions struct {
	Source   string            // the input's name in messages, such as the file name
	Progress func(lines int64) // called with the count of lines read so far; may be nil
	// ItemTimeout, if set, goes with every item: a worker kills a run of its command over k
	// such items after k times it, whatever the worker's own --item-timeout.
	ItemTimeout time.Duration
}

// PushWith is Push with options.
func (c *Client) PushWith(ctx context.Context, q string, r io.Reader, o PushOptions) (PushStats, error) {
	source := o.Source
	if o.ItemTimeout < 0 {
		return PushStats{}, gpucost.Errorf(gpucost.EInvalid, "--item-timeout %s: use a positive duration, or 0 for the worker's", o.ItemTimeout)
	}
	n, err := c.ensureStreams(ctx, q)
	if err != nil {
		return PushStats{}, err
	}
	// Fewer in the channel than the client lets be unacknowledged (4096), so that publishing
	// waits here for acks instead of failing with "too many outstanding".
	acks := make(chan pending, 1024)
	tally := make(chan tallyResult, 1)
	go func() { tally <- tallyAcks(ctx, acks) }()
	st, readErr := c.publishLines(ctx, n, r, o, acks)
	close(acks)
	t := <-tally
	st.Pushed, st.Duplicates = t.pushed, t.dups
	if readErr != nil {
		return st, readErr
	}
	if t.err != nil {
		return st, unavailable(fmt.Sprintf("push %s to queue %s", source, q), t.err)
	}
	return st, nil
}

// pending is an item whose publish is not yet acknowledged.
type pending struct {
	fut jetstream.PubAckFuture
	at  string // source:line
}

type tallyResult struct {
	pushed, dups int64
	err          error
}

// tallyAcks waits for each publish in order and counts new items and duplicates.
func tallyAcks(ctx context.Context, acks <-chan pending) tallyResult {
	var t tallyResult
	for p := range acks {
		if t.err != nil {
			continue
		}
		select {
		case ack := <-p.fut.Ok():
			if ack.Duplicate {
				t.dups++
			} else {
				t.pushed++
			}
		case err := <-p.fut.Err():
			t.err = fmt.Errorf("item at %s: %w", p.at, err)
		case <-ctx.Done():
			t.err = ctx.Err()
		}
	}
	return t
}

// publishLines reads r line by line and publishes each item.
func (c *Client) publishLines(ctx context.Context, n names, r io.Reader, o PushOptions, acks chan<- pending) (PushStats, error) {
	source, progress := o.Source, o.Progress
	var st PushStats
	br := bufio.NewReaderSize(r, 1<<20)
	for lineNo := int64(1); ; lineNo++ {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			if perr := c.publishLine(n, line, o, lineNo, acks, &st); perr != nil {
				return st, perr
			}
		}
		if progress != nil && lineNo%1024 == 0 {
			progress(lineNo)
		}
		if errors.Is(err, io.EOF) {
			if progress != nil {
				progress(lineNo)
			}
			return st, nil
		}
		if err != nil {
			return st, gpucost.Errorf(gpucost.EInvalid, "read %s line %d: %w", source, lineNo, err)
		}
		if ctx.Err() != nil {
			return st, ctx.Err()
		}
	}
}

func (c *Client) publishLine(n names, line []byte, o PushOptions, lineNo int64, acks chan<- pending, st *PushStats) error {
	source := o.Source
	line = bytes.TrimRight(line, "\r\n")
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	at := source + ":" + strconv.FormatInt(lineNo, 10)
	it, perr := ParseItem(line)
	m := nats.NewMsg(n.items)
	m.Data = it.Data
	m.Header.Set(jetstream.MsgIDHeader, it.ID)
	m.Header.Set(headerSource, at)
	if o.ItemTimeout > 0 {
		m.Header.Set(headerTimeout, o.ItemTimeout.String())
	}
	if perr != nil {
		st.Malformed++
		m.Header.Set(headerError, perr.Error())
		if len(st.FirstErrors) < maxReported {
			st.FirstErrors = append(st.FirstErrors, at+": "+perr.Error())
		}
	}
	fut, err := c.js.PublishMsgAsync(m)
	for tries := 0; errors.Is(err, jetstream.ErrTooManyStalledMsgs) && tries < 100; tries++ {
		fut, err = c.js.PublishMsgAsync(m) // the server is slow to ack: wait for it
	}
	if err != nil {
		return unavailable("push item at "+at, err)
	}
	acks <- pending{fut: fut, at: at}
	return nil
}
