package gpucost

import (
	"strings"
	"testing"
	"time"
)

func TestBillIdentityKey(t *testing.T) {
	oct := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	line := func(provider, account string, period time.Time) CostLine {
		return CostLine{Provider: provider, BillingAccountID: account, BillingPeriodStart: period, ChargePeriodStart: oct.Add(36 * time.Hour)}
	}
	key := func(format, name string, lines ...CostLine) string {
		var b BillIdentity
		for i := range lines {
			b.Add(&lines[i])
		}
		return b.Key(format, name)
	}
	a, b := line("AWS", "111", oct), line("AWS", "222", oct)
	base := key("focus", "focus-2026-10.csv", a, b)
	for _, tc := range []struct {
		name string
		key  string
		same bool
	}{
		{"another folder, gzip, lines in another order, provider in other case", key("focus", `C:\exports\focus-2026-10.csv.gz`, b, a, line("aws", "111", oct)), true},
		{"a path on the server", key("focus", "/var/lib/gpucost/../x/focus-2026-10.csv", a, b), true},
		{"another part of the export", key("focus", "focus-2026-10-00002.csv", a, b), false},
		{"another format", key("aws-cur", "focus-2026-10.csv", a, b), false},
		{"another billing account", key("focus", "focus-2026-10.csv", a), false},
		{"another billing period", key("focus", "focus-2026-10.csv", a, line("AWS", "222", oct.AddDate(0, 1, 0))), false},
		{"no billing period: the charge month", key("focus", "focus-2026-10.csv", line("AWS", "111", time.Time{}), line("AWS", "222", time.Time{})), true},
	} {
		if (tc.key == base) != tc.same {
			t.Errorf("%s: key %s, base %s; want same = %v", tc.name, tc.key, base, tc.same)
		}
	}
	if !strings.HasPrefix(base, "b1-") || len(base) != 3+64 {
		t.Errorf("Key = %q, want b1- and 64 hex digits", base)
	}
}

func TestBillLabel(t *testing.T) {
	for in, want := range map[string]string{
		"focus.csv": "focus.csv", "a/b/focus.csv.gz": "focus.csv", `C:\x\cur-00001.csv.gz`: "cur-00001.csv",
		"../..": "bill", "/": "bill", "": "bill",
	} {
		if got := BillLabel(in); got != want {
			t.Errorf("BillLabel(%q) = %q, want %q", in, got, want)
		}
	}
}
