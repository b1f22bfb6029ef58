package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/jackc/pgx/v5"
)

// ScanRollups calls fn for each stored rollup of the given width that matches f, series by
// series (in order of host, UUID and labels) and in time order within a series. The *Rollup,
// its UtilHist included, is reused and valid only during the call; its Series is not reused and
// may be kept. The series' rows are read in pipelined batches of queries and stream from the
// server as fn consumes them.
func (db *DB) ScanRollups(ctx context.Context, width time.Duration, f gpucost.RollupFilter, fn func(*gpucost.Rollup) error) error {
	if width != time.Minute && width != time.Hour {
		return gpucost.Errorf(gpucost.EInvalid, "scan rollups of width %s: only minute and hour rollups are stored", width)
	}
	series, fromSec, toSec, err := db.scanBounds(ctx, f)
	if err != nil || len(series) == 0 {
		return err
	}
	sc := rollupScan{db: db, width: width, table: tableOf(width), from: fromSec, to: toSec, fn: fn}
	for lo := 0; lo < len(series); lo += seriesPerBatch {
		err := sc.batch(ctx, series[lo:min(lo+seriesPerBatch, len(series))])
		if cb, ok := err.(callbackError); ok {
			return cb.err
		}
		if err != nil {
			return err
		}
	}
	return ctx.Err()
}

// seriesPerBatch is how many series' queries go to the server at once: enough to hide the round
// trips, few enough that a scan stopped early drains little.
const seriesPerBatch = 64

// rollupScan is the state of one ScanRollups call. Each series is read by a query of its own,
// in order through the primary key: one query for all, in the series' order, made the server
// sort every row (on disk, past work_mem), which took most of a scan's time.
type rollupScan struct {
	db       *DB
	width    time.Duration
	table    string
	from, to int64
	fn       func(*gpucost.Rollup) error
	row      rollupRow
	hist     []uint32
}

// batch reads the rollups of series, pipelined, and passes them to fn.
func (sc *rollupScan) batch(ctx context.Context, series []storedSeries) (err error) {
	b := &pgx.Batch{}
	q := `SELECT ` + rollupSelect + ` FROM ` + sc.table + ` r WHERE r.series_id = $1 AND r.start >= $2 AND r.start < $3 ORDER BY r.start`
	for _, s := range series {
		b.Queue(q, s.id, sc.from, sc.to)
	}
	res := sc.db.pool.SendBatch(ctx, b)
	defer func() {
		if cerr := res.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("scan rollups in %s: %w", sc.db.name, cerr)
		}
	}()
	for _, s := range series {
		rows, err := res.Query()
		if err != nil {
			return fmt.Errorf("scan rollups in %s: %s of %s: %w", sc.db.name, sc.table, s.series.GPU.UUID, err)
		}
		for rows.Next() {
			if err := sc.row.decodeRaw(rows.RawValues()); err != nil {
				rows.Close()
				return fmt.Errorf("scan rollups in %s: %s of %s: %w", sc.db.name, sc.table, s.series.GPU.UUID, err)
			}
			r, err := sc.row.rollup(s.series, sc.width, sc.hist)
			if err != nil {
				rows.Close()
				return fmt.Errorf("scan rollups in %s: %s of %s at %d: %w", sc.db.name, sc.table, s.series.GPU.UUID, sc.row.start, err)
			}
			if r.UtilHist != nil {
				sc.hist = r.UtilHist
			}
			if err := sc.fn(&r); err != nil {
				rows.Close()
				return callbackError{err}
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("scan rollups in %s: %s of %s: %w", sc.db.name, sc.table, s.series.GPU.UUID, err)
		}
	}
	return nil
}

// callbackError carries fn's error out of a batch, to be returned unwrapped.
type callbackError struct{ err error }

func (e callbackError) Error() string { return e.err.Error() }

// PruneMinutes deletes the minute rollups of the hours that end at or before before (a minute
// rollup is kept with the rest of its hour) and returns how many it deleted. Hour rollups are
// kept; see telemetry.Retention for the usual cutoff.
func (db *DB) PruneMinutes(ctx context.Context, before time.Time) (int, error) {
	cutoff := before.Unix() / 3600 * 3600 // minutes before the hour that holds before
	if cutoff <= 0 {
		return 0, nil
	}
	tag, err := db.pool.Exec(ctx, `DELETE FROM minute_rollups WHERE start < $1`, cutoff)
	if err != nil {
		return 0, fmt.Errorf("prune minute rollups in %s: %w", db.name, err)
	}
	return int(tag.RowsAffected()), nil
}

// scanBounds returns the series matching f and f's bounds in Unix seconds; no series where the
// bounds hold no time.
func (db *DB) scanBounds(ctx context.Context, f gpucost.RollupFilter) ([]storedSeries, int64, int64, error) {
	series, err := db.matchSeries(ctx, f)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("scan rollups in %s: read series: %w", db.name, err)
	}
	fromSec, toSec := int64(0), int64(1)<<62
	if !f.From.IsZero() {
		fromSec = max(f.From.Unix(), 0)
	}
	if !f.To.IsZero() {
		toSec = f.To.Unix()
	}
	if fromSec >= toSec {
		return nil, fromSec, toSec, nil
	}
	return series, fromSec, toSec, nil
}
