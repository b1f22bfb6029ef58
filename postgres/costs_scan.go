package postgres

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/jackc/pgx/v5"
)

// ScanCosts calls fn for each stored line that matches f, in order of import and then line.
// Providers match without regard to case; resource ids exactly. The *CostLine is reused and
// valid only during the call; fn may change it, but not its Tags and Extra maps, which are
// shared by the lines that hold the same ones. Times are in UTC.
//
// The imports whose charge periods all start outside [f.From, f.To) are not read; the others are
// read an import at a time: its contexts first, held while its lines stream from the server in
// order through the primary key as fn consumes them. The contexts decide the billing period,
// provider and resource filters, and the server sends only the lines of the contexts that pass.
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
	s := lineScanner{db: db, d: newLineDecoder()}
	for _, id := range ids {
		if err := s.scan(ctx, id, f, fn); err != nil {
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

// lineScanner reads the lines of imports, one import at a time.
type lineScanner struct {
	db       *DB
	d        *lineDecoder
	contexts []gpucost.CostLine // the current import's, by number
	keep     []int32            // the numbers of those that match the filter
}

// scan passes the lines of import id that match f to fn.
func (s *lineScanner) scan(ctx context.Context, id int64, f gpucost.CostFilter, fn func(*gpucost.CostLine) error) error {
	all, err := s.readContexts(ctx, id, f)
	if err != nil {
		return fmt.Errorf("scan costs in %s: import %d: %w", s.db.name, id, err)
	}
	if !all && len(s.keep) == 0 {
		return nil
	}
	q, args := linesQuery(id, f, all, s.keep)
	rows, err := s.db.pool.Query(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("scan costs in %s: import %d: %w", s.db.name, id, err)
	}
	defer rows.Close()
	var l gpucost.CostLine
	for rows.Next() {
		seq, err := decodeLine(rows.RawValues(), s.contexts, &l)
		if err != nil {
			return fmt.Errorf("scan costs in %s: import %d line %d: %w", s.db.name, id, seq+1, err)
		}
		if err := fn(&l); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("scan costs in %s: import %d: %w", s.db.name, id, err)
	}
	return nil
}

// readContexts reads the contexts of import id into s.contexts, by number (the writer numbers
// them 0, 1, 2 …), and the numbers of
// those that match f's billing periods, providers and resources into s.keep. It says whether
// every context matches.
func (s *lineScanner) readContexts(ctx context.Context, id int64, f gpucost.CostFilter) (all bool, err error) {
	rows, err := s.db.pool.Query(ctx, `SELECT `+strings.Join(scanContextColumns, ", ")+` FROM cost_line_contexts WHERE import_id = $1 ORDER BY id`,
		pgx.QueryResultFormats{pgx.BinaryFormatCode}, id)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	clear(s.contexts)
	s.contexts, s.keep, all = s.contexts[:0], s.keep[:0], true
	var l gpucost.CostLine
	for rows.Next() {
		n, err := s.d.decodeContext(rows.RawValues(), &l)
		if err != nil {
			return false, fmt.Errorf("context %d: %w", n, err)
		}
		if int(n) != len(s.contexts) {
			return false, fmt.Errorf("context %d where %d was due: an import's contexts are numbered 0, 1, 2 …", n, len(s.contexts))
		}
		s.contexts = append(s.contexts, l)
		if contextMatches(&l, f) {
			s.keep = append(s.keep, n)
		} else {
			all = false
		}
	}
	return all, rows.Err()
}

// contextMatches says whether the lines of context l match f's billing periods, providers and
// resources.
func contextMatches(l *gpucost.CostLine, f gpucost.CostFilter) bool {
	if !f.BilledFrom.IsZero() && l.BillingPeriodStart.Before(f.BilledFrom) {
		return false
	}
	if !f.BilledTo.IsZero() && !l.BillingPeriodStart.Before(f.BilledTo) {
		return false
	}
	if len(f.Providers) > 0 && !containsFold(f.Providers, l.Provider) {
		return false
	}
	return len(f.ResourceIDs) == 0 || slices.Contains(f.ResourceIDs, l.ResourceID)
}

// linesQuery returns the query of the lines of import id that match f's charge period and have
// one of the contexts keep (any context if all), and its arguments (the first asks for binary
// results).
func linesQuery(id int64, f gpucost.CostFilter, all bool, keep []int32) (string, []any) {
	q := `SELECT ` + strings.Join(scanLineColumns, ", ") + ` FROM cost_lines WHERE import_id = $1`
	args := []any{pgx.QueryResultFormats{pgx.BinaryFormatCode}, id}
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
	if !all {
		q += " AND context_id = ANY(" + arg(keep) + ")"
	}
	return q + " ORDER BY seq", args
}

func containsFold(ss []string, s string) bool {
	for _, p := range ss {
		if strings.EqualFold(p, s) {
			return true
		}
	}
	return false
}
