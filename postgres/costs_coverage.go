package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storeutil"
	"github.com/jackc/pgx/v5"
)

// importLock is the advisory lock key that serialises storing bill imports: "gpubill" in ASCII.
// Overlapping coverage spans rows no unique index can hold, so the check and the inserts run
// under it.
const importLock = 0x67707562696c6c

// PutCostBatch stores the imports of puts in one transaction, first deleting every import the
// puts replace: all land or none does. Each import is stored as PutCosts stores one, and its
// (account, period) pairs go to cost_import_coverage; a pair that a stored import not replaced,
// or an earlier import of the batch, covers is an EConflict naming that import. The transaction
// takes a transaction-scoped advisory lock first, so that check and the inserts are one step for
// every server on the database.
func (db *DB) PutCostBatch(ctx context.Context, puts []gpucost.CostPut) ([]gpucost.CostImport, error) {
	imps := make([]gpucost.CostImport, len(puts))
	for i, p := range puts {
		imp, err := storeutil.PrepareImport(p.Import, time.Now())
		if err != nil {
			return nil, err
		}
		imps[i] = imp
	}
	if len(puts) == 0 {
		return imps, nil
	}
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("store cost import %s in %s: %w", imps[0].Name, db.name, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(importLock)); err != nil {
		return nil, fmt.Errorf("store cost import %s in %s: lock: %w", imps[0].Name, db.name, err)
	}
	for i, p := range puts {
		if err := db.deleteImports(ctx, tx, imps[i].Name, p.Replace); err != nil {
			return nil, err
		}
	}
	for i, p := range puts {
		if err := db.putImport(ctx, tx, &imps[i], p); err != nil {
			return nil, err
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("store cost import %s in %s: commit: %w", imps[0].Name, db.name, err)
	}
	return imps, nil
}

// putImport stores one import of a batch and its lines within tx.
func (db *DB) putImport(ctx context.Context, tx pgx.Tx, imp *gpucost.CostImport, p gpucost.CostPut) error {
	if err := db.insertImport(ctx, tx, imp); err != nil {
		return err
	}
	if err := db.putCoverage(ctx, tx, imp); err != nil {
		return err
	}
	w := lineWriter{tx: tx, importID: imp.ID}
	if err := w.writeAll(ctx, p.Lines); err != nil {
		return fmt.Errorf("store cost import %s in %s: %w", imp.Name, db.name, err)
	}
	imp.Lines = w.lines
	totals, err := storeutil.SettleTotals(imp, w.sums.Sorted())
	if err != nil {
		return err
	}
	var minStart, maxStart *int64
	if w.lines > 0 {
		minStart, maxStart = &w.minStart, &w.maxStart
	}
	if _, err := tx.Exec(ctx, `UPDATE cost_imports SET lines = $1, totals = $2, min_start = $3, max_start = $4 WHERE id = $5`,
		imp.Lines, totals, minStart, maxStart, imp.ID); err != nil {
		return fmt.Errorf("store cost import %s in %s: %w", imp.Name, db.name, err)
	}
	return nil
}

// deleteImports deletes the imports ids (those not stored are ignored), their lines and
// coverage, for the import called name that replaces them.
func (db *DB) deleteImports(ctx context.Context, tx pgx.Tx, name string, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	for _, q := range []string{`DELETE FROM cost_lines WHERE import_id = ANY($1)`, `DELETE FROM cost_line_contexts WHERE import_id = ANY($1)`,
		`DELETE FROM cost_import_coverage WHERE import_id = ANY($1)`,
		`DELETE FROM cost_imports WHERE id = ANY($1)`} {
		if _, err := tx.Exec(ctx, q, ids); err != nil {
			return fmt.Errorf("store cost import %s in %s: delete imports %v: %w", name, db.name, ids, err)
		}
	}
	return nil
}

// putCoverage stores imp's providers, charge span, files and (account, period) pairs, and
// returns an EConflict naming a stored import that covers one of the pairs too.
func (db *DB) putCoverage(ctx context.Context, tx pgx.Tx, imp *gpucost.CostImport) error {
	x, err := storeutil.EncodeExtras(*imp)
	if err == nil {
		_, err = tx.Exec(ctx, `UPDATE cost_imports SET providers = $1, charge_from = $2, charge_to = $3, files = $4 WHERE id = $5`,
			x.Providers, x.ChargeFrom, x.ChargeTo, x.Files, imp.ID)
	}
	if err == nil {
		err = insertCoverage(ctx, tx, imp.ID, storeutil.CoverageRows(*imp))
	}
	if err != nil {
		return fmt.Errorf("store cost import %s in %s: %w", imp.Name, db.name, err)
	}
	var id int64
	var name, account, period string
	var at time.Time
	err = tx.QueryRow(ctx, `SELECT o.import_id, i.name, i.imported_at, o.account, o.period
		FROM cost_import_coverage n
		JOIN cost_import_coverage o ON o.account = n.account AND o.period = n.period AND o.import_id <> n.import_id
		JOIN cost_imports i ON i.id = o.import_id
		WHERE n.import_id = $1 ORDER BY o.import_id, o.account, o.period LIMIT 1`, imp.ID).Scan(&id, &name, &at, &account, &period)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store cost import %s in %s: %w", imp.Name, db.name, err)
	}
	c, _ := storeutil.ParseCoverage(account, period)
	return storeutil.OverlapConflict(imp.Name, id, name, at, c)
}

// insertCoverage inserts an import's coverage rows.
func insertCoverage(ctx context.Context, tx pgx.Tx, id int64, rows [][2]string) error {
	if len(rows) == 0 {
		return nil
	}
	accounts, periods := make([]string, len(rows)), make([]string, len(rows))
	for i, r := range rows {
		accounts[i], periods[i] = r[0], r[1]
	}
	_, err := tx.Exec(ctx, `INSERT INTO cost_import_coverage (import_id, account, period)
		SELECT $1, a, p FROM unnest($2::text[], $3::text[]) AS t(a, p) ON CONFLICT DO NOTHING`, id, accounts, periods)
	return err
}

// coverageOf returns the (account, period) pairs of the import id, or of every import when id
// is 0, by import id.
func coverageOf(ctx context.Context, q interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}, id int64) (map[int64][]gpucost.BillCoverage, error) {
	rows, err := q.Query(ctx, `SELECT import_id, account, period FROM cost_import_coverage
		WHERE $1 = 0 OR import_id = $1 ORDER BY import_id, account, period`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return storeutil.ReadCoverage(rows)
}

// backfillCoverage gives the imports stored before migrations/0020_import_coverage.sql, whose
// providers are NULL, their providers, charge span and (account, period) pairs, computed from
// their stored lines. Imports that overlap (a partial and a full export, both stored before)
// keep both their pairs: gpucost import list shows them, and the next import of that period is
// refused until one is removed or replaced. Each import is settled in a transaction of its own,
// so an interrupted backfill goes on at the next Open.
func (db *DB) backfillCoverage(ctx context.Context) error {
	return db.backfill(ctx, "providers IS NULL", "coverage", func(imp gpucost.CostImport, b *gpucost.BillIdentity) error {
		return db.setCoverage(ctx, imp, b)
	})
}

// setCoverage stores what b says import imp covers, unless another server did first.
func (db *DB) setCoverage(ctx context.Context, imp gpucost.CostImport, b *gpucost.BillIdentity) error {
	b.Describe(&imp, imp.Format)
	x, err := storeutil.EncodeExtras(imp)
	if err != nil {
		return err
	}
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	tag, err := tx.Exec(ctx, `UPDATE cost_imports SET providers = $1, charge_from = $2, charge_to = $3 WHERE id = $4 AND providers IS NULL`,
		x.Providers, x.ChargeFrom, x.ChargeTo, imp.ID)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return nil
	}
	if err := insertCoverage(ctx, tx, imp.ID, storeutil.CoverageRows(imp)); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
