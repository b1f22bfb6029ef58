package postgres

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storeutil"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// DB keeps bill lines a narrow row each, grouped by the import that brought them, with the
// contexts they share kept once per import (migrations/0030_narrow_cost_lines.sql).
var _ gpucost.CostStore = (*DB)(nil)

const importColumns = `id, name, checksum, coalesce(identity, ''), format, version, grain_ns, source_rows, lines, totals, imported_at, imported_ns,
	coalesce(providers, ''), charge_from, charge_to, files, lenient`

// CostImportByChecksum returns the import of a file with the given checksum, if any.
func (db *DB) CostImportByChecksum(ctx context.Context, checksum string) (gpucost.CostImport, bool, error) {
	row := db.pool.QueryRow(ctx, `SELECT `+importColumns+` FROM cost_imports WHERE checksum = $1`, checksum)
	imp, err := scanImport(row)
	if errors.Is(err, pgx.ErrNoRows) {
		return gpucost.CostImport{}, false, nil
	}
	if err != nil {
		return gpucost.CostImport{}, false, fmt.Errorf("look up cost import %s in %s: %w", checksum, db.name, err)
	}
	cov, err := coverageOf(ctx, db.pool, imp.ID)
	if err != nil {
		return gpucost.CostImport{}, false, fmt.Errorf("look up cost import %s in %s: %w", checksum, db.name, err)
	}
	imp.Coverage = cov[imp.ID]
	return imp, true, nil
}

// CostImports lists the imports, oldest first.
func (db *DB) CostImports(ctx context.Context) ([]gpucost.CostImport, error) {
	rows, err := db.pool.Query(ctx, `SELECT `+importColumns+` FROM cost_imports ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("list cost imports in %s: %w", db.name, err)
	}
	defer rows.Close()
	var out []gpucost.CostImport
	for rows.Next() {
		imp, err := scanImport(rows)
		if err != nil {
			return nil, fmt.Errorf("list cost imports in %s: %w", db.name, err)
		}
		out = append(out, imp)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list cost imports in %s: %w", db.name, err)
	}
	cov, err := coverageOf(ctx, db.pool, 0)
	if err != nil {
		return nil, fmt.Errorf("list cost imports in %s: %w", db.name, err)
	}
	for i := range out {
		out[i].Coverage = cov[out[i].ID]
	}
	return out, nil
}

func scanImport(row pgx.Row) (gpucost.CostImport, error) {
	var imp gpucost.CostImport
	var grain, srcRows, lines int64
	var totals string
	var ns int16
	var x storeutil.ImportExtras
	err := row.Scan(&imp.ID, &imp.Name, &imp.Checksum, &imp.Identity, &imp.Format, &imp.Version, &grain, &srcRows, &lines,
		&totals, &imp.ImportedAt, &ns, &x.Providers, &x.ChargeFrom, &x.ChargeTo, &x.Files, &imp.Lenient)
	if err != nil {
		return imp, err
	}
	if err := storeutil.DecodeExtras(&imp, x); err != nil {
		return imp, err
	}
	imp.Grain, imp.Rows, imp.Lines = time.Duration(grain), int(srcRows), int(lines)
	imp.ImportedAt = imp.ImportedAt.UTC().Add(time.Duration(ns))
	if imp.Totals, err = storeutil.ParseTotals(totals); err != nil {
		return imp, fmt.Errorf("import %d (%s): totals: %w", imp.ID, imp.Name, err)
	}
	return imp, nil
}

// PutCosts stores an import and its lines in one transaction, first deleting the imports listed
// in replace (those not stored are ignored) and their lines. The lines go to the server by COPY
// in batches of copyLines, each line's context (its strings, billing period and maps) once, so
// memory holds two batches and the contexts remembered (at most maxContexts) however many lines
// there are; a line and its maps may be reused, and a map changed in place, once the next line
// is asked for.
//
// The import returned has its ID set, Lines set to the number of lines stored, ImportedAt set to
// now if it was zero (and in UTC), and Totals set to the sums of the
// lines' BilledCost and EffectiveCost per billing currency if it was nil. Totals that are given
// must equal those sums. Nothing is stored if any step fails, if the lines stop because ctx is
// done (an iterator that fails cancels ctx, with its error as the cause, and PutCosts returns
// that cause) or if the iterator panics; the import returned is then empty. A file whose
// checksum or identity is stored already, and not replaced, is an EConflict: the unique indexes
// on both columns make an insert that races another transaction's wait for it and fail once it
// commits, so of two imports of one bill made at once, by any number of servers, one lands.
func (db *DB) PutCosts(ctx context.Context, imp gpucost.CostImport, lines iter.Seq[*gpucost.CostLine], replace []int64) (gpucost.CostImport, error) {
	out, err := db.PutCostBatch(ctx, []gpucost.CostPut{{Import: imp, Lines: lines, Replace: replace}})
	if err != nil {
		return gpucost.CostImport{}, err
	}
	return out[0], nil
}

// insertImport inserts imp, setting its ID.
func (db *DB) insertImport(ctx context.Context, tx pgx.Tx, imp *gpucost.CostImport) error {
	if err := db.checkUnique(ctx, tx, imp); err != nil {
		return err
	}
	err := tx.QueryRow(ctx, `INSERT INTO cost_imports (name, checksum, identity, format, version, grain_ns,
		source_rows, lines, totals, imported_at, imported_ns, lenient) VALUES ($1, $2, $3, $4, $5, $6, $7, 0, '[]', $8, $9, $10) RETURNING id`,
		imp.Name, imp.Checksum, imp.Identity, imp.Format, imp.Version, int64(imp.Grain), int64(imp.Rows), imp.ImportedAt, subMicro(imp.ImportedAt), imp.Lenient).Scan(&imp.ID)
	if pe := (*pgconn.PgError)(nil); errors.As(err, &pe) && pe.Code == uniqueViolation {
		// Another transaction stored the same file or bill between the check and the insert,
		// and has committed: this transaction is spoilt, so name the winner from outside it.
		if cerr := db.checkUnique(context.WithoutCancel(ctx), db.pool, imp); cerr != nil {
			return cerr
		}
		return gpucost.Errorf(gpucost.EConflict, "store cost import %s: another import of the same file or bill was being stored at the same time; retry", imp.Name)
	}
	if err != nil {
		return fmt.Errorf("store cost import %s in %s: %w", imp.Name, db.name, err)
	}
	return nil
}

// uniqueViolation is PostgreSQL's SQLSTATE for an insert that breaks a unique index.
const uniqueViolation = "23505"

// checkUnique returns an EConflict naming the stored import that has imp's checksum or, if imp
// has one, its identity.
func (db *DB) checkUnique(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, imp *gpucost.CostImport) error {
	var id int64
	var name, sum string
	err := q.QueryRow(ctx, `SELECT id, name, checksum FROM cost_imports WHERE checksum = $1 OR (identity = $2 AND identity <> '')
		ORDER BY checksum = $1 DESC LIMIT 1`, imp.Checksum, imp.Identity).Scan(&id, &name, &sum)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store cost import %s in %s: %w", imp.Name, db.name, err)
	}
	return storeutil.ImportConflict(imp.Name, id, name, sum == imp.Checksum)
}

// RemoveCosts deletes the import id and its lines in one transaction and returns the import as
// it was; an id not stored is an ENotFound.
func (db *DB) RemoveCosts(ctx context.Context, id int64) (gpucost.CostImport, error) {
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return gpucost.CostImport{}, fmt.Errorf("remove cost import %d from %s: %w", id, db.name, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	imp, err := scanImport(tx.QueryRow(ctx, `SELECT `+importColumns+` FROM cost_imports WHERE id = $1 FOR UPDATE`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return gpucost.CostImport{}, storeutil.NoImport(id)
	}
	if err != nil {
		return gpucost.CostImport{}, fmt.Errorf("remove cost import %d from %s: %w", id, db.name, err)
	}
	cov, err := coverageOf(ctx, tx, id)
	if err != nil {
		return gpucost.CostImport{}, fmt.Errorf("remove cost import %d from %s: %w", id, db.name, err)
	}
	imp.Coverage = cov[id]
	for _, q := range []string{`DELETE FROM cost_lines WHERE import_id = $1`, `DELETE FROM cost_line_contexts WHERE import_id = $1`,
		`DELETE FROM cost_import_coverage WHERE import_id = $1`,
		`DELETE FROM cost_imports WHERE id = $1`} {
		if _, err := tx.Exec(ctx, q, id); err != nil {
			return gpucost.CostImport{}, fmt.Errorf("remove cost import %d from %s: %w", id, db.name, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return gpucost.CostImport{}, fmt.Errorf("remove cost import %d from %s: commit: %w", id, db.name, err)
	}
	return imp, nil
}

// subMicro returns the nanoseconds of t below its microsecond, which timestamptz does not keep.
func subMicro(t time.Time) int16 { return int16(t.Nanosecond() % 1000) }
