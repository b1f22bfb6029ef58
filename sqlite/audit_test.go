package sqlite_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/sqlite"
)

// TestAuditAppendOnly checks that the schema refuses to change or delete audit entries, and
// that they outlive the connection.
func TestAuditAppendOnly(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gpucost.db")
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	if _, err := db.RecordAudit(ctx, gpucost.AuditEntry{At: at, Actor: "cli root@h", Action: gpucost.AuditTokenCreate, Target: "token 1 (a)"}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`UPDATE audit SET actor = 'someone else'`, `DELETE FROM audit`} {
		if _, err := db.SQL().ExecContext(ctx, q); err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("%s = %v, want refused as append-only", q, err)
		}
	}
	db.Close()
	db, err = sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got, err := db.Audit(ctx, gpucost.AuditFilter{}); err != nil || len(got) != 1 || got[0].Actor != "cli root@h" {
		t.Errorf("after reopening: audit = %+v, %v; want the one entry unchanged", got, err)
	}
}
