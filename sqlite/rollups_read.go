package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
)

// ScanRollups calls fn for each stored rollup of the given width that matches f, series by
// series (in order of host, UUID and labels) and in time order within a series. The *Rollup,
// its UtilHist included, is reused and valid only during the call; its Series is not reused and
// may be kept.
//
// Reading and decoding overlap: one goroutine reads packed rows from SQLite while the calling
// goroutine decodes them and calls fn, so fn is never called concurrently.
func (db *DB) ScanRollups(ctx context.Context, width time.Duration, f gpucost.RollupFilter, fn func(*gpucost.Rollup) error) error {
	if width != time.Minute && width != time.Hour {
		return gpucost.Errorf(gpucost.EInvalid, "scan rollups of width %s: only minute and hour rollups are stored", width)
	}
	series, err := db.matchSeries(ctx, f)
	if err != nil {
		return fmt.Errorf("scan rollups in %s: read series: %w", db.Path, err)
	}
	s := newRowScan(layoutOf(width), f)
	if len(series) == 0 || s.rowLo >= s.rowHi {
		return nil
	}
	// A connection of its own, reading pages with a system call each rather than through memory
	// mapping: a report reads much of the file once, and every mapped page it touched counted in
	// the process's resident set until the scan ended (10,000 GPUs × 30 days: 0.25 GB of a
	// report's peak, where the page reads cost about 0.15 s of CPU; docs/architecture.md "Speed
	// of the reports").
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return fmt.Errorf("scan rollups in %s: %w", db.Path, err)
	}
	defer conn.Close()
	stmt, err := conn.PrepareContext(ctx, `SELECT key, data FROM `+s.layout.table+` WHERE key >= ? AND key < ? ORDER BY key`)
	if err != nil {
		return fmt.Errorf("scan rollups in %s: %w", db.Path, err)
	}
	defer stmt.Close()

	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	chunks, free := make(chan *rowChunk, chunksInFlight), make(chan *rowChunk, chunksInFlight+1)
	for range chunksInFlight + 1 {
		free <- &rowChunk{}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(chunks)
		s.read(ctx, stmt, series, chunks, free)
	}()
	err = s.consume(chunks, free, series, fn)
	cancel()
	<-done
	if err == nil {
		err = parent.Err() // the reader stops early, without an error, when ctx is done
	}
	if cb, ok := err.(callbackError); ok {
		return cb.err
	}
	if err != nil {
		return fmt.Errorf("scan rollups in %s: %w", db.Path, err)
	}
	return nil
}

const (
	chunksInFlight = 3
	chunkBytes     = 256 << 10 // packed rows are handed over in chunks of about this size
)

// rowChunk is a run of packed rows read from SQLite, with the series each belongs to.
type rowChunk struct {
	series []int   // index into the scanned series
	keys   []int64 // row keys
	ends   []int   // row i is data[ends[i-1]:ends[i]]
	data   []byte
	err    error // the reading failed here
}

func (c *rowChunk) reset() {
	c.series, c.keys, c.ends, c.data, c.err = c.series[:0], c.keys[:0], c.ends[:0], c.data[:0], nil
}

// rowScan is the state of one ScanRollups call.
type rowScan struct {
	layout         rowLayout
	rowLo, rowHi   int64 // rows to read
	fromSec, toSec int64 // rollups to pass on: fromSec ≤ start < toSec
	row            rowBuf
}

func newRowScan(l rowLayout, f gpucost.RollupFilter) *rowScan {
	s := &rowScan{layout: l, rowHi: 1 << keyBits, toSec: 1 << 62}
	s.row.reuse = true
	rowSec := int64(l.row / time.Second)
	if !f.From.IsZero() {
		s.fromSec = max(f.From.Unix(), 0)
		s.rowLo = s.fromSec / rowSec
	}
	if !f.To.IsZero() {
		s.toSec = f.To.Unix()
		s.rowHi = min(max((s.toSec+rowSec-1)/rowSec, 0), s.rowHi)
	}
	return s
}

// read reads the rows of each series into chunks, taking empty ones from free, until it has
// read all or ctx is done. A failure goes out in a chunk's err.
func (s *rowScan) read(ctx context.Context, stmt *sql.Stmt, series []storedSeries, chunks, free chan *rowChunk) {
	var c *rowChunk
	take := func() bool {
		select {
		case c = <-free:
			c.reset()
			return true
		case <-ctx.Done():
			return false
		}
	}
	send := func() bool {
		select {
		case chunks <- c:
			return true
		case <-ctx.Done():
			return false
		}
	}
	if !take() {
		return
	}
	for i, ss := range series {
		if err := s.readSeries(ctx, stmt, i, ss, c); err != nil {
			c.err = err
			send()
			return
		}
		if len(c.data) >= chunkBytes {
			if !send() || !take() {
				return
			}
		}
	}
	send()
}

// readSeries appends series i's rows to c.
func (s *rowScan) readSeries(ctx context.Context, stmt *sql.Stmt, i int, ss storedSeries, c *rowChunk) error {
	l := s.layout
	rows, err := stmt.QueryContext(ctx, l.key(ss.id, s.rowLo), l.key(ss.id, s.rowHi))
	if err != nil {
		return fmt.Errorf("read %s of %s: %w", l.table, ss.series.GPU.UUID, err)
	}
	defer rows.Close()
	var (
		key  int64
		data sql.RawBytes // one of each for all rows, as in dayScan.readRun
	)
	for rows.Next() {
		if err := rows.Scan(&key, &data); err != nil {
			return fmt.Errorf("read %s of %s: %w", l.table, ss.series.GPU.UUID, err)
		}
		c.series, c.keys = append(c.series, i), append(c.keys, key)
		c.data = append(c.data, data...)
		c.ends = append(c.ends, len(c.data))
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read %s of %s: %w", l.table, ss.series.GPU.UUID, err)
	}
	return nil
}

// consume decodes the chunks' rows and calls fn for each rollup in range, returning the
// chunks to free. It returns the first error, fn's unwrapped.
func (s *rowScan) consume(chunks <-chan *rowChunk, free chan<- *rowChunk, series []storedSeries, fn func(*gpucost.Rollup) error) error {
	l := s.layout
	rowSec, widthSec := int64(l.row/time.Second), int64(l.width/time.Second)
	for c := range chunks {
		start := 0
		for i, key := range c.keys {
			ss := series[c.series[i]]
			data := c.data[start:c.ends[i]]
			start = c.ends[i]
			if err := decodeRow(data, &s.row); err != nil {
				return fmt.Errorf("%s row %d of %s: %w", l.table, key, ss.series.GPU.UUID, err)
			}
			if err := s.emit(key, ss.series, rowSec, widthSec, l.width, fn); err != nil {
				return err
			}
		}
		if c.err != nil {
			return c.err
		}
		free <- c
	}
	return nil
}

// callbackError carries fn's error out of ScanRollups unwrapped.
type callbackError struct{ err error }

func (e callbackError) Error() string { return e.err.Error() }

// emit calls fn for each rollup of the decoded row s.row, stored under key, that starts inside
// the scan's bounds: rows of rowSec seconds holding rollups of widthSec (width).
func (s *rowScan) emit(key int64, series *gpucost.Series, rowSec, widthSec int64, width time.Duration, fn func(*gpucost.Rollup) error) error {
	rowStart := (key & (1<<keyBits - 1)) * rowSec
	for k := range s.row.n {
		t := rowStart + int64(s.row.slot[k])*widthSec
		if t < s.fromSec || t >= s.toSec {
			continue
		}
		r := &s.row.rs[k]
		r.Series, r.Start, r.Width = series, time.Unix(t, 0).UTC(), width
		if err := fn(r); err != nil {
			return callbackError{err}
		}
	}
	return nil
}
