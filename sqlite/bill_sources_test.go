package sqlite_test

import (
	"testing"

	"github.com/gpucost/gpucost/internal/storetest"
)

// TestBillSources runs the suite's cases of gpucost.BillSourceStore against SQLite.
func TestBillSources(t *testing.T) { storetest.RunBillSources(t, openStore) }
