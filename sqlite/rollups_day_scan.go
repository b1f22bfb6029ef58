package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storeutil"
)

// dayChunk is a run of a ScanHoursByDay's rows, hour rows and day rows as read, in the order
// they are passed on. The reading goroutine fills it, the caller's decodes and empties it:
// days decoded on the reading side cost about three times as much, their hours written to
// memory that the other goroutine's core had read last (docs/architecture.md "Speed of the
// reports").
type dayChunk struct {
	items []dayItem
	data  []byte // item i's row is data[items[i].from:items[i].to]
	err   error  // the reading failed here
}

// dayItem is one row of a dayChunk.
type dayItem struct {
	series   int // index into the scanned series
	key      int64
	day      bool // a day_rollups row, else an hour_rollups one
	from, to int
}

const (
	dayChunkRows   = 512 // rows a dayChunk holds before it is handed over
	dayChunksAhead = 3
)

func (c *dayChunk) reset() {
	c.items, c.data, c.err = c.items[:0], c.data[:0], nil
}

// add appends a row to c.
func (c *dayChunk) add(series int, key int64, day bool, data []byte) {
	from := len(c.data)
	c.data = append(c.data, data...)
	c.items = append(c.items, dayItem{series: series, key: key, day: day, from: from, to: len(c.data)})
}

// dayScan is one ScanHoursByDay call's reading side: for each series the hour rows before its
// whole days, the whole days, the hour rows after, in the statements' order.
type dayScan struct {
	hours, days *sql.Stmt
	series      []storedSeries
	rowLo       int64 // the first hour row to read
	lo, hi      int64 // the whole days, read as day rows
	rowHi       int64 // the hour row after the last to read
}

// read fills chunks from free until every series is read or ctx is done; a failure goes out in
// a chunk's err.
func (r *dayScan) read(ctx context.Context, chunks, free chan *dayChunk) {
	var c *dayChunk
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
	for i, ss := range r.series {
		err := r.readRows(ctx, r.hours, "hour_rollups", i, ss, r.rowLo, min(r.lo, r.rowHi), false, c)
		if err == nil && r.lo < r.hi {
			err = r.readRows(ctx, r.days, dayTable, i, ss, r.lo, r.hi, true, c)
		}
		if err == nil && r.hi < r.rowHi {
			err = r.readRows(ctx, r.hours, "hour_rollups", i, ss, max(r.hi, r.rowLo), r.rowHi, false, c)
		}
		if err != nil {
			c.err = err
			send()
			return
		}
		if len(c.items) >= dayChunkRows {
			if !send() || !take() {
				return
			}
		}
	}
	send()
}

// readRows appends series i's rows lo to hi (exclusive) of table, read by stmt, to c.
func (r *dayScan) readRows(ctx context.Context, stmt *sql.Stmt, table string, i int, ss storedSeries, lo, hi int64, day bool, c *dayChunk) error {
	if lo >= hi {
		return nil
	}
	rows, err := stmt.QueryContext(ctx, hourRows.key(ss.id, lo), hourRows.key(ss.id, hi))
	if err != nil {
		return fmt.Errorf("read %s of %s: %w", table, ss.series.GPU.UUID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var key int64
		var data sql.RawBytes
		if err := rows.Scan(&key, &data); err != nil {
			return fmt.Errorf("read %s of %s: %w", table, ss.series.GPU.UUID, err)
		}
		c.add(i, key, day, data)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read %s of %s: %w", table, ss.series.GPU.UUID, err)
	}
	return nil
}

// consumeDays decodes the chunks' rows and passes them on in order, returning the chunks to
// free. It returns the first error, hour's and day's as callbackError.
func (s *rowScan) consumeDays(chunks <-chan *dayChunk, free chan<- *dayChunk, series []storedSeries,
	hour func(*gpucost.Rollup) error, day func(*gpucost.DayRollup) error) error {
	const rowSec, widthSec = 24 * 3600, 3600
	var d gpucost.DayRollup
	for c := range chunks {
		for _, it := range c.items {
			ss := series[it.series]
			data := c.data[it.from:it.to]
			if it.day {
				if err := storeutil.DecodeDay(data, &d); err != nil {
					return fmt.Errorf("%s row %d of %s: %w", dayTable, it.key, ss.series.GPU.UUID, err)
				}
				d.Series, d.Day = ss.series, hourRows.start(it.key&(1<<keyBits-1), 0)
				if err := day(&d); err != nil {
					return callbackError{err}
				}
				continue
			}
			if err := decodeRow(data, &s.row); err != nil {
				return fmt.Errorf("hour_rollups row %d of %s: %w", it.key, ss.series.GPU.UUID, err)
			}
			if err := s.emit(it.key, ss.series, rowSec, widthSec, time.Hour, hour); err != nil {
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
