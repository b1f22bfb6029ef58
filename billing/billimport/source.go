package billimport

import (
	"context"
	"errors"
	"os"

	"github.com/gpucost/gpucost"
)

// keepSource stores the file src of the import id, just stored, as its source (by its checksum:
// gpucost.BillSourceStore), so that gpucost export focus --all can give its rows back; the
// stored lines are aggregated. It does nothing with o.NoSource or a Store that keeps no
// sources.
//
// The source is stored after the import, not before: a store drops a source with the last
// import of its checksum, in the transaction that removes or replaces it, so a source stored
// first would be dropped again by a replace of the same file, and one stored for an import that
// then failed would be kept for nothing. An error here leaves the import stored without a
// source, and says so.
func (im *Importer) keepSource(ctx context.Context, src Source, id int64, checksum string, o Options) error {
	st, ok := im.Store.(gpucost.BillSourceStore)
	if !ok || o.NoSource {
		return nil
	}
	f, err := os.Open(src.Path)
	if err == nil {
		defer f.Close()
		_, err = st.PutBillSource(ctx, checksum, f)
	}
	if err != nil {
		return gpucost.Errorf(gpucost.ErrorCode(err), "import %s: stored as import %d, but keeping the file for export focus --all failed: %v; import it again with --replace to keep it", src.Name, id, err)
	}
	return nil
}

// keepSources keeps the file of every import the batch stored (out), each part of a multi-part
// export under its own checksum (CostImport.Files).
func (b *batch) keepSources(ctx context.Context, out []gpucost.CostImport) error {
	var errs []error
	for i, g := range b.groups {
		for _, f := range g {
			if err := b.im.keepSource(ctx, f.src, out[i].ID, b.results[f.res].Checksum, b.o); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}
