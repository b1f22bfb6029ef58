package present

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/enforce"
)

func TestCatalogPrice(t *testing.T) {
	for _, c := range []struct {
		name   string
		m      gpucost.Money
		format string
		want   string
	}{
		{"table USD rounds to cents and tenths", gpucost.USD(2_123_456_789), "table", "$2.123"},
		{"table without currency is USD", gpucost.Money{Nanos: 500_000_000}, "table", "$0.500"},
		{"table other currency", gpucost.Money{Nanos: 1_000_000_000, Currency: "EUR"}, "table", "EUR 1.000"},
		{"csv keeps every digit", gpucost.USD(2_123_456_789), "csv", "2.123456789"},
	} {
		if got := CatalogPrice(c.m, c.format); got != c.want {
			t.Errorf("%s: CatalogPrice(%v, %q) = %q, want %q", c.name, c.m, c.format, got, c.want)
		}
	}
}

func TestCatalogVRAM(t *testing.T) {
	for _, c := range []struct {
		gb     float64
		format string
		want   string
	}{{80, "table", "80 GB"}, {80, "csv", "80"}, {22.5, "json", "22.5"}, {0, "table", ""}} {
		if got := CatalogVRAM(c.gb, c.format); got != c.want {
			t.Errorf("CatalogVRAM(%v, %q) = %q, want %q", c.gb, c.format, got, c.want)
		}
	}
}

func TestCatalogQuery(t *testing.T) {
	for _, c := range []struct {
		q    catalog.Query
		want string
	}{
		{catalog.Query{}, "(no filter)"},
		{catalog.Query{GPU: "H100", SpotOnly: true}, "--gpu H100 --spot"},
		{catalog.Query{Provider: "aws", Region: "us-east-1"}, "--provider aws --region us-east-1"},
	} {
		if got := CatalogQuery(c.q); got != c.want {
			t.Errorf("CatalogQuery(%+v) = %q, want %q", c.q, got, c.want)
		}
	}
}

// TestCatalogSpecsSources checks that a source shared by two models is numbered once and
// that each row cites its sources by number.
func TestCatalogSpecsSources(t *testing.T) {
	got := CatalogSpecs([]gpucost.GPUModel{
		{Name: "A", MIG: []string{"1g.10gb", "3g.40gb", "7g.80gb"}, Source: "sheet A; common"},
		{Name: "B", Source: "common"},
	})
	if ref := got.Rows[0][8]; ref != "[1,2]" {
		t.Errorf("CatalogSpecs: A cites %s, want [1,2]", ref)
	}
	if ref := got.Rows[1][8]; ref != "[2]" {
		t.Errorf("CatalogSpecs: B cites %s, want [2]", ref)
	}
	if mig := got.Rows[0][7]; mig != "1g.10gb … 7g.80gb" {
		t.Errorf("CatalogSpecs: A's MIG profiles = %q, want the smallest and largest", mig)
	}
	want := []string{"Tensor TFLOPS are dense (without sparsity). Sources:", "  [1] sheet A", "  [2] common"}
	if !slices.Equal(got.Notes, want) {
		t.Errorf("CatalogSpecs notes = %q, want %q", got.Notes, want)
	}
}

// TestCatalogImportIssueCap checks that an import lists at most catalogImportMaxIssues issues
// under its table and says how many more JSON holds.
func TestCatalogImportIssueCap(t *testing.T) {
	for _, c := range []struct {
		issues    int
		wantNotes int
		last      string
	}{
		{0, 0, ""},
		{catalogImportMaxIssues, catalogImportMaxIssues, fmt.Sprintf("aws.csv:%d: price: zero", catalogImportMaxIssues)},
		{catalogImportMaxIssues + 5, catalogImportMaxIssues + 1, "… and 5 more issues (--output json lists them all)."},
	} {
		im := &catalog.Import{Name: "aws.csv", Provider: "aws", Rows: 100}
		for i := range c.issues {
			im.Issues = append(im.Issues, gpucost.CatalogIssue{Source: "aws.csv", Line: i + 1, Reason: "price: zero"})
		}
		got := CatalogImport([]*catalog.Import{im}, 3, 1)
		if got.Title != "Imported 4 offers: 3 added, 1 replaced." {
			t.Errorf("CatalogImport title = %q", got.Title)
		}
		if len(got.Notes) != c.wantNotes || (c.wantNotes > 0 && got.Notes[len(got.Notes)-1] != c.last) {
			t.Errorf("CatalogImport with %d issues: %d notes ending %q, want %d ending %q", c.issues, len(got.Notes), got.Notes, c.wantNotes, c.last)
		}
	}
}

func TestBudgetDeliveries(t *testing.T) {
	at := time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name      string
		ds        []gpucost.Delivery
		noStore   bool
		wantRes   []string
		wantNotes []string
	}{
		{"no store", nil, true, nil, []string{"No store file: no alert has been sent yet (gpucost budget check sends them)."}},
		{"none matches", nil, false, nil, []string{"No delivery matches."}},
		{"each outcome", []gpucost.Delivery{
			{At: at, Key: "k", Target: "t", Attempt: 1, OK: true, Status: 200, Duration: 1500 * time.Microsecond},
			{At: at, Key: "k", Target: "u", Attempt: 1},
			{At: at, Key: "k", Target: "u", Attempt: 2, Final: true, Error: "refused"},
		}, false, []string{"delivered", "failed, retried", "failed"}, nil},
	} {
		got := BudgetDeliveries(c.ds, c.noStore)
		var res []string
		for _, row := range got.Rows {
			res = append(res, row[4])
		}
		if !slices.Equal(res, c.wantRes) || !slices.Equal(got.Notes, c.wantNotes) {
			t.Errorf("%s: BudgetDeliveries results %q notes %q, want %q and %q", c.name, res, got.Notes, c.wantRes, c.wantNotes)
		}
		if js, ok := got.JSON.([]BudgetDelivery); !ok || js == nil || len(js) != len(c.ds) {
			t.Errorf("%s: BudgetDeliveries JSON = %#v, want %d deliveries (an empty list, not null)", c.name, got.JSON, len(c.ds))
		}
	}
}

func TestAuditNotes(t *testing.T) {
	two := []gpucost.AuditEntry{{ID: 2, Action: "bill.remove"}, {ID: 1, Action: "token.create"}}
	for _, c := range []struct {
		name    string
		entries []gpucost.AuditEntry
		limit   int
		noStore bool
		want    []string
	}{
		{"no store", nil, 200, true, []string{"No store file: nothing has been audited yet."}},
		{"none matches", nil, 200, false, []string{"No audit entry matches."}},
		{"under the limit", two, 200, false, nil},
		{"at the limit", two, 2, false, []string{"The latest 2 entries; --limit 0 prints them all."}},
		{"no limit", two, 0, false, nil},
	} {
		got := Audit(c.entries, c.limit, c.noStore)
		if !slices.Equal(got.Notes, c.want) || len(got.Rows) != len(c.entries) {
			t.Errorf("%s: Audit(%d entries, limit %d, noStore %v) = %d rows, notes %q; want %q", c.name, len(c.entries), c.limit, c.noStore, len(got.Rows), got.Notes, c.want)
		}
	}
}

func TestEnforceLogTargets(t *testing.T) {
	at := time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC)
	entries := []enforce.LogEntry{
		{At: at, Action: enforce.Action{Policy: "p", Action: "notify", Targets: []string{"a", "b"}, Result: "planned", DryRun: true}},
		{At: at, Action: enforce.Action{Policy: "p", Action: "stop", Resource: &enforce.Ref{ID: "i-1", Kind: enforce.KindEC2}, Result: "done"}},
	}
	got := EnforceLog(entries, false)
	if r := got.Rows[0]; r[3] != "a, b" || r[4] != "targets" || r[6] != "true" {
		t.Errorf("EnforceLog notify row = %q, want its targets, kind targets, dry run true", r)
	}
	if r := got.Rows[1]; r[3] != "i-1" || r[4] != enforce.KindEC2 || r[6] != "false" {
		t.Errorf("EnforceLog stop row = %q, want resource i-1 of kind %s", r, enforce.KindEC2)
	}
	if empty := EnforceLog(nil, false); empty.JSON == nil || !strings.Contains(strings.Join(empty.Notes, ""), "No action matches") {
		t.Errorf("EnforceLog(nil) = JSON %#v notes %q, want an empty list and No action matches", empty.JSON, empty.Notes)
	}
}

func TestEstimatePoliciesJSON(t *testing.T) {
	base := Table{JSON: estimateJSON{Job: "j"}, Notes: []string{"Price: x."}}
	got := EstimatePolicies(base, nil, []string{"Spot caps: none counted."})
	js := got.JSON.(estimateJSON)
	if js.Blocks == nil || len(js.Blocks) != 0 {
		t.Errorf("EstimatePolicies(no block) JSON blocks = %#v, want an empty list, not null", js.Blocks)
	}
	got = EstimatePolicies(base, []enforce.Block{{Policy: "cap", Reason: "spot cap 4 reached"}}, nil)
	if want := []string{"Price: x.", "BLOCKED: spot cap 4 reached."}; !slices.Equal(got.Notes, want) {
		t.Errorf("EstimatePolicies notes = %q, want %q", got.Notes, want)
	}
}
