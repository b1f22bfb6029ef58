package gpucost

import "testing"

func TestCheckAuditAction(t *testing.T) {
	for _, tc := range []struct {
		action string
		ok     bool
	}{
		{"", true},
		{AuditBillReplace, true},
		{"bill.", true},
		{"token.", true},
		{AuditEnforce, true},
		{"bill", false},
		{"bills.", false},
		{"enforce.", false},
		{"BILL.REPLACE", false},
	} {
		if err := CheckAuditAction(tc.action); (err == nil) != tc.ok || err != nil && ErrorCode(err) != EInvalid {
			t.Errorf("CheckAuditAction(%q) = %v, want ok %v (else EInvalid)", tc.action, err, tc.ok)
		}
	}
}

func TestAuditFilterWhere(t *testing.T) {
	arg := func(v any) string { return "?" }
	for _, tc := range []struct {
		name string
		f    AuditFilter
		want string
	}{
		{"all", AuditFilter{}, ""},
		{"action", AuditFilter{Action: AuditEnforce}, " AND action = ?"},
		{"prefix", AuditFilter{Action: "bill."}, " AND substr(action, 1, ?) = ?"},
		{"actor", AuditFilter{Actor: "cli"}, " AND (actor = ? OR substr(actor, 1, ?) = ?)"},
	} {
		if got, err := tc.f.Where(arg); err != nil || got != tc.want {
			t.Errorf("Where(%s) = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	if _, err := (AuditFilter{Limit: -1}).Where(arg); ErrorCode(err) != EInvalid {
		t.Errorf("Where(limit -1) = %v, want EInvalid", err)
	}
}
