package postgres

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/gpucost/gpucost/enforce"
	"github.com/jackc/pgx/v5"
)

// ActionLog is the enforcement action log kept in the database (migration 0004_actions.sql):
// every action a policy planned or carried out, with its result and evidence, shared by every
// server replica. It is safe for concurrent use.
type ActionLog struct{ db *DB }

var _ enforce.ActionLog = (*ActionLog)(nil)

// ActionLog returns the database's enforcement action log.
func (db *DB) ActionLog() *ActionLog { return &ActionLog{db: db} }

// RecordAction stores one action with its result and returns its id.
func (l *ActionLog) RecordAction(ctx context.Context, at time.Time, a enforce.Action) (int64, error) {
	kind, id, detail, err := enforce.LogColumns(a)
	if err != nil {
		return 0, err
	}
	var n int64
	err = l.db.pool.QueryRow(ctx, `INSERT INTO actions(at, at_ns, policy, action, resource_kind, resource_id, dry_run, result, error, detail)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
		at, at.UnixNano(), a.Policy, a.Action, kind, id, a.DryRun, a.Result, a.Error, string(detail)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("record action %s of policy %s in %s: %w", a.Action, a.Policy, l.db.name, err)
	}
	return n, nil
}

// Actions returns the entries f selects, oldest first (by time, then by when recorded).
func (l *ActionLog) Actions(ctx context.Context, f enforce.LogFilter) ([]enforce.LogEntry, error) {
	var ps params
	arg := ps.add
	where, err := f.Where(arg)
	if err != nil {
		return nil, err
	}
	q := `SELECT id, at_ns, detail::text FROM actions WHERE true` + where + ` ORDER BY at_ns DESC, id DESC`
	if f.Limit > 0 {
		q += ` LIMIT ` + arg(f.Limit)
	}
	rows, err := l.db.pool.Query(ctx, q, ps.args...)
	if err != nil {
		return nil, fmt.Errorf("list actions in %s: %w", l.db.name, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (enforce.LogEntry, error) {
		var id, at int64
		var detail string
		if err := row.Scan(&id, &at, &detail); err != nil {
			return enforce.LogEntry{}, err
		}
		return enforce.LogEntryOf(id, at, []byte(detail))
	})
	if err != nil {
		return nil, fmt.Errorf("list actions in %s: %w", l.db.name, err)
	}
	slices.Reverse(out) // read newest first for LIMIT; returned oldest first
	return out, nil
}
