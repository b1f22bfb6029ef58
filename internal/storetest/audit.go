package storetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// RunAudit runs the cases of gpucost.AuditLog: every entry kept as recorded, read back newest
// first, filtered by time, action (whole or a prefix such as "bill.") and actor, the latest N,
// and incomplete entries and negative limits refused.
func RunAudit(t *testing.T, open Open) {
	for _, c := range []struct {
		name string
		fn   func(*testing.T, Open)
	}{
		{"RoundTrip", testAuditRoundTrip},
		{"Filters", testAuditFilters},
		{"Refusals", testAuditRefusals},
	} {
		t.Run(c.name, func(t *testing.T) { c.fn(t, open) })
	}
}

var auditAt = time.Date(2026, 11, 21, 12, 0, 0, 123_456_789, time.UTC)

func testAuditRoundTrip(t *testing.T, open Open) {
	ctx := context.Background()
	log := open(t)
	want := []gpucost.AuditEntry{
		{At: auditAt, Actor: "cli root@build-1", Action: gpucost.AuditTokenCreate, Target: "token 4 (agents)", Detail: "role agent", Source: "cli"},
		{At: auditAt.Add(time.Second), Actor: "token 3 (ci-admin, admin)", Action: gpucost.AuditBillReplace,
			Target: "import 12 (focus-2026-10.csv)", Detail: "1,204 lines $10,230.00 → 1,210 lines $10,245.50 — ünïcode kept", Source: "10.0.0.7:51234"},
		// The same instant as the one before: the later recorded comes first.
		{At: auditAt.Add(time.Second), Actor: "token 3 (ci-admin, admin)", Action: gpucost.AuditBudgetsReplace, Target: "budgets", Source: "10.0.0.7:51234"},
	}
	var ids []int64
	for _, e := range want {
		e.ID = 999 // ignored
		id, err := log.RecordAudit(ctx, e)
		if err != nil {
			t.Fatalf("RecordAudit(%s %s) = %v", e.Action, e.Target, err)
		}
		ids = append(ids, id)
	}
	if ids[0] >= ids[1] || ids[1] >= ids[2] {
		t.Errorf("ids = %v, want increasing", ids)
	}
	got, err := log.Audit(ctx, gpucost.AuditFilter{})
	if err != nil || len(got) != len(want) {
		t.Fatalf("Audit() = %d entries, %v; want %d", len(got), err, len(want))
	}
	for i, g := range got {
		j := len(want) - 1 - i // newest first
		w := want[j]
		w.ID = ids[j]
		if !g.At.Equal(w.At) || g.At.Location() != time.UTC {
			t.Errorf("entry %d at %v, want %v in UTC", i, g.At, w.At)
		}
		g.At = w.At
		if g != w {
			t.Errorf("entry %d = %+v, want %+v", i, g, w)
		}
	}
}

func testAuditFilters(t *testing.T, open Open) {
	ctx := context.Background()
	log := open(t)
	for i, e := range []gpucost.AuditEntry{
		{Actor: "cli root@h", Action: gpucost.AuditBillReplace, Target: "a"},
		{Actor: "token 3 (ci, admin)", Action: gpucost.AuditBillRemove, Target: "b"},
		{Actor: "token 31 (ops, admin)", Action: gpucost.AuditTokenCreate, Target: "c"},
		{Actor: "token 3 (ci, admin)", Action: gpucost.AuditEnforce, Target: "d"},
		{Actor: "cli root@h", Action: "billing.other", Target: "e"},
	} {
		e.At = auditAt.Add(time.Duration(i) * time.Hour)
		if _, err := log.RecordAudit(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		f    gpucost.AuditFilter
		want string
	}{
		{"all, newest first", gpucost.AuditFilter{}, "e d c b a"},
		{"since", gpucost.AuditFilter{Since: auditAt.Add(3 * time.Hour)}, "e d"},
		{"until", gpucost.AuditFilter{Until: auditAt.Add(2 * time.Hour)}, "b a"},
		{"since and until", gpucost.AuditFilter{Since: auditAt.Add(time.Hour), Until: auditAt.Add(3 * time.Hour)}, "c b"},
		{"action", gpucost.AuditFilter{Action: gpucost.AuditBillRemove}, "b"},
		{"action prefix", gpucost.AuditFilter{Action: "bill."}, "b a"},
		{"action without its dot is whole", gpucost.AuditFilter{Action: "bill"}, ""},
		{"actor whole", gpucost.AuditFilter{Actor: "cli root@h"}, "e a"},
		{"actor leading words", gpucost.AuditFilter{Actor: "token 3"}, "d b"},
		{"actor first word", gpucost.AuditFilter{Actor: "token"}, "d c b"},
		{"actor part of a word", gpucost.AuditFilter{Actor: "tok"}, ""},
		{"latest 2", gpucost.AuditFilter{Limit: 2}, "e d"},
		{"prefix and limit", gpucost.AuditFilter{Action: "bill.", Limit: 1}, "b"},
		{"action and actor", gpucost.AuditFilter{Action: "bill.", Actor: "cli"}, "a"},
		{"none", gpucost.AuditFilter{Action: gpucost.AuditSessionEnd}, ""},
	} {
		got, err := log.Audit(ctx, tc.f)
		if err != nil {
			t.Fatalf("Audit(%s) = %v", tc.name, err)
		}
		var keys []string
		for _, e := range got {
			keys = append(keys, e.Target)
		}
		if s := strings.Join(keys, " "); s != tc.want {
			t.Errorf("Audit(%s) = %q, want %q", tc.name, s, tc.want)
		}
	}
}

func testAuditRefusals(t *testing.T, open Open) {
	ctx := context.Background()
	log := open(t)
	for _, e := range []gpucost.AuditEntry{
		{Actor: "a", Action: gpucost.AuditEnforce, Target: "t"},
		{At: auditAt, Action: gpucost.AuditEnforce, Target: "t"},
		{At: auditAt, Actor: "a", Target: "t"},
	} {
		if _, err := log.RecordAudit(ctx, e); gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("RecordAudit(%+v) = %v, want EInvalid", e, err)
		}
	}
	if got, err := log.Audit(ctx, gpucost.AuditFilter{}); err != nil || len(got) != 0 {
		t.Errorf("after refusals: %d entries, %v; want none", len(got), err)
	}
	if _, err := log.Audit(ctx, gpucost.AuditFilter{Limit: -1}); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("Audit(limit -1) = %v, want EInvalid", err)
	}
}
