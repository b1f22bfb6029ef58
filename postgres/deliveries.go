package postgres

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/notify"
	"github.com/jackc/pgx/v5"
)

// DeliveryLog is the alert delivery log kept in the database (migration 0003_deliveries.sql):
// every attempt a notify.Dispatcher makes is a row, so an alert reaches each target once across
// runs, restarts and server replicas. It is safe for concurrent use.
type DeliveryLog struct{ db *DB }

var _ notify.StoredLog = (*DeliveryLog)(nil)

// DeliveryLog returns the database's alert delivery log.
func (db *DB) DeliveryLog() *DeliveryLog { return &DeliveryLog{db: db} }

// Record stores one delivery attempt.
func (l *DeliveryLog) Record(ctx context.Context, d notify.Delivery) error {
	if err := d.Check(); err != nil {
		return gpucost.Errorf(gpucost.EInvalid, "%w", err)
	}
	_, err := l.db.pool.Exec(ctx, `INSERT INTO deliveries(key, kind, target, attempt, at, at_ns, duration_ns, ok, status, error, final)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		d.Key, d.Kind, d.Target, d.Attempt, d.At, d.At.UnixNano(), int64(d.Duration), d.OK, d.Status, d.Error, d.Final)
	if err != nil {
		return fmt.Errorf("record delivery of %q to %s in %s: %w", d.Key, d.Target, l.db.name, err)
	}
	return nil
}

// Delivered reports whether a final, successful attempt sent key to target. An empty key is
// never delivered: it turns dedupe off.
func (l *DeliveryLog) Delivered(ctx context.Context, key, target string) (bool, error) {
	if key == "" {
		return false, nil
	}
	var found bool
	err := l.db.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM deliveries
		WHERE key = $1 AND target = $2 AND ok AND final)`, key, target).Scan(&found)
	if err != nil {
		return false, fmt.Errorf("check delivery of %q to %s in %s: %w", key, target, l.db.name, err)
	}
	return found, nil
}

// Deliveries returns the attempts f selects, oldest first (by time, then by when recorded).
func (l *DeliveryLog) Deliveries(ctx context.Context, f notify.DeliveryFilter) ([]notify.Delivery, error) {
	q := `SELECT key, kind, target, attempt, at_ns, duration_ns, ok, status, error, final FROM deliveries WHERE true`
	var ps params
	arg := ps.add
	if !f.Since.IsZero() {
		q += ` AND at_ns >= ` + arg(f.Since.UnixNano())
	}
	if f.KeyPrefix != "" {
		// left() rather than LIKE: keys hold '_' and '%' freely.
		q += ` AND left(key, ` + arg(len([]rune(f.KeyPrefix))) + `) = ` + arg(f.KeyPrefix)
	}
	if f.Target != "" {
		q += ` AND target = ` + arg(f.Target)
	}
	q += ` ORDER BY at_ns DESC, id DESC`
	if f.Limit > 0 {
		q += ` LIMIT ` + arg(f.Limit)
	}
	rows, err := l.db.pool.Query(ctx, q, ps.args...)
	if err != nil {
		return nil, fmt.Errorf("list deliveries in %s: %w", l.db.name, err)
	}
	out, err := pgx.CollectRows(rows, scanDelivery)
	if err != nil {
		return nil, fmt.Errorf("list deliveries in %s: %w", l.db.name, err)
	}
	slices.Reverse(out) // read newest first for Limit; returned oldest first
	return out, nil
}

func scanDelivery(row pgx.CollectableRow) (notify.Delivery, error) {
	var (
		d            notify.Delivery
		at, duration int64
	)
	err := row.Scan(&d.Key, &d.Kind, &d.Target, &d.Attempt, &at, &duration, &d.OK, &d.Status, &d.Error, &d.Final)
	d.At = time.Unix(0, at).UTC()
	d.Duration = time.Duration(duration)
	return d, err
}
