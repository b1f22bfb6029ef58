package sqlite

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/gpucost/gpucost/enforce"
)

// ActionLog is the enforcement action log kept in the database (migration 0007_actions.sql):
// every action a policy planned or carried out, with its result and evidence. It is safe for
// concurrent use.
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
	res, err := l.db.sql.ExecContext(ctx, `INSERT INTO actions(at_ns, policy, action, resource_kind, resource_id, dry_run, result, error, detail)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, at.UnixNano(), a.Policy, a.Action, kind, id, boolInt(a.DryRun), a.Result, a.Error, detail)
	if err != nil {
		return 0, fmt.Errorf("record action %s of policy %s in %s: %w", a.Action, a.Policy, l.db.Path, err)
	}
	n, err := res.LastInsertId()
	if err != nil {
		return 0, fmt.Errorf("record action %s of policy %s in %s: %w", a.Action, a.Policy, l.db.Path, err)
	}
	return n, nil
}

// Actions returns the entries f selects, oldest first (by time, then by when recorded).
func (l *ActionLog) Actions(ctx context.Context, f enforce.LogFilter) ([]enforce.LogEntry, error) {
	var args []any
	where, err := f.Where(func(v any) string { args = append(args, v); return "?" })
	if err != nil {
		return nil, err
	}
	q := `SELECT id, at_ns, detail FROM actions WHERE 1=1` + where + ` ORDER BY at_ns DESC, id DESC`
	if f.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, f.Limit)
	}
	rows, err := l.db.sql.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list actions in %s: %w", l.db.Path, err)
	}
	defer rows.Close()
	var out []enforce.LogEntry
	for rows.Next() {
		var id, at int64
		var detail []byte
		if err := rows.Scan(&id, &at, &detail); err != nil {
			return nil, fmt.Errorf("list actions in %s: %w", l.db.Path, err)
		}
		e, err := enforce.LogEntryOf(id, at, detail)
		if err != nil {
			return nil, fmt.Errorf("list actions in %s: %w", l.db.Path, err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list actions in %s: %w", l.db.Path, err)
	}
	slices.Reverse(out) // read newest first for LIMIT; returned oldest first
	return out, nil
}
