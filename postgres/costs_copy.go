package postgres

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5/pgconn"
)

// copyBatch is a batch of lines encoded for binary COPY, with the contexts they name first.
type copyBatch struct {
	lines, contexts   []byte // COPY header and rows of cost_lines, of cost_line_contexts
	nlines, ncontexts int
	first             int // the number of its first line, from 1, for messages
}

// copy copies the batch: its new contexts, then its lines.
func (b *copyBatch) copy(ctx context.Context, conn *pgconn.PgConn) error {
	if b.ncontexts > 0 {
		b.contexts = binary.BigEndian.AppendUint16(b.contexts, 0xffff) // the trailer: a field count of -1
		if _, err := conn.CopyFrom(ctx, bytes.NewReader(b.contexts), copyContextsSQL); err != nil {
			return fmt.Errorf("copy the contexts of lines %d–%d: %w", b.first, b.first+b.nlines-1, err)
		}
	}
	b.lines = binary.BigEndian.AppendUint16(b.lines, 0xffff)
	if _, err := conn.CopyFrom(ctx, bytes.NewReader(b.lines), copyLinesSQL); err != nil {
		return fmt.Errorf("copy lines %d–%d: %w", b.first, b.first+b.nlines-1, err)
	}
	return nil
}

// copySender copies batches on a goroutine of its own, so that the server stores one batch
// while the caller reads and encodes the next: an import's time is the larger of the two, not
// their sum. Two batches take turns, so memory holds two.
type copySender struct {
	ctx  context.Context
	conn *pgconn.PgConn
	todo chan *copyBatch
	free chan *copyBatch
	done chan struct{}

	mu  sync.Mutex
	err error // the first COPY's error
}

// startSender starts copying batches on conn, which nothing else may use until close returns.
func startSender(ctx context.Context, conn *pgconn.PgConn) *copySender {
	s := &copySender{ctx: ctx, conn: conn, todo: make(chan *copyBatch, 1), free: make(chan *copyBatch, 2), done: make(chan struct{})}
	s.free <- &copyBatch{}
	s.free <- &copyBatch{}
	go s.run()
	return s
}

func (s *copySender) run() {
	defer close(s.done)
	for b := range s.todo {
		if s.failed() == nil {
			if err := b.copy(s.ctx, s.conn); err != nil {
				s.mu.Lock()
				s.err = err
				s.mu.Unlock()
			}
		}
		b.lines, b.contexts, b.nlines, b.ncontexts = b.lines[:0], b.contexts[:0], 0, 0
		s.free <- b
	}
}

// failed returns the error of a COPY that failed, if one has.
func (s *copySender) failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// take returns an empty batch, waiting while both are in use.
func (s *copySender) take() *copyBatch { return <-s.free }

// send hands b over to be copied, unless it holds no line, and returns the error of a COPY that
// failed, if one has.
func (s *copySender) send(b *copyBatch) error {
	if b.nlines == 0 {
		s.free <- b
	} else {
		s.todo <- b
	}
	return s.failed()
}

// close waits until the batches sent are copied and returns the first error of their COPYs.
func (s *copySender) close() error {
	close(s.todo)
	<-s.done
	return s.failed()
}
