package sqlite

import (
	"context"
	"errors"
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
	hours, days *rawStmt // on a rawConn of the scan's own
	series      []storedSeries
	rowLo       int64 // the first hour row to read
	lo, hi      int64 // the whole days, read as day rows
	rowHi       int64 // the hour row after the last to read

	c            *dayChunk // being filled
	chunks, free chan *dayChunk
}

// read fills chunks from free until every series is read or ctx is done; a failure goes out in
// a chunk's err. Series whose ids follow each other and all of whose rollups lie in the whole
// days are read with one query (wholeRun).
func (r *dayScan) read(ctx context.Context) {
	if !r.take(ctx) {
		return
	}
	for i := 0; i < len(r.series); {
		var err error
		j := r.wholeRun(i)
		if j > i+1 {
			err = r.readRun(ctx, i, j)
		} else {
			ss := r.series[i]
			err = r.readRows(ctx, r.hours, "hour_rollups", i, ss, r.rowLo, min(r.lo, r.rowHi), false)
			if err == nil && r.lo < r.hi {
				err = r.readRows(ctx, r.days, dayTable, i, ss, r.lo, r.hi, true)
			}
			if err == nil && r.hi < r.rowHi {
				err = r.readRows(ctx, r.hours, "hour_rollups", i, ss, max(r.hi, r.rowLo), r.rowHi, false)
			}
		}
		if err == errStopped {
			return
		}
		if err != nil {
			r.c.err = err
			r.send(ctx)
			return
		}
		i = j
	}
	r.send(ctx)
}

// errStopped ends a read whose ctx is done.
var errStopped = errors.New("scan stopped")

// take makes an empty chunk from free the one being filled; false once ctx is done.
func (r *dayScan) take(ctx context.Context) bool {
	select {
	case r.c = <-r.free:
		r.c.reset()
		return true
	case <-ctx.Done():
		return false
	}
}

// send hands the chunk being filled over; false once ctx is done.
func (r *dayScan) send(ctx context.Context) bool {
	select {
	case r.chunks <- r.c:
		return true
	case <-ctx.Done():
		return false
	}
}

// handOver sends the chunk being filled and takes an empty one once it holds dayChunkRows rows.
func (r *dayScan) handOver(ctx context.Context) error {
	if len(r.c.items) < dayChunkRows {
		return nil
	}
	if !r.send(ctx) || !r.take(ctx) {
		return errStopped
	}
	return nil
}

// wholeRun returns the end of the run of series from i on that one query reads: ids one after
// the other (their day rows' keys are then one range, in the series' order), every stored
// rollup of each (series.first_seen to last_seen) in the whole days, so that the range holds
// no day row of another day and no hour row is left to read.
func (r *dayScan) wholeRun(i int) int {
	whole := func(ss storedSeries) bool {
		return r.lo < r.hi && ss.first >= r.lo*daySec && ss.last <= r.hi*daySec
	}
	if !whole(r.series[i]) {
		return i + 1
	}
	j := i + 1
	for j < len(r.series) && r.series[j].id == r.series[j-1].id+1 && whole(r.series[j]) {
		j++
	}
	return j
}

// daySec is a day in seconds.
const daySec = 24 * 3600

// readRun appends the day rows of series i to j (exclusive), a run of wholeRun, to the chunks.
func (r *dayScan) readRun(ctx context.Context, i, j int) error {
	first := r.series[i].id
	err := r.days.scan(hourRows.key(first, r.lo), hourRows.key(r.series[j-1].id, r.hi), func(key int64, data []byte) error {
		k := i + int(key>>keyBits-first)
		if day := key & (1<<keyBits - 1); k >= j || day < r.lo || day >= r.hi {
			return fmt.Errorf("%s row %d lies outside the days of series %s to %s: the series table's first_seen and last_seen do not cover it",
				dayTable, key, r.series[i].series.GPU.UUID, r.series[j-1].series.GPU.UUID)
		}
		r.c.add(k, key, true, data)
		return r.handOver(ctx)
	})
	if err != nil && err != errStopped {
		return fmt.Errorf("read %s of %s to %s: %w", dayTable, r.series[i].series.GPU.UUID, r.series[j-1].series.GPU.UUID, err)
	}
	return err
}

// readRows appends series i's rows lo to hi (exclusive) of table, read by stmt, to the chunks.
func (r *dayScan) readRows(ctx context.Context, stmt *rawStmt, table string, i int, ss storedSeries, lo, hi int64, day bool) error {
	if lo >= hi {
		return nil
	}
	err := stmt.scan(hourRows.key(ss.id, lo), hourRows.key(ss.id, hi), func(key int64, data []byte) error {
		r.c.add(i, key, day, data)
		return r.handOver(ctx)
	})
	if err != nil && err != errStopped {
		return fmt.Errorf("read %s of %s: %w", table, ss.series.GPU.UUID, err)
	}
	return err
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
