package gpucost

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestBillIdentityKey(t *testing.T) {
	oct := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	line := func(provider, account string, period time.Time) CostLine {
		return CostLine{Provider: provider, BillingAccountID: account, BillingPeriodStart: period, ChargePeriodStart: oct.Add(36 * time.Hour)}
	}
	key := func(format string, lines ...CostLine) string {
		var b BillIdentity
		for i := range lines {
			b.Add(&lines[i])
		}
		return b.Key(format)
	}
	a, b := line("AWS", "111", oct), line("AWS", "222", oct)
	base := key("focus", a, b)
	for _, tc := range []struct {
		name string
		key  string
		same bool
	}{
		{"lines in another order, provider in other case", key("focus", b, a, line("aws", "111", oct)), true},
		{"another format", key("aws-cur", a, b), false},
		{"another billing account", key("focus", a), false},
		{"another billing period", key("focus", a, line("AWS", "222", oct.AddDate(0, 1, 0))), false},
		{"no billing period: the charge month", key("focus", line("AWS", "111", time.Time{}), line("AWS", "222", time.Time{})), true},
	} {
		if (tc.key == base) != tc.same {
			t.Errorf("%s: key %s, base %s; want same = %v", tc.name, tc.key, base, tc.same)
		}
	}
	if !strings.HasPrefix(base, "b2-") || len(base) != 3+64 {
		t.Errorf("Key = %q, want b2- and 64 hex digits", base)
	}
	if got := key("focus"); got != "" {
		t.Errorf("Key of no lines = %q, want none", got)
	}
}

func TestBillIdentityDescribe(t *testing.T) {
	oct, nov := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	lines := []CostLine{
		{Provider: "AWS", BillingAccountID: "222", BillingPeriodStart: nov, ChargePeriodStart: nov, ChargePeriodEnd: nov.Add(time.Hour)},
		{Provider: "AWS", BillingAccountID: "111", BillingPeriodStart: oct, ChargePeriodStart: oct.Add(time.Hour), ChargePeriodEnd: oct.Add(2 * time.Hour)},
		{Provider: "Microsoft", BillingAccountID: "111", ChargePeriodStart: nov.Add(-time.Hour), ChargePeriodEnd: nov},
	}
	var b BillIdentity
	for i := range lines {
		b.Add(&lines[i])
	}
	var imp CostImport
	b.Describe(&imp, "focus")
	want := []BillCoverage{{"111", oct}, {"222", nov}}
	if !reflect.DeepEqual(imp.Coverage, want) || !reflect.DeepEqual(imp.Providers, []string{"aws", "microsoft"}) ||
		!imp.ChargeFrom.Equal(oct.Add(time.Hour)) || !imp.ChargeTo.Equal(nov.Add(time.Hour)) || imp.Identity != b.Key("focus") {
		t.Errorf("Describe = %v %v %s–%s %s, want %v [aws microsoft] %s–%s", imp.Providers, imp.Coverage, imp.ChargeFrom, imp.ChargeTo, imp.Identity,
			want, oct.Add(time.Hour), nov.Add(time.Hour))
	}
	if got := imp.Accounts(); !reflect.DeepEqual(got, []string{"111", "222"}) {
		t.Errorf("Accounts() = %v", got)
	}
	if got := imp.Periods(); !reflect.DeepEqual(got, []time.Time{oct, nov}) {
		t.Errorf("Periods() = %v", got)
	}
	other := CostImport{Coverage: []BillCoverage{{"222", nov}, {"333", nov}}}
	if got := imp.Overlap(other); !reflect.DeepEqual(got, []BillCoverage{{"222", nov}}) || got[0].String() != "222 2026-11" {
		t.Errorf("Overlap = %v, want [222 2026-11]", got)
	}
	if got := PeriodLabel(oct.Add(24 * time.Hour)); got != "2026-10-02T00:00:00Z" {
		t.Errorf("PeriodLabel(a mid-month start) = %q", got)
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
