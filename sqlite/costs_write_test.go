package sqlite

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storetest"
)

// The chunks PutCosts writes, gathered on the caller's goroutine and encoded and inserted on the
// writer's, are the bytes one goroutine encoding line after line gives: over several chunks,
// a chunk ended by its strings' bytes, the import's dictionary started afresh and maps changed
// in place between lines.
func TestChunkWriterBytes(t *testing.T) {
	const n = 3*costChunkLines + 100 // about 28 new strings a line: the dictionary restarts
	want, _ := encodeLines(n, 0, 0, storetest.NewLineGen(5, 0, nulString).Line)
	restarts := 0
	for _, c := range want {
		restarts += int(c.strs[0] & 1)
	}
	if restarts == 0 {
		t.Fatalf("%d chunks, none starting the dictionary afresh: the test needs more strings", len(want))
	}

	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "gpucost.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	g := storetest.NewLineGen(5, 0, nulString)
	lines := func(yield func(*gpucost.CostLine) bool) {
		for range n {
			l := g.Line()
			if !yield(&l) {
				return
			}
		}
	}
	imp := gpucost.CostImport{Name: "bill.csv", Checksum: "c", Format: "focus", Grain: 24 * time.Hour}
	stored, err := db.PutCosts(ctx, imp, lines, nil)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.sql.QueryContext(ctx, `SELECT seq, min_start, max_start, strings, data FROM cost_chunks WHERE import_id = ? ORDER BY seq`, stored.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	i := 0
	for ; rows.Next(); i++ {
		var seq int
		var got encodedChunk
		if err := rows.Scan(&seq, &got.minStart, &got.maxStart, &got.strs, &got.data); err != nil {
			t.Fatal(err)
		}
		if i >= len(want) {
			continue
		}
		w := want[i]
		if seq != i || got.minStart != w.minStart || got.maxStart != w.maxStart || !bytes.Equal(got.strs, w.strs) || !bytes.Equal(got.data, w.data) {
			t.Fatalf("chunk %d (seq %d, starts %d–%d, %d and %d bytes) differs from the one-goroutine encoding's (starts %d–%d, %d and %d bytes)",
				i, seq, got.minStart, got.maxStart, len(got.strs), len(got.data), w.minStart, w.maxStart, len(w.strs), len(w.data))
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if i != len(want) || len(want) < 4 {
		t.Errorf("%d chunks stored, want %d (at least 4)", i, len(want))
	}
}
