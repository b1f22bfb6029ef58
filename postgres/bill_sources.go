package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storeutil"
)

// DB keeps each imported bill file zstd-compressed in the bill_sources table, 1 MiB of
// compressed bytes to a row (migrations/0015_bill_sources.sql).
var _ gpucost.BillSourceStore = (*DB)(nil)

// PutBillSource stores the bytes r gives under checksum, in one transaction; an advisory lock
// on the checksum makes a second writer of the same file wait and then find it stored.
func (db *DB) PutBillSource(ctx context.Context, checksum string, r io.Reader) (int64, error) {
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("store bill source in %s: %w", db.name, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, checksum); err != nil {
		return 0, fmt.Errorf("store bill source in %s: %w", db.name, err)
	}
	var stored int64
	err = tx.QueryRow(ctx, `SELECT coalesce(sum(length(data)), 0) FROM bill_sources WHERE checksum = $1`, checksum).Scan(&stored)
	if err != nil || stored > 0 {
		return stored, err
	}
	stored, err = storeutil.CompressSource(checksum, r, func(seq int, chunk []byte) error {
		_, err := tx.Exec(ctx, `INSERT INTO bill_sources (checksum, seq, data) VALUES ($1, $2, $3)`, checksum, seq, chunk)
		return err
	})
	if err != nil {
		return 0, err
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, fmt.Errorf("store bill source in %s: commit: %w", db.name, err)
	}
	return stored, nil
}

// BillSource returns the bytes stored under checksum, reading one chunk at a time.
func (db *DB) BillSource(ctx context.Context, checksum string) (io.ReadCloser, error) {
	chunk := func(seq int) ([]byte, bool, error) {
		var b []byte
		err := db.pool.QueryRow(ctx, `SELECT data FROM bill_sources WHERE checksum = $1 AND seq = $2`, checksum, seq).Scan(&b)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, fmt.Errorf("read bill source %s from %s: %w", checksum, db.name, err)
		}
		return b, true, nil
	}
	if _, ok, err := chunk(0); err != nil {
		return nil, err
	} else if !ok {
		return nil, gpucost.Errorf(gpucost.ENotFound, "no bill source %s is stored in %s: the file was imported without one (--no-source, or before gpucost kept them); import it again with --replace", checksum, db.name)
	}
	return storeutil.SourceReader(chunk)
}

// RemoveBillSource deletes the bytes stored under checksum unless an import has that checksum,
// as its own or as one of its parts' (files).
func (db *DB) RemoveBillSource(ctx context.Context, checksum string) (bool, error) {
	tag, err := db.pool.Exec(ctx, `DELETE FROM bill_sources WHERE checksum = $1
		AND NOT EXISTS (SELECT 1 FROM cost_imports WHERE checksum = $1)
		AND NOT EXISTS (SELECT 1 FROM cost_imports i,
			jsonb_array_elements(CASE WHEN i.files = '' THEN '[]'::jsonb ELSE i.files::jsonb END) AS q
			WHERE q->>'checksum' = $1)`, checksum)
	if err != nil {
		return false, fmt.Errorf("remove bill source %s from %s: %w", checksum, db.name, err)
	}
	return tag.RowsAffected() > 0, nil
}
