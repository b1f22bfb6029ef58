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

var _ gpucost.DeliveryLog = (*DB)(nil)

// RecordDelivery stores one attempt in the alert delivery log (migration 0003_deliveries.sql),
// so that an alert reaches each target once across runs, restarts and server replicas.
func (db *DB) RecordDelivery(ctx context.Context, d gpucost.Delivery) error {
	if err := d.Check(); err != nil {
		return err
	}
	_, err := db.pool.Exec(ctx, `INSERT INTO deliveries(key, kind, target, attempt, at, at_ns, duration_ns, ok, status, error, final)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		d.Key, d.Kind, d.Target, d.Attempt, d.At, d.At.UnixNano(), int64(d.Duration), d.OK, d.Status, d.Error, d.Final)
	if err != nil {
		return fmt.Errorf("record delivery of %q to %s in %s: %w", d.Key, d.Target, db.name, err)
	}
	return nil
}

// Delivered reports whether a final, successful attempt sent key to target. An empty key is
// never delivered: it turns dedupe off.
func (db *DB) Delivered(ctx context.Context, key, target string) (bool, error) {
	if key == "" {
		return false, nil
	}
	var found bool
	err := db.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM deliveries
		WHERE key = $1 AND target = $2 AND ok AND final)`, key, target).Scan(&found)
	if err != nil {
		return false, fmt.Errorf("check delivery of %q to %s in %s: %w", key, target, db.name, err)
	}
	return found, nil
}

// Deliveries returns the attempts f selects, oldest first (by time, then by when recorded).
func (db *DB) Deliveries(ctx context.Context, f gpucost.DeliveryFilter) ([]gpucost.Delivery, error) {
	var ps params
	arg := ps.add
	where, err := storeutil.DeliveryWhere(f, arg)
	if err != nil {
		return nil, err
	}
	q := `SELECT key, kind, target, attempt, at_ns, duration_ns, ok, status, error, final FROM deliveries WHERE true` +
		where + ` ORDER BY at_ns DESC, id DESC`
	if f.Limit > 0 {
		q += ` LIMIT ` + arg(f.Limit)
	}
	rows, err := db.pool.Query(ctx, q, ps.args...)
	if err != nil {
		return nil, fmt.Errorf("list deliveries in %s: %w", db.name, err)
	}
	out, err := pgx.CollectRows(rows, scanDelivery)
	if err != nil {
		return nil, fmt.Errorf("list deliveries in %s: %w", db.name, err)
	}
	slices.Reverse(out) // read newest first for Limit; returned oldest first
	return out, nil
}

func scanDelivery(row pgx.CollectableRow) (gpucost.Delivery, error) {
	var (
		d            gpucost.Delivery
		at, duration int64
	)
	err := row.Scan(&d.Key, &d.Kind, &d.Target, &d.Attempt, &at, &duration, &d.OK, &d.Status, &d.Error, &d.Final)
	d.At = time.Unix(0, at).UTC()
	d.Duration = time.Duration(duration)
	return d, err
}
