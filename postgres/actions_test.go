package postgres_test

import (
	"testing"

	"github.com/gpucost/gpucost/enforce"
	"github.com/gpucost/gpucost/internal/storetest"
)

// TestActionLog runs the store suite's action log cases against PostgreSQL.
func TestActionLog(t *testing.T) {
	storetest.RunActions(t, func(tb testing.TB) enforce.ActionLog { return openDB(tb).ActionLog() })
}
