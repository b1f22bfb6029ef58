package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math/bits"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storeutil"
)

// migrationFills are the steps in Go that a migration takes after its SQL, in its transaction.
var migrationFills = map[int]func(context.Context, *sql.Tx) error{
	31: fillDays,
	32: fillDays, // made again in internal/storeutil/day.go's format 3
}

// dayTable is the day_rollups table: a series' day of hour rollups as one gpucost.DayRollup,
// under the key of the hour_rollups row it is made from (migrations/0031_day_rollups.sql).
const dayTable = "day_rollups"

// dayBuf makes the day rows of packed hour rows.
type dayBuf struct {
	hours  []gpucost.Rollup
	series gpucost.Series // the series the day is built for; the key names it
	day    gpucost.DayRollup
	data   []byte
}

// encode returns the day row of the hours in slots that present names (bit i: hour i).
func (b *dayBuf) encode(slots []gpucost.Rollup, present uint64) ([]byte, error) {
	b.hours = b.hours[:0]
	for p := present; p != 0; p &= p - 1 {
		r := slots[bits.TrailingZeros64(p)]
		r.Series = &b.series
		b.hours = append(b.hours, r)
	}
	d, err := gpucost.NewDayRollup(b.hours)
	if err != nil {
		return nil, err
	}
	b.day = d
	b.data = storeutil.AppendDay(b.data[:0], &b.day)
	return b.data, nil
}

// fillDays writes the day row of every stored hour row: what migration 31 adds to a store that
// held hours before it, and migration 32 writes again in a new encoding.
func fillDays(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `SELECT key, data FROM hour_rollups ORDER BY key`)
	if err != nil {
		return fmt.Errorf("read the hour rollups to fill %s: %w", dayTable, err)
	}
	defer rows.Close()
	put, err := tx.PrepareContext(ctx, `INSERT INTO `+dayTable+`(key, data) VALUES (?, ?)`)
	if err != nil {
		return fmt.Errorf("fill %s: %w", dayTable, err)
	}
	defer put.Close()
	var rb rowBuf
	var db dayBuf
	var slots [maxSlots]gpucost.Rollup
	for rows.Next() {
		var key int64
		var data sql.RawBytes
		if err := rows.Scan(&key, &data); err != nil {
			return fmt.Errorf("fill %s: %w", dayTable, err)
		}
		present, err := hourSlots(data, key, &rb, slots[:])
		if err != nil {
			return fmt.Errorf("fill %s from hour_rollups row %d: %w", dayTable, key, err)
		}
		if present == 0 {
			continue
		}
		day, err := db.encode(slots[:], present)
		if err != nil {
			return fmt.Errorf("fill %s from hour_rollups row %d: %w", dayTable, key, err)
		}
		if _, err := put.ExecContext(ctx, key, day); err != nil {
			return fmt.Errorf("fill %s row %d: %w", dayTable, key, err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("fill %s: %w", dayTable, err)
	}
	return nil
}

// hourSlots decodes the packed hour row data of key into slots, with their starts and width,
// and returns which slots it holds.
func hourSlots(data []byte, key int64, rb *rowBuf, slots []gpucost.Rollup) (uint64, error) {
	if err := decodeRow(data, rb); err != nil {
		return 0, err
	}
	rowNum := key & (1<<keyBits - 1)
	var present uint64
	for k := range rb.n {
		slot := rb.slot[k]
		if slot >= 24 {
			return 0, errCorrupt
		}
		r := rb.rs[k]
		r.Start, r.Width = hourRows.start(rowNum, slot), time.Hour
		slots[slot] = r
		present |= 1 << slot
	}
	return present, nil
}

var _ gpucost.DayStore = (*DB)(nil)

// ScanDays calls fn for each stored day of a series matching f whose whole day lies in
// [f.From, f.To), series by series as ScanRollups gives them and in time order within one.
func (db *DB) ScanDays(ctx context.Context, f gpucost.RollupFilter, fn func(*gpucost.DayRollup) error) error {
	series, err := db.matchSeries(ctx, f)
	if err != nil {
		return fmt.Errorf("scan day rollups in %s: read series: %w", db.Path, err)
	}
	lo, hi := storeutil.WholeDays(f)
	if len(series) == 0 || lo >= hi {
		return nil
	}
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return fmt.Errorf("scan day rollups in %s: %w", db.Path, err)
	}
	defer conn.Close()
	stmt, err := conn.PrepareContext(ctx, `SELECT key, data FROM `+dayTable+` WHERE key >= ? AND key < ? ORDER BY key`)
	if err != nil {
		return fmt.Errorf("scan day rollups in %s: %w", db.Path, err)
	}
	defer stmt.Close()
	var d gpucost.DayRollup
	for _, ss := range series {
		if err := scanSeriesDays(ctx, stmt, ss, lo, hi, &d, fn); err != nil {
			if cb, ok := err.(callbackError); ok {
				return cb.err
			}
			return fmt.Errorf("scan day rollups in %s: %w", db.Path, err)
		}
	}
	return nil
}

// scanSeriesDays calls fn for each of ss's stored days from day lo to day hi (exclusive).
func scanSeriesDays(ctx context.Context, stmt *sql.Stmt, ss storedSeries, lo, hi int64, d *gpucost.DayRollup, fn func(*gpucost.DayRollup) error) error {
	rows, err := stmt.QueryContext(ctx, hourRows.key(ss.id, lo), hourRows.key(ss.id, hi))
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
		if err := storeutil.DecodeDay(data, d); err != nil {
			return fmt.Errorf("%s row %d of %s: %w", dayTable, key, ss.series.GPU.UUID, err)
		}
		d.Series, d.Day = ss.series, hourRows.start(key&(1<<keyBits-1), 0)
		if err := fn(d); err != nil {
			return callbackError{err}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read %s of %s: %w", dayTable, ss.series.GPU.UUID, err)
	}
	return nil
}

// ScanHoursByDay calls hour for each stored hour rollup of a series matching f, and day in
// place of the hours of each whole day in f and [wholeFrom, wholeTo), series by series and in
// time order within one (gpucost.DayStore).
func (db *DB) ScanHoursByDay(ctx context.Context, f gpucost.RollupFilter, wholeFrom, wholeTo time.Time,
	hour func(*gpucost.Rollup) error, day func(*gpucost.DayRollup) error) error {
	series, err := db.matchSeries(ctx, f)
	if err != nil {
		return fmt.Errorf("scan rollups in %s: read series: %w", db.Path, err)
	}
	s := newRowScan(hourRows, f)
	if len(series) == 0 || s.rowLo >= s.rowHi {
		return nil
	}
	lo, hi := storeutil.WholeDays(f)
	wlo, whi := storeutil.WholeDays(gpucost.RollupFilter{From: wholeFrom, To: wholeTo})
	lo, hi = max(lo, wlo), min(hi, whi)
	if lo >= hi {
		lo, hi = s.rowHi, s.rowHi // no whole day: every row is read as hours
	}
	// The rows are read on a connection of their own through SQLite's C API (rawConn), each
	// row's data copied once, into a chunk.
	conn, err := openRaw(db.Path)
	if err != nil {
		return fmt.Errorf("scan rollups in %s: %w", db.Path, err)
	}
	defer conn.Close()
	hours, err := conn.prepare(`SELECT key, data FROM hour_rollups WHERE key >= ? AND key < ? ORDER BY key`)
	if err != nil {
		return fmt.Errorf("scan rollups in %s: %w", db.Path, err)
	}
	defer hours.Close()
	days, err := conn.prepare(`SELECT key, data FROM ` + dayTable + ` WHERE key >= ? AND key < ? ORDER BY key`)
	if err != nil {
		return fmt.Errorf("scan rollups in %s: %w", db.Path, err)
	}
	defer days.Close()

	// One goroutine reads the rows and decodes the days while this one decodes the hours and
	// calls hour and day, as ScanRollups reads (rollups_read.go).
	r := &dayScan{hours: hours, days: days, series: series, rowLo: s.rowLo, lo: lo, hi: hi, rowHi: s.rowHi,
		chunks: make(chan *dayChunk, dayChunksAhead), free: make(chan *dayChunk, dayChunksAhead+1)}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range dayChunksAhead + 1 {
		r.free <- &dayChunk{}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(r.chunks)
		r.read(ctx)
	}()
	err = s.consumeDays(r.chunks, r.free, series, hour, day)
	cancel()
	<-done
	if cb, ok := err.(callbackError); ok {
		return cb.err
	}
	if err != nil {
		return fmt.Errorf("scan rollups in %s: %w", db.Path, err)
	}
	return parent.Err() // the reader stops early, without an error, when ctx is done
}
