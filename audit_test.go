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
