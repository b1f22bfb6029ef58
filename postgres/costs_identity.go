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
	rows, err := db.pool.Query(ctx, `SELECT id, name, format FROM cost_imports WHERE identity IS NULL ORDER BY id`)
	if err != nil {
		return fmt.Errorf("compute bill identities in %s: %w", db.name, err)
	}
	type pending struct {
		ID           int64
		Name, Format string
	}
	todo, err := pgx.CollectRows(rows, pgx.RowToStructByPos[pending])
	if err != nil {
		return fmt.Errorf("compute bill identities in %s: %w", db.name, err)
	}
	q, args := linesQuery(gpucost.CostFilter{})
	d := newLineDecoder()
	for _, p := range todo {
		var b gpucost.BillIdentity
		args[1] = p.ID
		err := db.scanImport(ctx, q, args, gpucost.CostFilter{}, d, func(l *gpucost.CostLine) error { b.Add(l); return nil })
		if err == nil {
			err = db.setIdentity(ctx, p.ID, b.Key(p.Format))
		}
		if err != nil {
			return fmt.Errorf("compute the bill identity of import %d (%s) in %s: %w", p.ID, p.Name, db.name, err)
		}
	}
	return db.backfillCoverage(ctx)
}

// setIdentity sets the identity of import id to key, or to none if another import has key.
func (db *DB) setIdentity(ctx context.Context, id int64, key string) error {
	_, err := db.pool.Exec(ctx, `UPDATE cost_imports SET identity = $1 WHERE id = $2 AND identity IS NULL`, key, id)
	if pe := (*pgconn.PgError)(nil); errors.As(err, &pe) && pe.Code == uniqueViolation {
		_, err = db.pool.Exec(ctx, `UPDATE cost_imports SET identity = '' WHERE id = $1 AND identity IS NULL`, id)
	}
	return err
}
