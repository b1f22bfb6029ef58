package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storeutil"
)

// DB keeps bill lines an import at a time, up to 8,192 lines to a row in columnar chunks (see
// costs_codec.go and migrations/0004_costs.sql), so that a year of daily lines for 10,000
// resources is scanned in well under a second.
var _ gpucost.CostStore = (*DB)(nil)

const importColumns = `id, name, checksum, coalesce(identity, ''), format, version, grain_ns, source_rows, lines, totals, imported_at,
	coalesce(providers, ''), charge_from, charge_to, files, lenient`

// CostImportByChecksum returns the import of a file with the given checksum, if any.
func (db *DB) CostImportByChecksum(ctx context.Context, checksum string) (gpucost.CostImport, bool, error) {
	row := db.sql.QueryRowContext(ctx, `SELECT `+importColumns+` FROM cost_imports WHERE checksum = ?`, checksum)
	imp, err := scanImport(row)
	if errors.Is(err, sql.ErrNoRows) {
		return gpucost.CostImport{}, false, nil
	}
	if err != nil {
		return gpucost.CostImport{}, false, fmt.Errorf("look up cost import %s in %s: %w", checksum, db.Path, err)
	}
	cov, err := coverageOf(ctx, db.sql, imp.ID)
	if err != nil {
		return gpucost.CostImport{}, false, fmt.Errorf("look up cost import %s in %s: %w", checksum, db.Path, err)
	}
	imp.Coverage = cov[imp.ID]
	return imp, true, nil
}

// CostImports lists the imports, oldest first.
func (db *DB) CostImports(ctx context.Context) ([]gpucost.CostImport, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+importColumns+` FROM cost_imports ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("list cost imports in %s: %w", db.Path, err)
	}
	defer rows.Close()
	var out []gpucost.CostImport
	for rows.Next() {
		imp, err := scanImport(rows)
		if err != nil {
			return nil, fmt.Errorf("list cost imports in %s: %w", db.Path, err)
		}
		out = append(out, imp)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list cost imports in %s: %w", db.Path, err)
	}
	cov, err := coverageOf(ctx, db.sql, 0)
	if err != nil {
		return nil, fmt.Errorf("list cost imports in %s: %w", db.Path, err)
	}
	for i := range out {
		out[i].Coverage = cov[out[i].ID]
	}
	return out, nil
}

func scanImport(row interface{ Scan(...any) error }) (gpucost.CostImport, error) {
	var imp gpucost.CostImport
	var grain int64
	var totals, at string
	var x storeutil.ImportExtras
	err := row.Scan(&imp.ID, &imp.Name, &imp.Checksum, &imp.Identity, &imp.Format, &imp.Version, &grain, &imp.Rows, &imp.Lines,
		&totals, &at, &x.Providers, &x.ChargeFrom, &x.ChargeTo, &x.Files, &imp.Lenient)
	if err != nil {
		return imp, err
	}
	if err := storeutil.DecodeExtras(&imp, x); err != nil {
		return imp, err
	}
	imp.Grain = time.Duration(grain)
	if imp.Totals, err = storeutil.ParseTotals(totals); err != nil {
		return imp, fmt.Errorf("import %d (%s): totals: %w", imp.ID, imp.Name, err)
	}
	if imp.ImportedAt, err = time.Parse(time.RFC3339Nano, at); err != nil {
		return imp, fmt.Errorf("import %d (%s): imported_at: %w", imp.ID, imp.Name, err)
	}
	return imp, nil
}

// PutCosts stores an import and its lines in one transaction, first deleting the imports listed
// in replace (those not stored are ignored) and their lines. The lines go in chunks of up to
// 8,192, so memory holds one chunk however many lines there are, and the import's dictionary of
// distinct strings (at most 262,144; it starts afresh past that). The strings of the lines are
// kept, as Go strings may be; the line and its maps may be reused once the next line is asked
// for, and a map may even be changed in place.
//
// The import returned has its ID set, Lines set to the number of lines stored, ImportedAt set to
// now if it was zero (and in UTC), and Totals set to the sums of the lines' BilledCost and
// EffectiveCost per billing currency if it was nil. Totals that are given must equal those
// sums. Nothing is stored if any step fails, if the lines stop because ctx is done (an iterator
// that fails cancels ctx, with its error as the cause, and PutCosts returns that cause) or if the
// iterator panics; the import returned is then empty. A file whose checksum or identity is
// stored already, and not replaced, is an EConflict: the transaction holds the database's write
// lock from its start (_txlock=immediate in Open), so that check and the insert are one step
// for every process on the file, and the unique indexes on both columns back it.
func (db *DB) PutCosts(ctx context.Context, imp gpucost.CostImport, lines iter.Seq[*gpucost.CostLine], replace []int64) (gpucost.CostImport, error) {
	out, err := db.PutCostBatch(ctx, []gpucost.CostPut{{Import: imp, Lines: lines, Replace: replace}})
	if err != nil {
		return gpucost.CostImport{}, err
	}
	return out[0], nil
}

// insertImport inserts imp, setting its ID: one above every id given before (cost_import_seq),
// so a removed import's id is never given again.
func (db *DB) insertImport(ctx context.Context, tx *sql.Tx, imp *gpucost.CostImport) error {
	if err := db.checkUnique(ctx, tx, imp); err != nil {
		return err
	}
	err := tx.QueryRowContext(ctx, `SELECT max((SELECT coalesce(max(id), 0) FROM cost_imports),
		(SELECT coalesce(max(last), 0) FROM cost_import_seq)) + 1`).Scan(&imp.ID)
	if err == nil {
		_, err = tx.ExecContext(ctx, `INSERT INTO cost_imports (id, name, checksum, identity, format, version, grain_ns,
		source_rows, lines, totals, imported_at, lenient) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, '[]', ?, ?)`,
			imp.ID, imp.Name, imp.Checksum, imp.Identity, imp.Format, imp.Version, int64(imp.Grain), imp.Rows,
			imp.ImportedAt.Format(time.RFC3339Nano), imp.Lenient)
	}
	if err == nil {
		_, err = tx.ExecContext(ctx, `UPDATE cost_import_seq SET last = ?`, imp.ID)
	}
	if err != nil {
		return fmt.Errorf("store cost import %s in %s: %w", imp.Name, db.Path, err)
	}
	return nil
}

// checkUnique returns an EConflict naming the stored import that has imp's checksum or, if imp
// has one, its identity.
func (db *DB) checkUnique(ctx context.Context, tx *sql.Tx, imp *gpucost.CostImport) error {
	var id int64
	var name, sum string
	err := tx.QueryRowContext(ctx, `SELECT id, name, checksum FROM cost_imports WHERE checksum = ? OR (identity = ? AND identity <> '')
		ORDER BY checksum = ? DESC LIMIT 1`, imp.Checksum, imp.Identity, imp.Checksum).Scan(&id, &name, &sum)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store cost import %s in %s: %w", imp.Name, db.Path, err)
	}
	return storeutil.ImportConflict(imp.Name, id, name, sum == imp.Checksum)
}

// RemoveCosts deletes the import id and its lines in one transaction and returns the import as
// it was; an id not stored is an ENotFound.
func (db *DB) RemoveCosts(ctx context.Context, id int64) (gpucost.CostImport, error) {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return gpucost.CostImport{}, fmt.Errorf("remove cost import %d from %s: %w", id, db.Path, err)
	}
	defer tx.Rollback()
	imp, err := scanImport(tx.QueryRowContext(ctx, `SELECT `+importColumns+` FROM cost_imports WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return gpucost.CostImport{}, storeutil.NoImport(id)
	}
	if err != nil {
		return gpucost.CostImport{}, fmt.Errorf("remove cost import %d from %s: %w", id, db.Path, err)
	}
	cov, err := coverageOf(ctx, tx, id)
	if err != nil {
		return gpucost.CostImport{}, fmt.Errorf("remove cost import %d from %s: %w", id, db.Path, err)
	}
	imp.Coverage = cov[id]
	for _, q := range []string{`DELETE FROM cost_chunks WHERE import_id = ?`, `DELETE FROM cost_import_coverage WHERE import_id = ?`,
		`DELETE FROM cost_imports WHERE id = ?`} {
		if _, err := tx.ExecContext(ctx, q, id); err != nil {
			return gpucost.CostImport{}, fmt.Errorf("remove cost import %d from %s: %w", id, db.Path, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return gpucost.CostImport{}, fmt.Errorf("remove cost import %d from %s: commit: %w", id, db.Path, err)
	}
	return imp, nil
}
