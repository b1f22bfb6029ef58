package storetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/gpucost/gpucost"
)

// RunBillSources runs the cases of gpucost.BillSourceStore. Stores call it from a test of
// their own (sqlite/bill_sources_test.go, postgres/bill_sources_test.go).
func RunBillSources(t *testing.T, open Open) {
	for _, c := range []struct {
		name string
		fn   func(*testing.T, Open)
	}{
		{"RoundTrip", testBillSourceRoundTrip},
		{"StoredOnce", testBillSourceStoredOnce},
		{"WrongChecksum", testBillSourceWrongChecksum},
		{"LivesWithItsImport", testBillSourceLivesWithItsImport},
		{"PartsLiveWithTheirImport", testBillSourcePartsLiveWithTheirImport},
	} {
		t.Run(c.name, func(t *testing.T) { c.fn(t, open) })
	}
}

// sourceBytes returns about n bytes of bill-like CSV (random resources and amounts), which
// compresses about 3:1, and their checksum.
func sourceBytes(seed uint64, n int) ([]byte, string) {
	rng := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, 0, n+64)
	for len(b) < n {
		b = fmt.Appendf(b, "2024-09-%02d,i-%08x,%d.%09d,USD,Usage\n", 1+rng.IntN(28), rng.Uint32(), rng.IntN(100), rng.IntN(1e9))
	}
	b = b[:n]
	sum := sha256.Sum256(b)
	return b, hex.EncodeToString(sum[:])
}

func readSource(t *testing.T, db gpucost.BillSourceStore, sum string) ([]byte, error) {
	t.Helper()
	rc, err := db.BillSource(context.Background(), sum)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// testBillSourceRoundTrip stores files of 0 bytes, one chunk and several chunks (8 MiB of bill
// text compress to more than the 1 MiB of a chunk) and reads them back.
func testBillSourceRoundTrip(t *testing.T, open Open) {
	db := open(t)
	for _, n := range []int{0, 1000, 8 << 20} {
		b, sum := sourceBytes(uint64(n), n)
		stored, err := db.PutBillSource(context.Background(), sum, bytes.NewReader(b))
		if err != nil {
			t.Fatalf("PutBillSource(%d bytes) = %v", n, err)
		}
		if stored <= 0 || n > 1000 && (stored >= int64(n)/2 || stored <= 1<<20) {
			t.Errorf("PutBillSource(%d bytes) stored %d bytes, want more than 0, and for 8 MiB less than half and more than a chunk", n, stored)
		}
		got, err := readSource(t, db, sum)
		if err != nil || !bytes.Equal(got, b) {
			t.Errorf("BillSource(%d bytes) = %d bytes, %v; want the bytes stored", n, len(got), err)
		}
	}
	if _, err := db.BillSource(context.Background(), "nothing"); gpucost.ErrorCode(err) != gpucost.ENotFound {
		t.Errorf("BillSource(not stored) = %v, want not found", err)
	}
}

// failReader fails the test's read: a source stored already is not read again.
type failReader struct{}

func (failReader) Read([]byte) (int, error) { return 0, errors.New("read a stored source again") }

func testBillSourceStoredOnce(t *testing.T, open Open) {
	db := open(t)
	b, sum := sourceBytes(1, 3000)
	first, err := db.PutBillSource(context.Background(), sum, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	again, err := db.PutBillSource(context.Background(), sum, failReader{})
	if err != nil || again != first {
		t.Errorf("PutBillSource(stored already) = %d, %v; want %d and nothing read", again, err, first)
	}
}

func testBillSourceWrongChecksum(t *testing.T, open Open) {
	db := open(t)
	b, _ := sourceBytes(2, 3000)
	_, other := sourceBytes(3, 10)
	if _, err := db.PutBillSource(context.Background(), other, bytes.NewReader(b)); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Fatalf("PutBillSource(bytes of another checksum) = %v, want invalid", err)
	}
	if _, err := readSource(t, db, other); gpucost.ErrorCode(err) != gpucost.ENotFound {
		t.Errorf("BillSource after a refused put = %v, want not found", err)
	}
}

// testBillSourceLivesWithItsImport checks that a source goes with the last import of its
// checksum, removed or replaced, and that RemoveBillSource keeps a source an import has.
func testBillSourceLivesWithItsImport(t *testing.T, open Open) {
	ctx := context.Background()
	db := open(t)
	put := func(seed uint64) string {
		b, sum := sourceBytes(seed, 2000)
		if _, err := db.PutBillSource(ctx, sum, bytes.NewReader(b)); err != nil {
			t.Fatal(err)
		}
		return sum
	}
	has := func(sum string) bool {
		_, err := readSource(t, db, sum)
		if err != nil && gpucost.ErrorCode(err) != gpucost.ENotFound {
			t.Fatal(err)
		}
		return err == nil
	}
	lines := BillLines(2, 2)
	a, b, orphan := put(10), put(11), put(12)
	impA, err := db.PutCosts(ctx, gpucost.CostImport{Name: "a.csv", Checksum: a}, SeqOf(lines), nil)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := db.RemoveBillSource(ctx, a); ok || err != nil || !has(a) {
		t.Errorf("RemoveBillSource(source of an import) = %v, %v; want it kept", ok, err)
	}
	if ok, err := db.RemoveBillSource(ctx, orphan); !ok || err != nil || has(orphan) {
		t.Errorf("RemoveBillSource(source of no import) = %v, %v; want it removed", ok, err)
	}
	// Replacing import a by the same file keeps the source; by another file, drops it.
	impA2, err := db.PutCosts(ctx, gpucost.CostImport{Name: "a.csv", Checksum: a}, SeqOf(lines), []int64{impA.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.PutBillSource(ctx, a, bytes.NewReader(mustBytes(10))); err != nil || !has(a) {
		t.Fatalf("source of a file imported again with replace: %v, kept %v", err, has(a))
	}
	impB, err := db.PutCosts(ctx, gpucost.CostImport{Name: "a.csv", Checksum: b}, SeqOf(lines), []int64{impA2.ID})
	if err != nil {
		t.Fatal(err)
	}
	if has(a) || !has(b) {
		t.Errorf("after replacing import a by b: source a kept %v, b kept %v; want only b", has(a), has(b))
	}
	if _, err := db.RemoveCosts(ctx, impB.ID); err != nil {
		t.Fatal(err)
	}
	if has(b) {
		t.Error("RemoveCosts kept the source of the import removed")
	}
}

// testBillSourcePartsLiveWithTheirImport checks that the sources of a multi-part import's parts
// (CostImport.Files) are kept while it is stored and go with it.
func testBillSourcePartsLiveWithTheirImport(t *testing.T, open Open) {
	ctx := context.Background()
	db := open(t)
	var files []gpucost.ImportFile
	for i, seed := range []uint64{20, 21} {
		b, sum := sourceBytes(seed, 2000)
		if _, err := db.PutBillSource(ctx, sum, bytes.NewReader(b)); err != nil {
			t.Fatal(err)
		}
		files = append(files, gpucost.ImportFile{Name: fmt.Sprintf("export-%05d.csv", i+1), Checksum: sum})
	}
	imp, err := db.PutCosts(ctx, gpucost.CostImport{Name: "export", Checksum: "parts-1", Files: files}, SeqOf(BillLines(2, 2)), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if ok, err := db.RemoveBillSource(ctx, f.Checksum); ok || err != nil {
			t.Errorf("RemoveBillSource(a part of a stored import) = %v, %v; want it kept", ok, err)
		}
		if _, err := readSource(t, db, f.Checksum); err != nil {
			t.Errorf("BillSource(%s) while its import is stored = %v", f.Name, err)
		}
	}
	if _, err := db.RemoveCosts(ctx, imp.ID); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if _, err := readSource(t, db, f.Checksum); gpucost.ErrorCode(err) != gpucost.ENotFound {
			t.Errorf("BillSource(%s) after its import's removal = %v, want not found", f.Name, err)
		}
	}
}

func mustBytes(seed uint64) []byte {
	b, _ := sourceBytes(seed, 2000)
	return b
}
