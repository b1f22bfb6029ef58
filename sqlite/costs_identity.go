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
	err := db.backfill(ctx, "identity IS NULL", "identity", func(imp gpucost.CostImport, b *gpucost.BillIdentity) error {
		return db.setIdentity(ctx, imp.ID, b.Key(imp.Format))
	})
	if err != nil {
		return err
	}
	return db.backfillCoverage(ctx)
}

// backfill gives each import where holds (a condition on cost_imports) what set stores of the
// gpucost.BillIdentity of its stored lines; what names it in errors. Each import is settled by
// a statement of its own, so an interrupted backfill goes on at the next Open.
func (db *DB) backfill(ctx context.Context, where, what string, set func(gpucost.CostImport, *gpucost.BillIdentity) error) error {
	rows, err := db.sql.QueryContext(ctx, `SELECT id, name, format FROM cost_imports WHERE `+where+` ORDER BY id`)
	if err != nil {
		return fmt.Errorf("compute the bill %s of the stored imports in %s: %w", what, db.Path, err)
	}
	var todo []gpucost.CostImport
	for rows.Next() {
		var imp gpucost.CostImport
		if err := rows.Scan(&imp.ID, &imp.Name, &imp.Format); err != nil {
			rows.Close()
			return fmt.Errorf("compute the bill %s of the stored imports in %s: %w", what, db.Path, err)
		}
		todo = append(todo, imp)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("compute the bill %s of the stored imports in %s: %w", what, db.Path, err)
	}
	for _, imp := range todo {
		var b gpucost.BillIdentity
		err := db.scanCosts(ctx, gpucost.CostFilter{}, imp.ID, func(l *gpucost.CostLine) error { b.Add(l); return nil })
		if err == nil {
			err = set(imp, &b)
		}
		if err != nil {
			return fmt.Errorf("compute the bill %s of import %d (%s) in %s: %w", what, imp.ID, imp.Name, db.Path, err)
		}
	}
	return nil
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
