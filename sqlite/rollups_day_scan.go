package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storeutil"
)

// dayChunk is a run of a ScanHoursByDay's rows in the order they are passed on: packed hour
// rows as read, day rows already decoded. The reading goroutine fills it, the caller's empties
// it (docs/architecture.md "Speed of the reports").
type dayChunk struct {
	items []dayItem
	data  []byte              // the hour rows, item i's is data[items[i].from:items[i].to]
	days  []gpucost.DayRollup // the decoded days, reused from chunk to chunk with their Hours
	n     int                 // days of days in use
	err   error               // the reading failed here
}

// dayItem is one row of a dayChunk: an hour row (day < 0) or days[day].
type dayItem struct {
	series   int // index into the scanned series
	key      int64
	day      int
	from, to int
}

const (
	dayChunkRows   = 512 // rows a dayChunk holds before it is handed over
	dayChunksAhead = 3
)

func (c *dayChunk) reset() {
	c.items, c.data, c.n, c.err = c.items[:0], c.data[:0], 0, nil
}

// nextDay returns the chunk's next free DayRollup.
func (c *dayChunk) nextDay() *gpucost.DayRollup {
	if c.n == len(c.days) {
		c.days = append(c.days, gpucost.DayRollup{})
	}
	c.n++
	return &c.days[c.n-1]
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
		err := r.readHours(ctx, i, ss, r.rowLo, min(r.lo, r.rowHi), c)
		if err == nil && r.lo < r.hi {
			err = r.readDays(ctx, i, ss, c)
		}
		if err == nil && r.hi < r.rowHi {
			err = r.readHours(ctx, i, ss, max(r.hi, r.rowLo), r.rowHi, c)
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

// readHours appends series i's packed hour rows lo to hi (exclusive) to c.
func (r *dayScan) readHours(ctx context.Context, i int, ss storedSeries, lo, hi int64, c *dayChunk) error {
	if lo >= hi {
		return nil
	}
	rows, err := r.hours.QueryContext(ctx, hourRows.key(ss.id, lo), hourRows.key(ss.id, hi))
	if err != nil {
		return fmt.Errorf("read hour_rollups of %s: %w", ss.series.GPU.UUID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var key int64
		var data sql.RawBytes
		if err := rows.Scan(&key, &data); err != nil {
			return fmt.Errorf("read hour_rollups of %s: %w", ss.series.GPU.UUID, err)
		}
		from := len(c.data)
		c.data = append(c.data, data...)
		c.items = append(c.items, dayItem{series: i, key: key, day: -1, from: from, to: len(c.data)})
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read hour_rollups of %s: %w", ss.series.GPU.UUID, err)
	}
	return nil
}

// readDays decodes series i's day rows of the whole days into c.
func (r *dayScan) readDays(ctx context.Context, i int, ss storedSeries, c *dayChunk) error {
	rows, err := r.days.QueryContext(ctx, hourRows.key(ss.id, r.lo), hourRows.key(ss.id, r.hi))
	if err != nil {
		return fmt.Errorf("read %s of %s: %w", dayTable, ss.series.GPU.UUID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var key int64
		var data sql.RawBytes
		if err := rows.Scan(&key, &data); err != nil {
			return fmt.Errorf("read %s of %s: %w", dayTable, ss.series.GPU.UUID, err)
		}
		d := c.nextDay()
		if err := storeutil.DecodeDay(data, d); err != nil {
			return fmt.Errorf("%s row %d of %s: %w", dayTable, key, ss.series.GPU.UUID, err)
		}
		d.Series, d.Day = ss.series, hourRows.start(key&(1<<keyBits-1), 0)
		c.items = append(c.items, dayItem{series: i, key: key, day: c.n - 1})
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read %s of %s: %w", dayTable, ss.series.GPU.UUID, err)
	}
	return nil
}

// consume passes the chunks' rows on in order, hour rows decoded, and returns the chunks to
// free. It returns the first error, hour's and day's as callbackError.
func (s *rowScan) consumeDays(chunks <-chan *dayChunk, free chan<- *dayChunk, series []storedSeries,
	hour func(*gpucost.Rollup) error, day func(*gpucost.DayRollup) error) error {
	const rowSec, widthSec = 24 * 3600, 3600
	for c := range chunks {
		for _, it := range c.items {
			if it.day >= 0 {
				if err := day(&c.days[it.day]); err != nil {
					return callbackError{err}
				}
				continue
			}
			ss := series[it.series]
			if err := decodeRow(c.data[it.from:it.to], &s.row); err != nil {
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
