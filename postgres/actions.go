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

var _ gpucost.ActionLog = (*DB)(nil)

// RecordAction stores r in the enforcement action log (migration 0004_actions.sql), shared by
// every server replica, and returns its id. Records are only ever added: nothing in this
// package updates or deletes them.
func (db *DB) RecordAction(ctx context.Context, r gpucost.ActionRecord) (int64, error) {
	if err := r.Check(); err != nil {
		return 0, err
	}
	var n int64
	err := db.pool.QueryRow(ctx, `INSERT INTO actions(at, at_ns, policy, action, resource_kind, resource_id, dry_run, result, error, detail)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
		r.At, r.At.UnixNano(), r.Policy, r.Action, r.ResourceKind, r.ResourceID, r.DryRun, r.Result, r.Error, string(r.Detail)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("record action %s of policy %s in %s: %w", r.Action, r.Policy, db.name, err)
	}
	return n, nil
}

// Actions returns the records f selects, oldest first (by time, then by when recorded).
func (db *DB) Actions(ctx context.Context, f gpucost.ActionFilter) ([]gpucost.ActionRecord, error) {
	var ps params
	arg := ps.add
	where, err := storeutil.ActionWhere(f, arg)
	if err != nil {
		return nil, err
	}
	q := `SELECT id, at_ns, policy, action, resource_kind, resource_id, dry_run, result, error, detail::text
		FROM actions WHERE true` + where + ` ORDER BY at_ns DESC, id DESC`
	if f.Limit > 0 {
		q += ` LIMIT ` + arg(f.Limit)
	}
	rows, err := db.pool.Query(ctx, q, ps.args...)
	if err != nil {
		return nil, fmt.Errorf("list actions in %s: %w", db.name, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (gpucost.ActionRecord, error) {
		var (
			r      gpucost.ActionRecord
			at     int64
			detail string
		)
		err := row.Scan(&r.ID, &at, &r.Policy, &r.Action, &r.ResourceKind, &r.ResourceID, &r.DryRun, &r.Result, &r.Error, &detail)
		r.At, r.Detail = time.Unix(0, at).UTC(), []byte(detail)
		return r, err
	})
	if err != nil {
		return nil, fmt.Errorf("list actions in %s: %w", db.name, err)
	}
	slices.Reverse(out) // read newest first for LIMIT; returned oldest first
	return out, nil
}
