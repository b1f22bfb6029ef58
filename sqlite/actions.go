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

var _ gpucost.ActionLog = (*DB)(nil)

// RecordAction stores r in the enforcement action log (migration 0007_actions.sql) and returns
// its id. Records are only ever added: nothing in this package updates or deletes them.
func (db *DB) RecordAction(ctx context.Context, r gpucost.ActionRecord) (int64, error) {
	if err := r.Check(); err != nil {
		return 0, err
	}
	res, err := db.sql.ExecContext(ctx, `INSERT INTO actions(at_ns, policy, action, resource_kind, resource_id, dry_run, result, error, detail)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, r.At.UnixNano(), r.Policy, r.Action, r.ResourceKind, r.ResourceID, boolInt(r.DryRun), r.Result, r.Error, r.Detail)
	if err != nil {
		return 0, fmt.Errorf("record action %s of policy %s in %s: %w", r.Action, r.Policy, db.Path, err)
	}
	n, err := res.LastInsertId()
	if err != nil {
		return 0, fmt.Errorf("record action %s of policy %s in %s: %w", r.Action, r.Policy, db.Path, err)
	}
	return n, nil
}

// Actions returns the records f selects, oldest first (by time, then by when recorded).
func (db *DB) Actions(ctx context.Context, f gpucost.ActionFilter) ([]gpucost.ActionRecord, error) {
	var args []any
	where, err := storeutil.ActionWhere(f, func(v any) string { args = append(args, v); return "?" })
	if err != nil {
		return nil, err
	}
	q := `SELECT id, at_ns, policy, action, resource_kind, resource_id, dry_run, result, error, detail
		FROM actions WHERE 1=1` + where + ` ORDER BY at_ns DESC, id DESC`
	if f.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, f.Limit)
	}
	rows, err := db.sql.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list actions in %s: %w", db.Path, err)
	}
	defer rows.Close()
	var out []gpucost.ActionRecord
	for rows.Next() {
		r, err := scanAction(rows)
		if err != nil {
			return nil, fmt.Errorf("list actions in %s: %w", db.Path, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list actions in %s: %w", db.Path, err)
	}
	slices.Reverse(out) // read newest first for LIMIT; returned oldest first
	return out, nil
}

func scanAction(rows *sql.Rows) (gpucost.ActionRecord, error) {
	var (
		r      gpucost.ActionRecord
		at     int64
		dryRun int
	)
	if err := rows.Scan(&r.ID, &at, &r.Policy, &r.Action, &r.ResourceKind, &r.ResourceID, &dryRun, &r.Result, &r.Error, &r.Detail); err != nil {
		return r, err
	}
	r.At = time.Unix(0, at).UTC()
	r.DryRun = dryRun == 1
	return r, nil
}
