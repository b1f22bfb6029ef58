package postgres_test

import (
	"context"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storetest"
	"github.com/gpucost/gpucost/postgres"
	"github.com/gpucost/gpucost/postgres/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// openDB opens a new, empty database on the test cluster.
func openDB(t testing.TB) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(context.Background(), pgtest.Start(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestStoreSuite runs the suite every gpucost store passes against PostgreSQL.
func TestStoreSuite(t *testing.T) {
	storetest.Run(t, openStore)
}

func openStore(tb testing.TB) gpucost.Store { return openDB(tb) }

// BenchmarkStoreIngest, BenchmarkStorePutCosts and BenchmarkStoreScanCosts run the store suite's
// benchmarks, the same as sqlite runs, for comparison:
// go test ./postgres -run XXX -bench Store -benchtime 3x
func BenchmarkStoreIngest(b *testing.B) { storetest.BenchIngest(b, openStore) }

func BenchmarkStorePutCosts(b *testing.B) { storetest.BenchPutCosts(b, openStore, 1000) }

func BenchmarkStoreScanCosts(b *testing.B) { storetest.BenchScanCosts(b, openStore, 1000) }

func BenchmarkStoreScanHours(b *testing.B) { storetest.BenchScanHours(b, openStore, 200) }

// BenchmarkStoreTokenByHash is the token lookup of every authenticated request, 1,000 tokens
// stored: go test -run XXX -bench StoreTokenByHash
func BenchmarkStoreTokenByHash(b *testing.B) { storetest.BenchTokenByHash(b, openStore, 1000) }
