package postgres

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storeutil"
	"github.com/jackc/pgx/v5"
)

// migrationFills are the steps in Go that a migration takes after its SQL, in its transaction.
var migrationFills = map[int]func(context.Context, pgx.Tx) error{
	31: fillDays,
	32: fillDays, // made again in internal/storeutil/day.go's format 3
}

// daySec is a day in seconds: a day_rollups row's day is its hours' start ÷ daySec.
const daySec = 24 * 3600

// dayKey names one series' day.
type dayKey struct {
	series int64
	day    int64 // days since 1970
}

// writeDays rewrites the day rows of the days of hours, the hour rows written (sorted by series
// and start), from what hour_rollups now holds.
func writeDays(ctx context.Context, tx pgx.Tx, hours []rollupKey) error {
	var series, days []int64
	for _, k := range hours {
		d := k.start / daySec
		if n := len(days); n > 0 && series[n-1] == k.series && days[n-1] == d {
			continue
		}
		series, days = append(series, k.series), append(days, d)
	}
	if len(days) == 0 {
		return nil
	}
	rows, err := tx.Query(ctx, `SELECT `+rollupSelect+` FROM hour_rollups r
		JOIN unnest($1::bigint[], $2::bigint[]) AS k(s, d)
		ON r.series_id = k.s AND r.start >= k.d * `+fmt.Sprint(daySec)+` AND r.start < (k.d + 1) * `+fmt.Sprint(daySec)+`
		ORDER BY r.series_id, r.start`, series, days)
	if err != nil {
		return fmt.Errorf("read the hours of %d days: %w", len(days), err)
	}
	out, err := collectDays(rows)
	if err != nil {
		return fmt.Errorf("read the hours of %d days: %w", len(days), err)
	}
	return putDays(ctx, tx, out)
}

// dayRows are encoded day rows, as three arrays for unnest.
type dayRows struct {
	series, days []int64
	data         [][]byte
}

// collectDays reads rows of hour rollups, ordered by series and start, into their days.
func collectDays(rows pgx.Rows) (dayRows, error) {
	defer rows.Close()
	var out dayRows
	var row rollupRow
	var hours []gpucost.Rollup
	var cur dayKey
	var series gpucost.Series // the key names the series; the day needs only one pointer
	flush := func() error {
		if len(hours) == 0 {
			return nil
		}
		d, err := gpucost.NewDayRollup(hours)
		if err != nil {
			return fmt.Errorf("series %d day %d: %w", cur.series, cur.day, err)
		}
		out.series, out.days = append(out.series, cur.series), append(out.days, cur.day)
		out.data = append(out.data, storeutil.AppendDay(nil, &d))
		hours = hours[:0]
		return nil
	}
	for rows.Next() {
		if err := rows.Scan(row.dest()...); err != nil {
			return out, err
		}
		if k := (dayKey{row.series, row.start / daySec}); k != cur {
			if err := flush(); err != nil {
				return out, err
			}
			cur = k
		}
		r, err := row.rollup(&series, time.Hour, nil)
		if err != nil {
			return out, fmt.Errorf("series %d at %d: %w", row.series, row.start, err)
		}
		hours = append(hours, r)
	}
	if err := rows.Err(); err != nil {
		return out, err
	}
	return out, flush()
}

// putDays stores the day rows, replacing those of the same keys.
func putDays(ctx context.Context, tx pgx.Tx, d dayRows) error {
	if len(d.days) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `INSERT INTO day_rollups(series_id, day, data)
		SELECT * FROM unnest($1::bigint[], $2::integer[], $3::bytea[])
		ON CONFLICT (series_id, day) DO UPDATE SET data = excluded.data`, d.series, d.days, d.data)
	if err != nil {
		return fmt.Errorf("store %d rows of day_rollups: %w", len(d.days), err)
	}
	return nil
}

// fillDays writes the day rows of every stored hour: what migration 31 adds to a store that held
// hours before it, and migration 32 writes again in a new encoding. It reads a series at a
// time, so its memory is bounded by the longest series.
func fillDays(ctx context.Context, tx pgx.Tx) error {
	ids, err := seriesIDs(ctx, tx)
	if err != nil {
		return fmt.Errorf("fill day_rollups: read series: %w", err)
	}
	for _, id := range ids {
		rows, err := tx.Query(ctx, `SELECT `+rollupSelect+` FROM hour_rollups r WHERE r.series_id = $1 ORDER BY r.start`, id)
		if err != nil {
			return fmt.Errorf("fill day_rollups: series %d: %w", id, err)
		}
		days, err := collectDays(rows)
		if err != nil {
			return fmt.Errorf("fill day_rollups: series %d: %w", id, err)
		}
		if err := putDays(ctx, tx, days); err != nil {
			return fmt.Errorf("fill day_rollups: series %d: %w", id, err)
		}
	}
	return nil
}

func seriesIDs(ctx context.Context, tx pgx.Tx) ([]int64, error) {
	rows, err := tx.Query(ctx, `SELECT DISTINCT series_id FROM hour_rollups`)
	if err != nil {
		return nil, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	slices.Sort(ids)
	return ids, err
}

var _ gpucost.DayStore = (*DB)(nil)

// ScanDays calls fn for each stored day of a series matching f whose whole day lies in
// [f.From, f.To), series by series as ScanRollups gives them and in time order within one.
func (db *DB) ScanDays(ctx context.Context, f gpucost.RollupFilter, fn func(*gpucost.DayRollup) error) error {
	series, err := db.matchSeries(ctx, f)
	if err != nil {
		return fmt.Errorf("scan day rollups in %s: read series: %w", db.name, err)
	}
	lo, hi := storeutil.WholeDays(f)
	if len(series) == 0 || lo >= hi {
		return nil
	}
	var d gpucost.DayRollup
	for at := 0; at < len(series); at += seriesPerBatch {
		err := db.scanDays(ctx, series[at:min(at+seriesPerBatch, len(series))], lo, hi, &d, fn)
		if cb, ok := err.(callbackError); ok {
			return cb.err
		}
		if err != nil {
			return fmt.Errorf("scan day rollups in %s: %w", db.name, err)
		}
	}
	return ctx.Err()
}

// scanDays reads the days lo to hi (exclusive) of series, pipelined, and passes them to fn.
func (db *DB) scanDays(ctx context.Context, series []storedSeries, lo, hi int64, d *gpucost.DayRollup, fn func(*gpucost.DayRollup) error) (err error) {
	b := &pgx.Batch{}
	for _, s := range series {
		b.Queue(`SELECT day, data FROM day_rollups WHERE series_id = $1 AND day >= $2 AND day < $3 ORDER BY day`, s.id, lo, hi)
	}
	res := db.pool.SendBatch(ctx, b)
	defer func() {
		if cerr := res.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	for _, s := range series {
		rows, err := res.Query()
		if err != nil {
			return fmt.Errorf("day_rollups of %s: %w", s.series.GPU.UUID, err)
		}
		for rows.Next() {
			var day int64
			var data []byte
			if err := rows.Scan(&day, &data); err != nil {
				rows.Close()
				return fmt.Errorf("day_rollups of %s: %w", s.series.GPU.UUID, err)
			}
			if err := storeutil.DecodeDay(data, d); err != nil {
				rows.Close()
				return fmt.Errorf("day_rollups of %s, day %d: %w", s.series.GPU.UUID, day, err)
			}
			d.Series, d.Day = s.series, time.Unix(day*daySec, 0).UTC()
			if err := fn(d); err != nil {
				rows.Close()
				return callbackError{err}
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("day_rollups of %s: %w", s.series.GPU.UUID, err)
		}
	}
	return nil
}

// ScanHoursByDay calls hour for each stored hour rollup of a series matching f, and day in
// place of the hours of each whole day in f and [wholeFrom, wholeTo), series by series and in
// time order within one (gpucost.DayStore).
func (db *DB) ScanHoursByDay(ctx context.Context, f gpucost.RollupFilter, wholeFrom, wholeTo time.Time,
	hour func(*gpucost.Rollup) error, day func(*gpucost.DayRollup) error) error {
	series, fromSec, toSec, err := db.scanBounds(ctx, f)
	if err != nil || len(series) == 0 {
		return err
	}
	lo, hi := storeutil.WholeDays(f)
	wlo, whi := storeutil.WholeDays(gpucost.RollupFilter{From: wholeFrom, To: wholeTo})
	lo, hi = max(lo, wlo), min(hi, whi)
	sc := rollupScan{db: db, width: time.Hour, table: "hour_rollups", from: fromSec, to: toSec, fn: hour}
	var d gpucost.DayRollup
	for at := 0; at < len(series); at += seriesPerBatch {
		part := series[at:min(at+seriesPerBatch, len(series))]
		if lo >= hi {
			err = sc.batch(ctx, part)
		} else {
			err = sc.batchByDay(ctx, part, lo, hi, &d, day)
		}
		if cb, ok := err.(callbackError); ok {
			return cb.err
		}
		if err != nil {
			return err
		}
	}
	return ctx.Err()
}

// batchByDay reads, pipelined, each series' hours before day lo, its days lo to hi (exclusive)
// and its hours from day hi, passing them on in that order.
func (sc *rollupScan) batchByDay(ctx context.Context, series []storedSeries, lo, hi int64, d *gpucost.DayRollup, day func(*gpucost.DayRollup) error) (err error) {
	b := &pgx.Batch{}
	q := `SELECT ` + rollupSelect + ` FROM hour_rollups r WHERE r.series_id = $1 AND r.start >= $2 AND r.start < $3 ORDER BY r.start`
	for _, s := range series {
		b.Queue(q, s.id, sc.from, min(sc.to, lo*daySec))
		b.Queue(`SELECT day, data FROM day_rollups WHERE series_id = $1 AND day >= $2 AND day < $3 ORDER BY day`, s.id, lo, hi)
		b.Queue(q, s.id, max(sc.from, hi*daySec), sc.to)
	}
	res := sc.db.pool.SendBatch(ctx, b)
	defer func() {
		if cerr := res.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("scan rollups in %s: %w", sc.db.name, cerr)
		}
	}()
	for _, s := range series {
		if err := sc.hours(res, s); err != nil {
			return err
		}
		if err := sc.days(res, s, d, day); err != nil {
			return err
		}
		if err := sc.hours(res, s); err != nil {
			return err
		}
	}
	return nil
}

// hours passes the rows of the batch's next query, hour rollups of s, to sc.fn.
func (sc *rollupScan) hours(res pgx.BatchResults, s storedSeries) error {
	rows, err := res.Query()
	if err != nil {
		return fmt.Errorf("scan rollups in %s: hour_rollups of %s: %w", sc.db.name, s.series.GPU.UUID, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := sc.row.decodeRaw(rows.RawValues()); err != nil {
			return fmt.Errorf("scan rollups in %s: hour_rollups of %s: %w", sc.db.name, s.series.GPU.UUID, err)
		}
		r, err := sc.row.rollup(s.series, time.Hour, sc.hist)
		if err != nil {
			return fmt.Errorf("scan rollups in %s: hour_rollups of %s at %d: %w", sc.db.name, s.series.GPU.UUID, sc.row.start, err)
		}
		if r.UtilHist != nil {
			sc.hist = r.UtilHist
		}
		if err := sc.fn(&r); err != nil {
			return callbackError{err}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("scan rollups in %s: hour_rollups of %s: %w", sc.db.name, s.series.GPU.UUID, err)
	}
	return nil
}

// days passes the rows of the batch's next query, day rollups of s, to fn.
func (sc *rollupScan) days(res pgx.BatchResults, s storedSeries, d *gpucost.DayRollup, fn func(*gpucost.DayRollup) error) error {
	rows, err := res.Query()
	if err != nil {
		return fmt.Errorf("scan rollups in %s: day_rollups of %s: %w", sc.db.name, s.series.GPU.UUID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var n int64
		var data []byte
		if err := rows.Scan(&n, &data); err != nil {
			return fmt.Errorf("scan rollups in %s: day_rollups of %s: %w", sc.db.name, s.series.GPU.UUID, err)
		}
		if err := storeutil.DecodeDay(data, d); err != nil {
			return fmt.Errorf("scan rollups in %s: day_rollups of %s, day %d: %w", sc.db.name, s.series.GPU.UUID, n, err)
		}
		d.Series, d.Day = s.series, time.Unix(n*daySec, 0).UTC()
		if err := fn(d); err != nil {
			return callbackError{err}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("scan rollups in %s: day_rollups of %s: %w", sc.db.name, s.series.GPU.UUID, err)
	}
	return nil
}
