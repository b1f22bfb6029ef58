package postgres

import (
	"context"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/gpucost/gpucost"
	"github.com/jackc/pgx/v5"
)

// ScanCosts calls fn for each stored line that matches f, in order of import and then line.
// Providers match without regard to case; resource ids exactly. The *CostLine is reused and
// valid only during the call; fn may change it, but not its Tags and Extra maps, which are
// shared by the lines that hold the same ones. Times are in UTC.
//
// The imports whose charge periods all start outside [f.From, f.To) are not read; the others are
// read an import at a time, in order through the primary key, their rows streaming from the
// server as fn consumes them.
func (db *DB) ScanCosts(ctx context.Context, f gpucost.CostFilter, fn func(*gpucost.CostLine) error) error {
	fromSec, toSec := int64(math.MinInt64), int64(math.MaxInt64)
	if !f.From.IsZero() {
		fromSec = f.From.Unix()
	}
	if !f.To.IsZero() {
		toSec = f.To.Unix()
	}
	ids, err := db.importsIn(ctx, fromSec, toSec)
	if err != nil {
		return fmt.Errorf("scan costs in %s: %w", db.name, err)
	}
	q, args := linesQuery(f)
	d := newLineDecoder()
	for _, id := range ids {
		args[1] = id
		if err := db.scanImport(ctx, q, args, f, d, fn); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// importsIn returns the imports, oldest first, with lines whose charge periods start in
// [fromSec, toSec] (whole seconds, so the bounds are inclusive).
func (db *DB) importsIn(ctx context.Context, fromSec, toSec int64) ([]int64, error) {
	rows, err := db.pool.Query(ctx, `SELECT id FROM cost_imports WHERE lines > 0 AND max_start >= $1 AND min_start <= $2
		ORDER BY id`, fromSec, toSec)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}

// linesQuery returns the query of one import's lines that match f and its arguments, the
// import id ($1) to be set in args[1] (args[0] asks for binary results).
func linesQuery(f gpucost.CostFilter) (string, []any) {
	q := `SELECT import_id, seq, ` + strings.Join(lineColumns, ", ") + ` FROM cost_lines WHERE import_id = $1`
	args := []any{pgx.QueryResultFormats{pgx.BinaryFormatCode}, int64(0)}
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args)-1)
	}
	if !f.From.IsZero() {
		q += fmt.Sprintf(" AND (charge_start_s, charge_start_ns) >= (%s, %s)", arg(f.From.Unix()), arg(int32(f.From.Nanosecond())))
	}
	if !f.To.IsZero() {
		q += fmt.Sprintf(" AND (charge_start_s, charge_start_ns) < (%s, %s)", arg(f.To.Unix()), arg(int32(f.To.Nanosecond())))
	}
	q += billedWhere(f, arg)
	// Providers are compared by strings.EqualFold as the rows come; the server narrows the rows
	// first when every provider asked for is ASCII, where lower() and EqualFold agree.
	if len(f.Providers) > 0 && allASCII(f.Providers) {
		lower := make([]string, len(f.Providers))
		for i, p := range f.Providers {
			lower[i] = strings.ToLower(p)
		}
		q += " AND lower(provider) = ANY(" + arg(lower) + ")"
	}
	if len(f.ResourceIDs) > 0 {
		q += " AND resource_id = ANY(" + arg(f.ResourceIDs) + ")"
	}
	return q + " ORDER BY seq", args
}

// scanImport passes the lines of one import that match f to fn.
func (db *DB) scanImport(ctx context.Context, q string, args []any, f gpucost.CostFilter, d *lineDecoder, fn func(*gpucost.CostLine) error) error {
	rows, err := db.pool.Query(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("scan costs in %s: import %d: %w", db.name, args[1], err)
	}
	defer rows.Close()
	var l gpucost.CostLine
	for rows.Next() {
		importID, seq, err := d.decode(rows.RawValues(), &l)
		if err != nil {
			return fmt.Errorf("scan costs in %s: import %d line %d: %w", db.name, importID, seq+1, err)
		}
		if len(f.Providers) > 0 && !containsFold(f.Providers, l.Provider) {
			continue
		}
		if err := fn(&l); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("scan costs in %s: import %d: %w", db.name, args[1], err)
	}
	return nil
}

func allASCII(ss []string) bool {
	for _, s := range ss {
		for i := range len(s) {
			if s[i] >= utf8.RuneSelf {
				return false
			}
		}
	}
	return true
}

func containsFold(ss []string, s string) bool {
	for _, p := range ss {
		if strings.EqualFold(p, s) {
			return true
		}
	}
	return false
}
