package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"iter"
	"sync/atomic"

	"github.com/gpucost/gpucost"
)

// chunkWriter streams the lines of one import into chunks. The caller's goroutine gathers a
// chunk's columns, numbering the lines' strings in the import's dictionary, which goes in the
// lines' order; a goroutine of the writer's encodes each chunk gathered and inserts it while the
// next is gathered, so that storing takes about the longer of the two, not their sum
// (docs/architecture.md "Storing bill lines"). The chunks are the bytes one goroutine doing both
// writes.
type chunkWriter struct {
	stmt     *sql.Stmt
	importID int64
	enc      chunkEncoder
	lines    int
	sums     gpucost.CostTotals

	gathered chan *chunkCols // chunks to write, in order; nil when no goroutine writes
	free     chan *chunkCols // chunks written, whose buffers gather the next ones
	done     chan error      // the writing goroutine's error, once it has ended
	failed   atomic.Bool     // a write failed: gathering stops
	made     int             // chunks made to gather into besides enc's own, at most writesInFlight
}

// writesInFlight is how many gathered chunks the writer holds besides the one it gathers: one
// being written and one waiting, so that neither goroutine waits for the other while both keep
// pace (about 3 MB each).
const writesInFlight = 2

func newChunkWriter(ctx context.Context, tx *sql.Tx, importID int64) (*chunkWriter, error) {
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO cost_chunks (import_id, seq, min_start, max_start, lines, strings, data)
		VALUES (?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return nil, err
	}
	return &chunkWriter{stmt: stmt, importID: importID}, nil
}

// writeAll writes the lines, stopping at the first error or when ctx is done. It returns once
// every chunk it gathered is written or dropped, also when the lines panic, so that the
// transaction is the caller's alone again.
func (w *chunkWriter) writeAll(ctx context.Context, lines iter.Seq[*gpucost.CostLine]) error {
	if lines == nil {
		lines = func(func(*gpucost.CostLine) bool) {}
	}
	w.start(ctx)
	defer w.stop() // when the lines panic
	for l := range lines {
		if w.enc.full() && !w.send(false) {
			break
		}
		w.enc.add(l)
		w.count(l)
	}
	if w.enc.n > 0 {
		w.send(true)
	}
	err := w.stop()
	if ctx.Err() != nil { // the reader failed, or the caller gave up
		err = context.Cause(ctx)
	}
	return err
}

// count adds l to the totals.
func (w *chunkWriter) count(l *gpucost.CostLine) {
	w.lines++
	w.sums.Add(l.BilledCost, l.EffectiveCost)
}

// start starts the goroutine that writes the chunks gathered.
func (w *chunkWriter) start(ctx context.Context) {
	w.gathered = make(chan *chunkCols, writesInFlight)
	w.free = make(chan *chunkCols, writesInFlight)
	w.done = make(chan error, 1)
	go w.write(ctx, w.gathered)
}

// send hands the chunk gathered to the writing goroutine, last if it is the import's last; it
// reports false once a write has failed, when there is no use gathering more.
func (w *chunkWriter) send(last bool) bool {
	if w.failed.Load() {
		return false
	}
	var c *chunkCols
	select {
	case c = <-w.free:
	default:
		if w.made < writesInFlight {
			// A chunk was full: the next ones will be too, so their columns are made whole
			// rather than grown; after the last, nothing is gathered.
			c, w.made = new(chunkCols), w.made+1
			if !last {
				c.reserve(cmp.Or(w.enc.maxLines, costChunkLines))
			}
		} else {
			c = <-w.free
		}
	}
	w.enc.take(c)
	w.gathered <- c
	return true
}

// write encodes and inserts the chunks sent on gathered, in order, until stop closes it; once
// one fails, it drops the rest.
func (w *chunkWriter) write(ctx context.Context, gathered <-chan *chunkCols) {
	var coder colEncoder
	var strs, data []byte
	var err error
	seq := 0
	for c := range gathered {
		if err == nil {
			strs, data = coder.encode(c, strs, data)
			if _, err = w.stmt.ExecContext(ctx, w.importID, seq, c.minStart, c.maxStart, c.n, strs, data); err != nil {
				err = fmt.Errorf("write chunk %d: %w", seq, err)
				w.failed.Store(true)
			}
			seq++
		}
		w.free <- c
	}
	w.done <- err
}

// stop waits for the writing goroutine to write or drop every chunk sent and returns its error;
// after the first call it returns nil.
func (w *chunkWriter) stop() error {
	if w.gathered == nil {
		return nil
	}
	close(w.gathered)
	w.gathered = nil
	return <-w.done
}
