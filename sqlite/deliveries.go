package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storeutil"
)

var _ gpucost.DeliveryLog = (*DB)(nil)

// RecordDelivery stores one attempt in the alert delivery log (migration 0006_deliveries.sql),
// so that an alert reaches each target once across runs and restarts.
func (db *DB) RecordDelivery(ctx context.Context, d gpucost.Delivery) error {
	if err := d.Check(); err != nil {
		return err
	}
	_, err := db.sql.ExecContext(ctx, `INSERT INTO deliveries(key, kind, target, attempt, at_ns, duration_ns, ok, status, error, final)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		d.Key, d.Kind, d.Target, d.Attempt, d.At.UnixNano(), int64(d.Duration), boolInt(d.OK), d.Status, d.Error, boolInt(d.Final))
	if err != nil {
		return fmt.Errorf("record delivery of %q to %s in %s: %w", d.Key, d.Target, db.Path, err)
	}
	return nil
}

// Delivered reports whether a final, successful attempt sent key to target. An empty key is
// never delivered: it turns dedupe off.
func (db *DB) Delivered(ctx context.Context, key, target string) (bool, error) {
	if key == "" {
		return false, nil
	}
	var n int
	err := db.sql.QueryRowContext(ctx, `SELECT count(*) FROM deliveries
		WHERE key = ? AND target = ? AND ok = 1 AND final = 1`, key, target).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("check delivery of %q to %s in %s: %w", key, target, db.Path, err)
	}
	return n > 0, nil
}

// Deliveries returns the attempts f selects, oldest first (by time, then by when recorded).
func (db *DB) Deliveries(ctx context.Context, f gpucost.DeliveryFilter) ([]gpucost.Delivery, error) {
	var args []any
	where, err := storeutil.DeliveryWhere(f, func(v any) string { args = append(args, v); return "?" })
	if err != nil {
		return nil, err
	}
	q := `SELECT key, kind, target, attempt, at_ns, duration_ns, ok, status, error, final FROM deliveries WHERE 1=1` +
		where + ` ORDER BY at_ns DESC, id DESC`
	if f.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, f.Limit)
	}
	rows, err := db.sql.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list deliveries in %s: %w", db.Path, err)
	}
	defer rows.Close()
	var out []gpucost.Delivery
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, fmt.Errorf("list deliveries in %s: %w", db.Path, err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list deliveries in %s: %w", db.Path, err)
	}
	slices.Reverse(out) // read newest first for Limit; returned oldest first
	return out, nil
}

func scanDelivery(rows *sql.Rows) (gpucost.Delivery, error) {
	var (
		d            gpucost.Delivery
		at, duration int64
		ok, final    int
	)
	if err := rows.Scan(&d.Key, &d.Kind, &d.Target, &d.Attempt, &at, &duration, &ok, &d.Status, &d.Error, &final); err != nil {
		return d, err
	}
	d.At = time.Unix(0, at).UTC()
	d.Duration = time.Duration(duration)
	d.OK, d.Final = ok == 1, final == 1
	return d, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
