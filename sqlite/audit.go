package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storeutil"
)

var _ gpucost.AuditLog = (*DB)(nil)

// RecordAudit stores e in the audit trail (migration 0008_audit.sql) and returns its id. Entries
// are only ever added: nothing in this package updates or deletes them.
func (db *DB) RecordAudit(ctx context.Context, e gpucost.AuditEntry) (int64, error) {
	if err := e.Check(); err != nil {
		return 0, err
	}
	res, err := db.sql.ExecContext(ctx, `INSERT INTO audit(at_ns, actor, action, target, detail, source) VALUES (?, ?, ?, ?, ?, ?)`,
		e.At.UnixNano(), e.Actor, e.Action, e.Target, e.Detail, e.Source)
	if err != nil {
		return 0, fmt.Errorf("record audit entry %s of %s in %s: %w", e.Action, e.Target, db.Path, err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, fmt.Errorf("record audit entry %s of %s in %s: %w", e.Action, e.Target, db.Path, err)
	}
	return id, nil
}

// Audit returns the audit entries f selects, newest first (by time, then by when recorded).
func (db *DB) Audit(ctx context.Context, f gpucost.AuditFilter) ([]gpucost.AuditEntry, error) {
	var args []any
	where, err := storeutil.AuditWhere(f, func(v any) string { args = append(args, v); return "?" })
	if err != nil {
		return nil, err
	}
	q := `SELECT id, at_ns, actor, action, target, detail, source FROM audit WHERE 1=1` + where + ` ORDER BY at_ns DESC, id DESC`
	if f.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, f.Limit)
	}
	rows, err := db.sql.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list audit entries in %s: %w", db.Path, err)
	}
	defer rows.Close()
	var out []gpucost.AuditEntry
	for rows.Next() {
		var e gpucost.AuditEntry
		var at int64
		if err := rows.Scan(&e.ID, &at, &e.Actor, &e.Action, &e.Target, &e.Detail, &e.Source); err != nil {
			return nil, fmt.Errorf("list audit entries in %s: %w", db.Path, err)
		}
		e.At = time.Unix(0, at).UTC()
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list audit entries in %s: %w", db.Path, err)
	}
	return out, nil
}
