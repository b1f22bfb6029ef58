package gpucost

import (
	"context"
	"io"
)

// BillSourceStore keeps the bytes of the bill files imported, so that gpucost export focus --all
// can give back every column of every row, where the cost lines are aggregated (day × resource
// × SKU …) and keep only what the reports need. A source is addressed by its SHA-256
// (CostImport.Checksum), so storing it is independent of the import's transaction and storing
// the same file twice keeps one copy. Stores keep it compressed, in bounded chunks: neither
// writing nor reading holds a whole file in memory.
type BillSourceStore interface {
	// PutBillSource stores the bytes r gives under checksum, the hex SHA-256 of those bytes,
	// and returns how many bytes the store holds for them (compressed). Storing a checksum
	// stored already reads nothing and changes nothing. Bytes whose SHA-256 is not checksum
	// are an EInvalid and are not stored.
	PutBillSource(ctx context.Context, checksum string, r io.Reader) (stored int64, err error)

	// BillSource returns the bytes stored under checksum, as a stream to close. A checksum not
	// stored is an ENotFound.
	BillSource(ctx context.Context, checksum string) (io.ReadCloser, error)

	// RemoveBillSource deletes the bytes stored under checksum unless a stored import has that
	// checksum, and reports whether it deleted them. Removing or replacing an import deletes
	// its source within the same transaction when no other import has it; this is for a
	// source stored for an import that then failed.
	RemoveBillSource(ctx context.Context, checksum string) (bool, error)
}
