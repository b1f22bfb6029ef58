package sqlite

import (
	"context"
	"fmt"

	"github.com/gpucost/gpucost"
)

// backfillIdentity gives the imports stored before migrations/0010_bill_identity.sql, whose
// identity is NULL, the key gpucost import billing computes (gpucost.BillIdentity) from their
// stored lines and format (the name is no part of it since migrations/0020_import_coverage.sql). An import whose key another import has already (a restated
// bill imported twice under different names before the key was kept) gets an empty identity,
// which blocks nothing; both stay until someone removes one (gpucost bills remove). Each
// import is settled in a transaction of its own, so an interrupted backfill goes on at the
// next Open. It then computes the imports' coverage (backfillCoverage).
func (db *DB) backfillIdentity(ctx context.Context) error {
	type pending struct {
		id           int64
		name, format string
	}
	rows, err := db.sql.QueryContext(ctx, `SELECT id, name, format FROM cost_imports WHERE identity IS NULL ORDER BY id`)
	if err != nil {
		return fmt.Errorf("compute bill identities in %s: %w", db.Path, err)
	}
	var todo []pending
	for rows.Next() {
		var p pending
		if err := rows.Scan(&p.id, &p.name, &p.format); err != nil {
			rows.Close()
			return fmt.Errorf("compute bill identities in %s: %w", db.Path, err)
		}
		todo = append(todo, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("compute bill identities in %s: %w", db.Path, err)
	}
	for _, p := range todo {
		var b gpucost.BillIdentity
		err := db.scanCosts(ctx, gpucost.CostFilter{}, p.id, func(l *gpucost.CostLine) error { b.Add(l); return nil })
		if err == nil {
			err = db.setIdentity(ctx, p.id, b.Key(p.format))
		}
		if err != nil {
			return fmt.Errorf("compute the bill identity of import %d (%s) in %s: %w", p.id, p.name, db.Path, err)
		}
	}
	return db.backfillCoverage(ctx)
}

// setIdentity sets the identity of import id to key, or to none if another import has key.
func (db *DB) setIdentity(ctx context.Context, id int64, key string) error {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var taken int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM cost_imports WHERE identity = ?`, key).Scan(&taken); err != nil {
		return err
	}
	if taken > 0 {
		key = ""
	}
	if _, err := tx.ExecContext(ctx, `UPDATE cost_imports SET identity = ? WHERE id = ? AND identity IS NULL`, key, id); err != nil {
		return err
	}
	return tx.Commit()
}
