package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storeutil"
	"github.com/jackc/pgx/v5"
)

var _ gpucost.AuditLog = (*DB)(nil)

// RecordAudit stores e in the audit trail (migration 0005_audit.sql), shared by every server
// replica, and returns its id. Entries are only ever added: nothing in this package updates or
// deletes them.
func (db *DB) RecordAudit(ctx context.Context, e gpucost.AuditEntry) (int64, error) {
	if err := e.Check(); err != nil {
		return 0, err
	}
	var id int64
	err := db.pool.QueryRow(ctx, `INSERT INTO audit(at, at_ns, actor, action, target, detail, source)
		VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
		e.At, e.At.UnixNano(), e.Actor, e.Action, e.Target, e.Detail, e.Source).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("record audit entry %s of %s in %s: %w", e.Action, e.Target, db.name, err)
	}
	return id, nil
}

// Audit returns the audit entries f selects, newest first (by time, then by when recorded).
func (db *DB) Audit(ctx context.Context, f gpucost.AuditFilter) ([]gpucost.AuditEntry, error) {
	var ps params
	arg := ps.add
	where, err := storeutil.AuditWhere(f, arg)
	if err != nil {
		return nil, err
	}
	q := `SELECT id, at_ns, actor, action, target, detail, source FROM audit WHERE true` + where + ` ORDER BY at_ns DESC, id DESC`
	if f.Limit > 0 {
		q += ` LIMIT ` + arg(f.Limit)
	}
	rows, err := db.pool.Query(ctx, q, ps.args...)
	if err != nil {
		return nil, fmt.Errorf("list audit entries in %s: %w", db.name, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (gpucost.AuditEntry, error) {
		var e gpucost.AuditEntry
		var at int64
		err := row.Scan(&e.ID, &at, &e.Actor, &e.Action, &e.Target, &e.Detail, &e.Source)
		e.At = time.Unix(0, at).UTC()
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("list audit entries in %s: %w", db.name, err)
	}
	return out, nil
}
