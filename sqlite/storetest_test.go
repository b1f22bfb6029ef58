package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storetest"
	"github.com/gpucost/gpucost/sqlite"
)

// TestStoreSuite runs the suite every gpucost store passes against SQLite.
func TestStoreSuite(t *testing.T) {
	storetest.Run(t, openStore)
}

// openStore opens a new SQLite store in a temporary folder.
func openStore(tb testing.TB) gpucost.Store {
	db, err := sqlite.Open(context.Background(), filepath.Join(tb.TempDir(), "gpucost.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// BenchmarkStoreIngest, BenchmarkStorePutCosts and BenchmarkStoreScanCosts run the store suite's
// benchmarks, the same as postgres runs, for comparison:
// go test ./sqlite -run XXX -bench Store -benchtime 3x
// BenchmarkStoreIngest is samples → telemetry.Writer → rollups → a SQLite file, end to end, for
// 1,000 GPUs × 1 h at a 10 s interval; the target is ≥ 200 k samples/s.
func BenchmarkStoreIngest(b *testing.B) { storetest.BenchIngest(b, openStore) }

func BenchmarkStorePutCosts(b *testing.B) { storetest.BenchPutCosts(b, openStore, 1000) }

func BenchmarkStoreScanCosts(b *testing.B) { storetest.BenchScanCosts(b, openStore, 1000) }

func BenchmarkStoreScanHours(b *testing.B) { storetest.BenchScanHours(b, openStore, 200) }

// BenchmarkStoreTokenByHash is the token lookup of every authenticated request, 1,000 tokens
// stored: go test -run XXX -bench StoreTokenByHash
func BenchmarkStoreTokenByHash(b *testing.B) { storetest.BenchTokenByHash(b, openStore, 1000) }
