package billing

import (
	"io"

	"github.com/gpucost/gpucost/billing/internal/pqcheck"
)

// ParquetDecodedSize returns what a Parquet bill holds once its pages are decompressed, having
// checked its footer and every page header against the readers' limits: the size the upload
// limits weigh a Parquet bill by, as they weigh a gzip bill by what it decompresses to.
func ParquetDecodedSize(r io.ReaderAt, size int64) (int64, error) {
	return pqcheck.Decoded(r, size)
}
