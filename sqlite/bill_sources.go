package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storeutil"
)

// DB keeps each imported bill file zstd-compressed in the bill_sources table, 1 MiB of
// compressed bytes to a row (migrations/0015_bill_sources.sql).
var _ gpucost.BillSourceStore = (*DB)(nil)

// PutBillSource stores the bytes r gives under checksum, in one transaction.
func (db *DB) PutBillSource(ctx context.Context, checksum string, r io.Reader) (int64, error) {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("store bill source in %s: %w", db.Path, err)
	}
	defer tx.Rollback()
	var stored int64
	err = tx.QueryRowContext(ctx, `SELECT coalesce(sum(length(data)), 0) FROM bill_sources WHERE checksum = ?`, checksum).Scan(&stored)
	if err != nil || stored > 0 {
		return stored, err
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO bill_sources (checksum, seq, data) VALUES (?, ?, ?)`)
	if err != nil {
		return 0, fmt.Errorf("store bill source in %s: %w", db.Path, err)
	}
	defer stmt.Close()
	stored, err = storeutil.CompressSource(checksum, r, func(seq int, chunk []byte) error {
		_, err := stmt.ExecContext(ctx, checksum, seq, chunk)
		return err
	})
	if err != nil {
		return 0, err
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("store bill source in %s: commit: %w", db.Path, err)
	}
	return stored, nil
}

// BillSource returns the bytes stored under checksum, reading one chunk at a time.
func (db *DB) BillSource(ctx context.Context, checksum string) (io.ReadCloser, error) {
	chunk := func(seq int) ([]byte, bool, error) {
		var b []byte
		err := db.sql.QueryRowContext(ctx, `SELECT data FROM bill_sources WHERE checksum = ? AND seq = ?`, checksum, seq).Scan(&b)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, fmt.Errorf("read bill source %s from %s: %w", checksum, db.Path, err)
		}
		return b, true, nil
	}
	if _, ok, err := chunk(0); err != nil {
		return nil, err
	} else if !ok {
		return nil, gpucost.Errorf(gpucost.ENotFound, "no bill source %s is stored in %s: the file was imported without one (--no-source, or before gpucost kept them); import it again with --replace", checksum, db.Path)
	}
	return storeutil.SourceReader(chunk)
}

// RemoveBillSource deletes the bytes stored under checksum unless an import has that checksum,
// as its own or as one of its parts' (files).
func (db *DB) RemoveBillSource(ctx context.Context, checksum string) (bool, error) {
	res, err := db.sql.ExecContext(ctx, `DELETE FROM bill_sources WHERE checksum = ?
		AND NOT EXISTS (SELECT 1 FROM cost_imports WHERE checksum = ?)
		AND NOT EXISTS (SELECT 1 FROM cost_imports i, json_each(CASE WHEN i.files = '' THEN '[]' ELSE i.files END) AS q
			WHERE json_extract(q.value, '$.checksum') = ?)`, checksum, checksum, checksum)
	if err != nil {
		return false, fmt.Errorf("remove bill source %s from %s: %w", checksum, db.Path, err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}
