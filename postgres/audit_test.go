package postgres_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// TestAuditAppendOnly checks that the schema refuses to change, delete or truncate audit
// entries.
func TestAuditAppendOnly(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	if _, err := db.RecordAudit(ctx, gpucost.AuditEntry{At: at, Actor: "cli root@h", Action: gpucost.AuditTokenCreate, Target: "token 1 (a)"}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`UPDATE audit SET actor = 'someone else'`, `DELETE FROM audit`, `TRUNCATE audit`} {
		if _, err := db.Pool().Exec(ctx, q); err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("%s = %v, want refused as append-only", q, err)
		}
	}
	if got, err := db.Audit(ctx, gpucost.AuditFilter{}); err != nil || len(got) != 1 || got[0].Actor != "cli root@h" {
		t.Errorf("audit = %+v, %v; want the one entry unchanged", got, err)
	}
}
