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

const importColumns = `id, name, checksum, format, version, grain_ns, source_rows, lines, totals, imported_at`

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
	return out, nil
}

func scanImport(row interface{ Scan(...any) error }) (gpucost.CostImport, error) {
	var imp gpucost.CostImport
	var grain int64
	var totals, at string
	err := row.Scan(&imp.ID, &imp.Name, &imp.Checksum, &imp.Format, &imp.Version, &grain, &imp.Rows, &imp.Lines,
		&totals, &at)
	if err != nil {
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
// iterator panics; the import returned is then empty. A file whose checksum is stored already,
// and not replaced, is an EConflict.
func (db *DB) PutCosts(ctx context.Context, imp gpucost.CostImport, lines iter.Seq[*gpucost.CostLine], replace []int64) (gpucost.CostImport, error) {
	imp, err := storeutil.PrepareImport(imp, time.Now())
	if err != nil {
		return gpucost.CostImport{}, err
	}
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return gpucost.CostImport{}, fmt.Errorf("store cost import %s in %s: %w", imp.Name, db.Path, err)
	}
	defer tx.Rollback()
	if err := db.insertImport(ctx, tx, &imp, replace); err != nil {
		return gpucost.CostImport{}, err
	}
	w, err := newChunkWriter(ctx, tx, imp.ID)
	if err != nil {
		return gpucost.CostImport{}, fmt.Errorf("store cost import %s in %s: %w", imp.Name, db.Path, err)
	}
	defer w.stmt.Close()
	if err := w.writeAll(ctx, lines); err != nil {
		return gpucost.CostImport{}, fmt.Errorf("store cost import %s in %s: %w", imp.Name, db.Path, err)
	}
	imp.Lines = w.lines
	totals, err := storeutil.SettleTotals(&imp, w.sums.Sorted())
	if err != nil {
		return gpucost.CostImport{}, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE cost_imports SET lines = ?, totals = ? WHERE id = ?`,
		imp.Lines, totals, imp.ID); err != nil {
		return gpucost.CostImport{}, fmt.Errorf("store cost import %s in %s: %w", imp.Name, db.Path, err)
	}
	if err := tx.Commit(); err != nil {
		return gpucost.CostImport{}, fmt.Errorf("store cost import %s in %s: commit: %w", imp.Name, db.Path, err)
	}
	return imp, nil
}

// insertImport deletes the imports in replace and inserts imp, setting its ID.
func (db *DB) insertImport(ctx context.Context, tx *sql.Tx, imp *gpucost.CostImport, replace []int64) error {
	for _, id := range replace {
		for _, q := range []string{`DELETE FROM cost_chunks WHERE import_id = ?`, `DELETE FROM cost_imports WHERE id = ?`} {
			if _, err := tx.ExecContext(ctx, q, id); err != nil {
				return fmt.Errorf("store cost import %s in %s: delete import %d: %w", imp.Name, db.Path, id, err)
			}
		}
	}
	var id int64
	var name string
	err := tx.QueryRowContext(ctx, `SELECT id, name FROM cost_imports WHERE checksum = ?`, imp.Checksum).Scan(&id, &name)
	if err == nil {
		return gpucost.Errorf(gpucost.EConflict, "store cost import %s: the same file was imported already as %s (import %d); replace it to import it again",
			imp.Name, name, id)
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("store cost import %s in %s: %w", imp.Name, db.Path, err)
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO cost_imports (name, checksum, format, version, grain_ns,
		source_rows, lines, totals, imported_at) VALUES (?, ?, ?, ?, ?, ?, 0, '[]', ?)`,
		imp.Name, imp.Checksum, imp.Format, imp.Version, int64(imp.Grain), imp.Rows,
		imp.ImportedAt.Format(time.RFC3339Nano))
	if err == nil {
		imp.ID, err = res.LastInsertId()
	}
	if err != nil {
		return fmt.Errorf("store cost import %s in %s: %w", imp.Name, db.Path, err)
	}
	return nil
}

// chunkWriter streams the lines of one import into chunks.
type chunkWriter struct {
	stmt     *sql.Stmt
	importID int64
	seq      int
	enc      chunkEncoder
	strs     []byte
	data     []byte
	lines    int
	sums     gpucost.CostTotals
}

func newChunkWriter(ctx context.Context, tx *sql.Tx, importID int64) (*chunkWriter, error) {
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO cost_chunks (import_id, seq, min_start, max_start, lines, strings, data)
		VALUES (?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return nil, err
	}
	return &chunkWriter{stmt: stmt, importID: importID}, nil
}

// writeAll writes the lines, stopping at the first error or when ctx is done.
func (w *chunkWriter) writeAll(ctx context.Context, lines iter.Seq[*gpucost.CostLine]) error {
	if lines == nil {
		lines = func(func(*gpucost.CostLine) bool) {}
	}
	var err error
	for l := range lines {
		if w.enc.full() {
			if err = w.flush(ctx); err != nil {
				break
			}
		}
		w.enc.add(l)
		w.count(l)
	}
	if err == nil {
		err = w.flush(ctx)
	}
	if ctx.Err() != nil { // the reader failed, or the caller gave up
		err = context.Cause(ctx)
	}
	return err
}

// count adds l to the totals.
func (w *chunkWriter) count(l *gpucost.CostLine) {
	w.lines++
	w.sums.Add(l.BilledCost, l.EffectiveCost)
}

// flush writes the chunk gathered, if it holds any line.
func (w *chunkWriter) flush(ctx context.Context) error {
	if w.enc.n == 0 {
		return nil
	}
	n, minStart, maxStart := w.enc.n, w.enc.minStart, w.enc.maxStart
	w.strs, w.data = w.enc.encode(w.strs, w.data)
	if _, err := w.stmt.ExecContext(ctx, w.importID, w.seq, minStart, maxStart, n, w.strs, w.data); err != nil {
		return fmt.Errorf("write chunk %d: %w", w.seq, err)
	}
	w.seq++
	return nil
}
