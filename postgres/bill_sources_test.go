package postgres_test

import (
	"testing"

	"github.com/gpucost/gpucost/internal/storetest"
)

// TestBillSources runs the suite's cases of gpucost.BillSourceStore against PostgreSQL.
func TestBillSources(t *testing.T) { storetest.RunBillSources(t, openStore) }
