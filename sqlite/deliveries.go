package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/notify"
)

// DeliveryLog is the alert delivery log kept in the database (migration 0006_deliveries.sql):
// every attempt the notify.Dispatcher makes is a row, so an alert reaches each target once
// across runs and restarts. It is safe for concurrent use.
type DeliveryLog struct{ db *DB }

var _ notify.StoredLog = (*DeliveryLog)(nil)

// DeliveryLog returns the database's alert delivery log.
func (db *DB) DeliveryLog() *DeliveryLog { return &DeliveryLog{db: db} }

// Record stores one delivery attempt.
func (l *DeliveryLog) Record(ctx context.Context, d notify.Delivery) error {
	if err := d.Check(); err != nil {
		return gpucost.Errorf(gpucost.EInvalid, "%w", err)
	}
	_, err := l.db.sql.ExecContext(ctx, `INSERT INTO deliveries(key, kind, target, attempt, at_ns, duration_ns, ok, status, error, final)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		d.Key, d.Kind, d.Target, d.Attempt, d.At.UnixNano(), int64(d.Duration), boolInt(d.OK), d.Status, d.Error, boolInt(d.Final))
	if err != nil {
		return fmt.Errorf("record delivery of %q to %s in %s: %w", d.Key, d.Target, l.db.Path, err)
	}
	return nil
}

// Delivered reports whether a final, successful attempt sent key to target. An empty key is
// never delivered: it turns dedupe off.
func (l *DeliveryLog) Delivered(ctx context.Context, key, target string) (bool, error) {
	if key == "" {
		return false, nil
	}
	var n int
	err := l.db.sql.QueryRowContext(ctx, `SELECT count(*) FROM deliveries
		WHERE key = ? AND target = ? AND ok = 1 AND final = 1`, key, target).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("check delivery of %q to %s in %s: %w", key, target, l.db.Path, err)
	}
	return n > 0, nil
}

// Deliveries returns the attempts f selects, oldest first (by time, then by when recorded).
func (l *DeliveryLog) Deliveries(ctx context.Context, f notify.DeliveryFilter) ([]notify.Delivery, error) {
	q := `SELECT key, kind, target, attempt, at_ns, duration_ns, ok, status, error, final FROM deliveries WHERE 1=1`
	var args []any
	if !f.Since.IsZero() {
		q += ` AND at_ns >= ?`
		args = append(args, f.Since.UnixNano())
	}
	if f.KeyPrefix != "" {
		// substr rather than LIKE: keys hold '_' and '%' freely.
		q += ` AND substr(key, 1, ?) = ?`
		args = append(args, len(f.KeyPrefix), f.KeyPrefix)
	}
	if f.Target != "" {
		q += ` AND target = ?`
		args = append(args, f.Target)
	}
	q += ` ORDER BY at_ns DESC, id DESC`
	if f.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, f.Limit)
	}
	rows, err := l.db.sql.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list deliveries in %s: %w", l.db.Path, err)
	}
	defer rows.Close()
	var out []notify.Delivery
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, fmt.Errorf("list deliveries in %s: %w", l.db.Path, err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list deliveries in %s: %w", l.db.Path, err)
	}
	slices.Reverse(out) // read newest first for Limit; returned oldest first
	return out, nil
}

func scanDelivery(rows *sql.Rows) (notify.Delivery, error) {
	var (
		d            notify.Delivery
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
