package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storeutil"
)

// PutCostBatch stores the imports of puts in one transaction, first deleting every import the
// puts replace: all land or none does. Each import is stored as PutCosts stores one, and its
// (account, period) pairs go to cost_import_coverage; a pair that a stored import not replaced,
// or an earlier import of the batch, covers is an EConflict naming that import. The
// transaction holds the database's write lock from its start, so the check and the inserts are
// one step for every process on the file.
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
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("store cost import %s in %s: %w", imps[0].Name, db.Path, err)
	}
	defer tx.Rollback()
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
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("store cost import %s in %s: commit: %w", imps[0].Name, db.Path, err)
	}
	return imps, nil
}

// putImport stores one import of a batch and its lines within tx.
func (db *DB) putImport(ctx context.Context, tx *sql.Tx, imp *gpucost.CostImport, p gpucost.CostPut) error {
	if err := db.insertImport(ctx, tx, imp); err != nil {
		return err
	}
	if err := db.putCoverage(ctx, tx, imp); err != nil {
		return err
	}
	w, err := newChunkWriter(ctx, tx, imp.ID)
	if err != nil {
		return fmt.Errorf("store cost import %s in %s: %w", imp.Name, db.Path, err)
	}
	defer w.stmt.Close()
	if err := w.writeAll(ctx, p.Lines); err != nil {
		return fmt.Errorf("store cost import %s in %s: %w", imp.Name, db.Path, err)
	}
	imp.Lines = w.lines
	totals, err := storeutil.SettleTotals(imp, w.sums.Sorted())
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE cost_imports SET lines = ?, totals = ? WHERE id = ?`,
		imp.Lines, totals, imp.ID); err != nil {
		return fmt.Errorf("store cost import %s in %s: %w", imp.Name, db.Path, err)
	}
	return nil
}

// deleteImports deletes the imports ids (those not stored are ignored), their lines and
// coverage, for the import called name that replaces them.
func (db *DB) deleteImports(ctx context.Context, tx *sql.Tx, name string, ids []int64) error {
	for _, id := range ids {
		for _, q := range []string{`DELETE FROM cost_chunks WHERE import_id = ?`, `DELETE FROM cost_import_coverage WHERE import_id = ?`,
			`DELETE FROM cost_imports WHERE id = ?`} {
			if _, err := tx.ExecContext(ctx, q, id); err != nil {
				return fmt.Errorf("store cost import %s in %s: delete import %d: %w", name, db.Path, id, err)
			}
		}
	}
	return nil
}

// putCoverage stores imp's providers, charge span, files and (account, period) pairs, and
// returns an EConflict naming a stored import that covers one of the pairs too.
func (db *DB) putCoverage(ctx context.Context, tx *sql.Tx, imp *gpucost.CostImport) error {
	x, err := storeutil.EncodeExtras(*imp)
	if err == nil {
		_, err = tx.ExecContext(ctx, `UPDATE cost_imports SET providers = ?, charge_from = ?, charge_to = ?, files = ? WHERE id = ?`,
			x.Providers, x.ChargeFrom, x.ChargeTo, x.Files, imp.ID)
	}
	if err != nil {
		return fmt.Errorf("store cost import %s in %s: %w", imp.Name, db.Path, err)
	}
	if err := insertCoverage(ctx, tx, imp.ID, storeutil.CoverageRows(*imp)); err != nil {
		return fmt.Errorf("store cost import %s in %s: %w", imp.Name, db.Path, err)
	}
	var id int64
	var name, at, account, period string
	err = tx.QueryRowContext(ctx, `SELECT o.import_id, i.name, i.imported_at, o.account, o.period
		FROM cost_import_coverage n
		JOIN cost_import_coverage o ON o.account = n.account AND o.period = n.period AND o.import_id <> n.import_id
		JOIN cost_imports i ON i.id = o.import_id
		WHERE n.import_id = ? ORDER BY o.import_id, o.account, o.period LIMIT 1`, imp.ID).Scan(&id, &name, &at, &account, &period)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store cost import %s in %s: %w", imp.Name, db.Path, err)
	}
	when, _ := time.Parse(time.RFC3339Nano, at)
	c, _ := storeutil.ParseCoverage(account, period)
	return storeutil.OverlapConflict(imp.Name, id, name, when, c)
}

// insertCoverage inserts an import's coverage rows.
func insertCoverage(ctx context.Context, tx *sql.Tx, id int64, rows [][2]string) error {
	if len(rows) == 0 {
		return nil
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO cost_import_coverage (import_id, account, period) VALUES (?, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, r := range rows {
		if _, err := stmt.ExecContext(ctx, id, r[0], r[1]); err != nil {
			return err
		}
	}
	return nil
}

// coverageOf returns the (account, period) pairs of the import id, or of every import when id
// is 0, by import id.
func coverageOf(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, id int64) (map[int64][]gpucost.BillCoverage, error) {
	rows, err := q.QueryContext(ctx, `SELECT import_id, account, period FROM cost_import_coverage
		WHERE ? = 0 OR import_id = ? ORDER BY import_id, account, period`, id, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return storeutil.ReadCoverage(rows)
}

// backfillCoverage gives the imports stored before migrations/0020_import_coverage.sql, whose
// providers are NULL, their providers, charge span and (account, period) pairs, computed from
// their stored lines. Imports that overlap (a partial and a full export, both stored before)
// keep both their pairs: gpucost import list shows them, and the next import of that period
// is refused until one is removed or replaced. Each import is settled in a transaction of its
// own, so an interrupted backfill goes on at the next Open.
func (db *DB) backfillCoverage(ctx context.Context) error {
	return db.backfill(ctx, "providers IS NULL", "coverage", func(imp gpucost.CostImport, b *gpucost.BillIdentity) error {
		return db.setCoverage(ctx, imp, b)
	})
}

// setCoverage stores what b says import imp covers, unless another process did first.
func (db *DB) setCoverage(ctx context.Context, imp gpucost.CostImport, b *gpucost.BillIdentity) error {
	b.Describe(&imp, imp.Format)
	x, err := storeutil.EncodeExtras(imp)
	if err != nil {
		return err
	}
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `UPDATE cost_imports SET providers = ?, charge_from = ?, charge_to = ? WHERE id = ? AND providers IS NULL`,
		x.Providers, x.ChargeFrom, x.ChargeTo, imp.ID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	if err := insertCoverage(ctx, tx, imp.ID, storeutil.CoverageRows(imp)); err != nil {
		return err
	}
	return tx.Commit()
}
