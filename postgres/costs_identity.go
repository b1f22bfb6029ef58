package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/gpucost/gpucost"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// backfillIdentity gives the imports stored before migrations/0007_bill_identity.sql, whose
// identity is NULL, the key gpucost import billing computes (gpucost.BillIdentity) from their
// stored lines, format and name. An import whose key another import has already (a restated
// bill imported twice under different names before the key was kept) gets an empty identity,
// which blocks nothing; both stay until someone removes one (gpucost bills remove). Each
// import is settled by a statement of its own, so an interrupted backfill goes on at the next
// Open, and servers opening the database at once settle each import alike. It then computes
// the imports' coverage (backfillCoverage).
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
	rows, err := db.pool.Query(ctx, `SELECT id, name, format FROM cost_imports WHERE `+where+` ORDER BY id`)
	if err != nil {
		return fmt.Errorf("compute the bill %s of the stored imports in %s: %w", what, db.name, err)
	}
	todo, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (gpucost.CostImport, error) {
		var imp gpucost.CostImport
		err := row.Scan(&imp.ID, &imp.Name, &imp.Format)
		return imp, err
	})
	if err != nil {
		return fmt.Errorf("compute the bill %s of the stored imports in %s: %w", what, db.name, err)
	}
	s := lineScanner{db: db, d: newLineDecoder()}
	for _, imp := range todo {
		var b gpucost.BillIdentity
		err := s.scan(ctx, imp.ID, gpucost.CostFilter{}, func(l *gpucost.CostLine) error { b.Add(l); return nil })
		if err == nil {
			err = set(imp, &b)
		}
		if err != nil {
			return fmt.Errorf("compute the bill %s of import %d (%s) in %s: %w", what, imp.ID, imp.Name, db.name, err)
		}
	}
	return nil
}

// setIdentity sets the identity of import id to key, or to none if another import has key.
func (db *DB) setIdentity(ctx context.Context, id int64, key string) error {
	_, err := db.pool.Exec(ctx, `UPDATE cost_imports SET identity = $1 WHERE id = $2 AND identity IS NULL`, key, id)
	if pe := (*pgconn.PgError)(nil); errors.As(err, &pe) && pe.Code == uniqueViolation {
		_, err = db.pool.Exec(ctx, `UPDATE cost_imports SET identity = '' WHERE id = $1 AND identity IS NULL`, id)
	}
	return err
}
