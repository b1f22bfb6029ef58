package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
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
	if f.Limit < 0 {
		return nil, gpucost.Errorf(gpucost.EInvalid, "list actions: limit %d: give 0 (all) or more", f.Limit)
	}
	q := `SELECT id, at_ns, detail FROM actions WHERE 1=1`
	var args []any
	if !f.Since.IsZero() {
		q += ` AND at_ns >= ?`
		args = append(args, f.Since.UnixNano())
	}
	if f.Policy != "" {
		q += ` AND policy = ?`
		args = append(args, f.Policy)
	}
	if f.Resource != "" {
		q += ` AND resource_id = ?`
		args = append(args, f.Resource)
	}
	q += ` ORDER BY at_ns DESC, id DESC`
	if f.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, f.Limit)
	}
	rows, err := l.db.sql.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list actions in %s: %w", l.db.Path, err)
	}
	defer rows.Close()
	out, err := scanActions(rows)
	if err != nil {
		return nil, fmt.Errorf("list actions in %s: %w", l.db.Path, err)
	}
	return out, nil
}

// scanActions reads id, at_ns, detail rows, newest first, and returns them oldest first.
func scanActions(rows *sql.Rows) ([]enforce.LogEntry, error) {
	var out []enforce.LogEntry
	for rows.Next() {
		var (
			e      enforce.LogEntry
			at     int64
			detail string
		)
		if err := rows.Scan(&e.ID, &at, &detail); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(detail), &e.Action); err != nil {
			return nil, fmt.Errorf("action %d: decode its detail: %w", e.ID, err)
		}
		e.At = time.Unix(0, at).UTC()
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}
