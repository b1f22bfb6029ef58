package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/billimport"
	"github.com/gpucost/gpucost/billing/focus"
)

// Every reader's test files import through --format auto, each detected as its format, with
// the reader's own totals. bq_query.json bills the billing account's month detailed_export.jsonl
// bills, so it goes in with --replace, as a restatement would.
func TestImportBillingDetectsEveryFormat(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ file, format string }{
		{"../../billing/awscur/testdata/cur2_sample.csv", "aws-cur"},
		{"../../billing/awscur/testdata/legacy_cur.csv", "aws-cur"},
		{"../../billing/azure/testdata/ea_amortized.csv", "azure"},
		{"../../billing/azure/testdata/mca_actual_eur.csv", "azure"},
		{"../../billing/gcp/testdata/detailed_export.jsonl", "gcp"},
		{"../../billing/gcp/testdata/bq_query.json", "gcp"},
		{"../../billing/gcp/testdata/standard_export_eur.csv", "gcp"},
	} {
		args := []string{tc.file}
		if strings.HasSuffix(tc.file, "bq_query.json") {
			args = append(args, "--replace")
		}
		files, code, errOut := importJSON(t, dir, args...)
		if code != exitOK || len(files) != 1 || files[0].Rows == 0 {
			t.Errorf("%s: exit %d, %+v\n%s", tc.file, code, files, errOut)
			continue
		}
		if got, _ := billimport.Detect(tc.file, tc.file); got != tc.format {
			t.Errorf("%s detected as %q, want %q", tc.file, got, tc.format)
		}
	}
	code, out, errOut := runCLI(t, dir, "report", "cost", "--by", "provider", "--since", "3650d", "--gpu-only")
	if code != exitOK {
		t.Fatalf("report cost: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"AWS", "Microsoft", "Google Cloud", "EUR", "USD", "reconcile with them to the cent"} {
		if !strings.Contains(out, want) {
			t.Errorf("report cost --by provider lacks %q:\n%s", want, out)
		}
	}
}

// An inventory ties bill resources to telemetry hosts; a bad value names file, line and column.
func TestImportInventory(t *testing.T) {
	dir := t.TempDir()
	inv := filepath.Join(dir, "fleet.csv")
	os.WriteFile(inv, []byte("resource_id,host,instance_type,gpus,team\ni-1,node-1,p4d.24xlarge,8,ml\ni-2,node-2,g5.xlarge,1,\n"), 0o644)
	code, out, errOut := runCLI(t, dir, "import", "inventory", inv)
	if code != exitOK || !strings.Contains(out, "2") {
		t.Fatalf("import inventory: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = runCLI(t, dir, "import", "inventory", inv, "--output", "csv")
	if code != exitOK || !strings.Contains(out, ",2,0,2") {
		t.Errorf("second import: exit %d, want both replaced:\n%s", code, out)
	}
	os.WriteFile(inv, []byte("resource_id,host,gpus\ni-1,node-1,eight\n"), 0o644)
	code, _, errOut = runCLI(t, dir, "import", "inventory", inv)
	if code != exitInvalid || !strings.Contains(errOut, "fleet.csv:2:3") {
		t.Errorf("bad gpus: exit %d, %q; want file:line and column", code, errOut)
	}
	os.WriteFile(inv, []byte("instance,host\ni-1,node-1\n"), 0o644)
	code, _, errOut = runCLI(t, dir, "import", "inventory", inv)
	if code != exitInvalid || !strings.Contains(errOut, "resource_id") {
		t.Errorf("no resource_id column: exit %d, %q", code, errOut)
	}
}

// writeBill writes a FOCUS file of daily GPU lines: three teams at steady cost and, on one day,
// a spike on one team's instance.
func writeBill(t *testing.T, path string, days int, spikeDay int, from time.Time) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := focus.NewWriter(f, focus.WriterOptions{Format: focus.CSV})
	if err != nil {
		t.Fatal(err)
	}
	for d := range days {
		for i, team := range []string{"ml", "search", "vision"} {
			cost := fmt.Sprintf("%d.%02d", 500+i*100+d%3, d%7)
			if d == spikeDay && team == "vision" {
				cost = "2400.00"
			}
			m, _ := gpucost.ParseMoney(cost, "USD")
			day := from.AddDate(0, 0, d)
			l := gpucost.CostLine{Provider: "AWS", SubAccountID: "1234", ChargeCategory: "Usage", PricingCategory: "Standard",
				ChargePeriodStart: day, ChargePeriodEnd: day.AddDate(0, 0, 1), BilledCost: m, EffectiveCost: m, ListCost: m, ContractedCost: m,
				ResourceID: "i-" + team, ServiceName: "Amazon Elastic Compute Cloud", SkuID: "SKU-P4D",
				ChargeDescription: "$21.96 per On Demand Linux p4d.24xlarge Instance Hour", ConsumedQuantity: 24, ConsumedUnit: "Hours",
				Tags: gpucost.Labels{"team": team}}
			if err := w.Write(&l); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// A spike on one day is found with the resource that drove it; KPIs read request counts.
func TestReportAnomaliesAndKPI(t *testing.T) {
	dir := t.TempDir()
	from := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	bill := filepath.Join(dir, "bill.csv")
	writeBill(t, bill, 60, 50, from) // runCLI's now is 2026-12-02: day 50 is 2026-11-20
	if _, code, errOut := importJSON(t, dir, bill); code != exitOK {
		t.Fatalf("import: exit %d\n%s", code, errOut)
	}
	code, out, errOut := runCLI(t, dir, "report", "anomalies", "--by", "team", "--since", "30d")
	if code != exitOK {
		t.Fatalf("report anomalies: exit %d\n%s", code, errOut)
	}
	t.Log(out)
	if !strings.Contains(out, "2026-11-20") || !strings.Contains(out, "vision") || !strings.Contains(out, "i-vision") || strings.Contains(out, "search") {
		t.Errorf("report anomalies: want the vision spike on 2026-11-20 alone, driven by i-vision:\n%s", out)
	}
	reqs := filepath.Join(dir, "requests.csv")
	os.WriteFile(reqs, []byte("date,team,requests\n2026-11-10,ml,1000000\n2026-11-11,ml,1000000\n2026-01-01,ml,5\n"), 0o644)
	code, out, errOut = runCLI(t, dir, "report", "kpi", "--by", "team", "--since", "30d", "--requests", reqs, "--output", "csv")
	if code != exitOK {
		t.Fatalf("report kpi: exit %d\n%s", code, errOut)
	}
	t.Log(out)
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "ml,") && !strings.Contains(line, ",2000000,") {
			t.Errorf("kpi ml row %q: want the period's 2,000,000 requests", line)
		}
	}
	os.WriteFile(reqs, []byte("team,requests\nml,many\n"), 0o644)
	code, _, errOut = runCLI(t, dir, "report", "kpi", "--since", "30d", "--requests", reqs)
	if code != exitInvalid || !strings.Contains(errOut, "requests.csv:2:2") {
		t.Errorf("bad requests: exit %d, %q", code, errOut)
	}
}

// A truncated Parquet bill fails, naming the file, and leaves nothing stored; the whole file
// imports.
func TestImportBillingTruncatedParquet(t *testing.T) {
	dir := t.TempDir()
	csvBill := filepath.Join(dir, "bill.csv")
	writeBill(t, csvBill, 20, -1, time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC))
	var lines []gpucost.CostLine
	if _, err := focus.ReadFile(csvBill, func(l *gpucost.CostLine) error { lines = append(lines, focus.Clone(l)); return nil }); err != nil {
		t.Fatal(err)
	}
	pq := filepath.Join(dir, "bill.parquet")
	f, _ := os.Create(pq)
	w, err := focus.NewWriter(f, focus.WriterOptions{Format: focus.Parquet})
	if err != nil {
		t.Fatal(err)
	}
	for i := range lines {
		w.Write(&lines[i])
	}
	w.Close()
	f.Close()
	data, _ := os.ReadFile(pq)
	cut := filepath.Join(dir, "cut.parquet")
	os.WriteFile(cut, data[:len(data)*2/3], 0o644)
	_, code, errOut := importJSON(t, dir, "--format", "focus", cut)
	if code != exitInvalid || !strings.Contains(errOut, "cut.parquet") {
		t.Errorf("truncated Parquet: exit %d, %q; want %d naming the file", code, errOut, exitInvalid)
	}
	if code, _, _ := runCLI(t, dir, "report", "cost", "--since", "3650d"); code != exitNotFound {
		t.Errorf("after the failed import report cost exits %d, want %d: nothing stored", code, exitNotFound)
	}
	files, code, errOut := importJSON(t, dir, pq)
	if code != exitOK || files[0].Rows != 60 {
		t.Errorf("whole Parquet: exit %d, %+v\n%s", code, files, errOut)
	}
}
