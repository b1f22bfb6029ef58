package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/fleet"
	"github.com/spf13/cobra"
)

// sampleRows returns the FOCUS sample's header and rows.
func sampleRows(t *testing.T) ([]string, [][]string) {
	t.Helper()
	f, err := os.Open(focusSample)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows[0], rows[1:]
}

// billedSums sums the BilledCost and EffectiveCost of the rows keep accepts, read from the CSV
// apart from gpucost's readers and store.
func billedSums(t *testing.T, header []string, rows [][]string, keep func(get func(string) string) bool) (billed, effective gpucost.Money) {
	t.Helper()
	get := func(row []string) func(string) string {
		return func(col string) string { return row[slices.Index(header, col)] }
	}
	billed, effective = gpucost.USD(0), gpucost.USD(0)
	for _, r := range rows {
		g := get(r)
		if !keep(g) {
			continue
		}
		b, err := gpucost.ParseMoney(g("BilledCost"), "USD")
		if err != nil {
			t.Fatal(err)
		}
		e, err := gpucost.ParseMoney(g("EffectiveCost"), "USD")
		if err != nil {
			t.Fatal(err)
		}
		billed, effective = billed.Add(b), effective.Add(e)
	}
	return billed, effective
}

// costTotals runs report cost --output json with args and returns its USD totals and lines.
func costTotals(t *testing.T, dir string, args ...string) (billed, effective string, lines int) {
	t.Helper()
	code, out, errOut := runCLI(t, dir, append([]string{"report", "cost", "--by", "provider", "--output", "json"}, args...)...)
	if code != exitOK {
		t.Fatalf("report cost %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
	}
	var rep struct {
		Scan   struct{ Lines int }
		Totals []struct {
			Currency      string
			BilledCost    string `json:"billed_cost"`
			EffectiveCost string `json:"effective_cost"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Totals) != 1 || rep.Totals[0].Currency != "USD" {
		t.Fatalf("report cost %s: %v, totals %+v; want USD alone", strings.Join(args, " "), err, rep.Totals)
	}
	return rep.Totals[0].BilledCost, rep.Totals[0].EffectiveCost, rep.Scan.Lines
}

// importBill writes rows under header to dir/name.csv and imports it into dir's store.
func importBill(t *testing.T, dir, name string, header []string, rows [][]string) {
	t.Helper()
	path := filepath.Join(dir, name+".csv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(f)
	w.Write(header)
	w.WriteAll(rows)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI(t, dir, "import", "billing", path); code != exitOK {
		t.Fatalf("import billing %s: exit %d\n%s", path, code, errOut)
	}
}

// The FOCUS sample's lines are billed in September 2024 but one, an Oracle line charged on
// September 30th and billed in October. Dates select by charge period, --month and --quarter
// by billing period, each with the sums of the file's rows.
func TestPeriodFlagsOverFOCUSSample(t *testing.T) {
	needSample(t)
	header, rows := sampleRows(t)
	dir := t.TempDir()
	importBill(t, dir, "focus", header, rows)
	all := func(func(string) string) bool { return true }
	billedIn := func(month string) func(func(string) string) bool {
		return func(get func(string) string) bool { return strings.HasPrefix(get("BillingPeriodStart"), month) }
	}
	allB, allE := billedSums(t, header, rows, all)
	sepB, sepE := billedSums(t, header, rows, billedIn("2024-09"))
	octB, octE := billedSums(t, header, rows, billedIn("2024-10"))
	if sepB == allB || octB.IsZero() {
		t.Fatalf("the sample has %v billed in September of %v, %v in October: want a line billed in October", sepB, allB, octB)
	}
	tests := []struct {
		args              []string
		billed, effective gpucost.Money
		lines             int
	}{
		{[]string{"--since", "2024-09-01", "--until", "2024-09-30"}, allB, allE, 1000},
		{[]string{"--since", "2024-09-01T00:00:00Z", "--until", "2024-10-01T00:00:00Z"}, allB, allE, 1000},
		{[]string{"--since", "2024-08-01", "--until", "2024-10-31"}, allB, allE, 1000},
		{[]string{"--since", "30d", "--until", "2024-09-30"}, allB, allE, 1000},
		{[]string{"--month", "2024-09"}, sepB, sepE, 999},
		{[]string{"--quarter", "2024Q3"}, sepB, sepE, 999},
		{[]string{"--quarter", "2024-q3"}, sepB, sepE, 999},
		{[]string{"--month", "2024-10"}, octB, octE, 1},
		{[]string{"--quarter", "2024Q4"}, octB, octE, 1},
	}
	for _, tt := range tests {
		b, e, n := costTotals(t, dir, tt.args...)
		if b != tt.billed.Decimal() || e != tt.effective.Decimal() || n != tt.lines {
			t.Errorf("report cost %s = billed %s, effective %s, %d lines; want %s, %s, %d lines",
				strings.Join(tt.args, " "), b, e, n, tt.billed.Decimal(), tt.effective.Decimal(), tt.lines)
		}
	}
	// The last day of --until is included: September 30th holds lines.
	if _, _, n := costTotals(t, dir, "--since", "2024-09-30", "--until", "2024-09-30"); n == 0 {
		t.Errorf("report cost --since 2024-09-30 --until 2024-09-30 found no lines; want those charged on the 30th")
	}
}

// A window with nothing in it names the billing periods the store holds and the flags to use.
func TestPeriodEmptyWindowNamesStoredPeriods(t *testing.T) {
	needSample(t)
	header, rows := sampleRows(t)
	dir := t.TempDir()
	code, _, errOut := runCLI(t, dir, "report", "cost", "--month", "2024-09")
	if code != exitNotFound || !strings.Contains(errOut, "no bill lines billed in 2024-09 (0 imports in the store): the store holds no bill lines: import bills with gpucost import billing") {
		t.Errorf("report cost --month 2024-09 on an empty store: exit %d, %q", code, errOut)
	}
	importBill(t, dir, "focus", header, rows)
	sep := "2024-09 (charged 2024-09-01 to 2024-09-30, AWS 1234567890123; Microsoft /providers/Microsoft.Billing/billingAccounts/8611537; Oracle 20209880)"
	oct := "2024-10 (charged 2024-09-30, Oracle 20209880)"
	for _, tt := range []struct {
		args []string
		want string
	}{
		// runCLI's now is 2026-12-02: the default 30 days hold nothing.
		{[]string{"report", "cost"}, "no bill lines charged from 2026-11-02 to 2026-12-01; the store holds bills for " + sep + " and " + oct +
			": try --month 2024-10, or --since 2024-09-01 --until 2024-09-30"},
		{[]string{"report", "kpi", "--month", "2024-08"}, "no bill lines billed in 2024-08; the store holds bills for " + sep + " and " + oct + ": try --month 2024-10\n"},
		{[]string{"report", "untagged", "--quarter", "2025Q1"}, "no bill lines billed in 2025Q1; the store holds"},
		{[]string{"report", "cost", "--since", "2024-10-01", "--until", "2024-10-31"}, "no bill lines charged from 2024-10-01 to 2024-10-31; the store holds"},
		{[]string{"report", "kpi", "--since", "2024-10-01T00:00:00Z", "--until", "2024-10-02T00:00:00Z"}, "no bill lines charged on 2024-10-01; the store holds"},
		{[]string{"export", "focus", "--month", "2024-08", "--out", filepath.Join(dir, "out.csv")}, "no bill lines billed in 2024-08; the store holds"},
		{[]string{"report", "utilization", "--month", "2024-09"}, "no GPU telemetry in " + filepath.Join(dir, "gpucost.db") +
			" between 2024-09-01T00:00:00Z and 2024-10-01T00:00:00Z: the store holds none; run gpucost agent"},
	} {
		code, _, errOut := runCLI(t, dir, tt.args...)
		if code != exitNotFound || !strings.Contains(errOut, tt.want) {
			t.Errorf("%s: exit %d, %q\nwant exit %d and %q", strings.Join(tt.args, " "), code, errOut, exitNotFound, tt.want)
		}
	}
}

// A bill's monthly fee dated the next month's first but billed in the month counts in the
// month's report, and in the next month's by charge date only.
func TestPeriodMonthCountsLatePostedLine(t *testing.T) {
	needSample(t)
	header, rows := sampleRows(t)
	col := func(name string) int { return slices.Index(header, name) }
	fee := slices.Clone(rows[0])
	fee[col("ChargePeriodStart")], fee[col("ChargePeriodEnd")] = "2024-10-01 00:00:00", "2024-10-02 00:00:00"
	fee[col("BillingPeriodStart")], fee[col("BillingPeriodEnd")] = "2024-09-01 00:00:00", "2024-10-01 00:00:00"
	fee[col("ChargeCategory")], fee[col("ChargeFrequency")], fee[col("ChargeDescription")] = "Usage", "Recurring", "Monthly support fee"
	fee[col("BilledCost")], fee[col("EffectiveCost")] = "100.00", "100.00"

	plain, late := t.TempDir(), t.TempDir()
	importBill(t, plain, "focus", header, rows)
	importBill(t, late, "focus", header, append(slices.Clone(rows), fee))
	for _, tt := range []struct {
		args          []string
		delta, dLines int // what the fee adds, in dollars and lines
	}{
		{[]string{"--month", "2024-09"}, 100, 1},
		{[]string{"--quarter", "2024Q3"}, 100, 1},
		{[]string{"--since", "2024-09-01", "--until", "2024-09-30"}, 0, 0},
		{[]string{"--month", "2024-10"}, 0, 0},
	} {
		b0, e0, n0 := costTotals(t, plain, tt.args...)
		b1, e1, n1 := costTotals(t, late, tt.args...)
		want := func(s string) string {
			m, err := gpucost.ParseMoney(s, "USD")
			if err != nil {
				t.Fatal(err)
			}
			return m.Add(gpucost.USD(int64(tt.delta) * 1e9)).Decimal()
		}
		if b1 != want(b0) || e1 != want(e0) || n1 != n0+tt.dLines {
			t.Errorf("report cost %s: with the fee billed %s, effective %s, %d lines; without %s, %s, %d; want $%d and %d lines more",
				strings.Join(tt.args, " "), b1, e1, n1, b0, e0, n0, tt.delta, tt.dLines)
		}
	}
	// By charge date the fee is October's.
	if b, _, n := costTotals(t, late, "--since", "2024-10-01", "--until", "2024-10-31"); b != "100" || n != 1 {
		t.Errorf("report cost --since 2024-10-01 --until 2024-10-31 = billed %s, %d lines; want the fee alone, 100 and 1", b, n)
	}
}

// Every refusal names the flag, the value and the forms to use, with the exit code of bad input.
func TestPeriodRefusals(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "cost", "--since", "yesterday"}, `--since "yesterday": use a duration (30d, 2w, 36h, 90m), a date (2025-10-01) or an RFC 3339 time`},
		{[]string{"report", "idle", "--until", "31/10/2025"}, `--until "31/10/2025": use a date (2025-10-31, the whole day included) or an RFC 3339 time`},
		{[]string{"report", "utilization", "--month", "October"}, `--month "October": use a month as YYYY-MM, such as 2025-10`},
		{[]string{"report", "kpi", "--quarter", "Q4"}, `--quarter "Q4": use a quarter as YYYYQn or YYYY-Qn, such as 2025Q4`},
		{[]string{"report", "cost", "--month", "2024-09", "--since", "7d"}, "--month 2024-09 is a whole period: drop --since and --until, or drop --month"},
		{[]string{"report", "cost", "--month", "2024-09", "--quarter", "2024Q3"}, "--month 2024-09 and --quarter 2024Q3 name two periods: give one"},
		{[]string{"report", "cost", "--since", "2024-10-01", "--until", "2024-09-30"}, "--since 2024-10-01 starts at 2024-10-01T00:00:00Z, not before the end 2024-10-01T00:00:00Z"},
		{[]string{"recommend", "--month", "2027-01"}, "--month 2027-01 has not started (it is 2026-12-02)"},
		{[]string{"audit", "--since", "last week"}, `--since "last week": use a duration`},
		{[]string{"plan", "commit", "--from-store", "--discount", "0.4", "--since", "2w ago"}, `--since "2w ago"`},
	} {
		code, _, errOut := runCLI(t, dir, tt.args...)
		if code != exitInvalid || !strings.Contains(errOut, tt.want) {
			t.Errorf("%s: exit %d, %q\nwant exit %d and %q", strings.Join(tt.args, " "), code, errOut, exitInvalid, tt.want)
		}
	}
}

// The log listings take a date as --since too.
func TestPeriodLogListingsTakeDates(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := runCLI(t, dir, "token", "create", "--name", "ci", "--role", "admin"); code != exitOK {
		t.Fatalf("token create: exit %d\n%s", code, errOut)
	}
	for _, tt := range []struct {
		since string
		want  bool // the entry of the token's creation listed
	}{
		{"2020-01-01", true},
		{"7d", true},
		{"2030-01-01T00:00:00Z", false},
	} {
		code, out, errOut := runCLI(t, dir, "audit", "--since", tt.since, "--output", "json")
		if code != exitOK {
			t.Errorf("audit --since %s: exit %d\n%s", tt.since, code, errOut)
			continue
		}
		if got := strings.Contains(out, "token.create"); got != tt.want {
			t.Errorf("audit --since %s lists the token's creation: %v, want %v\n%s", tt.since, got, tt.want, out)
		}
	}
	for _, args := range [][]string{{"enforce", "log", "--since", "2026-11-01"}, {"budget", "deliveries", "--since", "2026-11-01T00:00:00+01:00"}} {
		if code, _, errOut := runCLI(t, dir, args...); code != exitOK {
			t.Errorf("%s: exit %d\n%s", strings.Join(args, " "), code, errOut)
		}
	}
}

// Every command with --since registers the period flags through period.register or
// registerSince (their help says the forms), and every example's period flags resolve.
func TestPeriodFlagsEverywhere(t *testing.T) {
	root := newRootCmd(&env{getenv: func(string) string { return "" }, now: time.Now})
	now := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	var commands, examples int
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		since := c.Flags().Lookup("since")
		if since == nil {
			return
		}
		commands++
		if !strings.Contains(since.Usage, "a date (2025-10-01)") {
			t.Errorf("%s --since: help %q does not say it takes dates", c.CommandPath(), since.Usage)
		}
		if u := c.Flags().Lookup("until"); u != nil && (c.Flags().Lookup("month") == nil || c.Flags().Lookup("quarter") == nil) {
			t.Errorf("%s has --until but not --month and --quarter", c.CommandPath())
		}
		for _, line := range strings.Split(c.Example, "\n") {
			args := exampleWords(t, strings.TrimSpace(line))
			if len(args) < 2 || args[0] != "gpucost" {
				continue
			}
			fresh := newRootCmd(&env{getenv: func(string) string { return "" }, now: time.Now})
			cmd, rest, err := fresh.Find(args[1:])
			if err != nil || cmd.CommandPath() != c.CommandPath() {
				continue
			}
			examples++
			if err := cmd.ParseFlags(rest); err != nil {
				t.Errorf("example %q: %v", line, err)
				continue
			}
			get := func(name string) string {
				if f := cmd.Flags().Lookup(name); f != nil {
					return f.Value.String()
				}
				return ""
			}
			w := fleet.Window{Since: get("since"), Until: get("until"), Month: get("month"), Quarter: get("quarter"), DefaultSince: "30d"}
			if _, err := w.Resolve(now); err != nil {
				t.Errorf("example %q: %v", line, err)
			}
		}
	}
	walk(root)
	// report (utilization, idle, alerts, cost, untagged, kpi, anomalies, savings), recommend,
	// export focus, plan commit, audit, enforce log and budget deliveries.
	if commands < 14 || examples < 30 {
		t.Errorf("found %d commands with --since and %d examples of them; want at least 14 and 30", commands, examples)
	}
}

// gpucost import periods lists each billing period and provider the store holds.
func TestImportPeriods(t *testing.T) {
	needSample(t)
	header, rows := sampleRows(t)
	dir := t.TempDir()
	code, out, errOut := runCLI(t, dir, "import", "periods")
	if code != exitOK || !strings.Contains(out, "No bills imported") || !strings.Contains(out, "No GPU telemetry stored") {
		t.Errorf("import periods on an empty store: exit %d\n%s%s", code, out, errOut)
	}
	importBill(t, dir, "focus", header, rows)
	code, out, errOut = runCLI(t, dir, "import", "periods", "--output", "csv")
	if code != exitOK {
		t.Fatalf("import periods: exit %d\n%s", code, errOut)
	}
	sepB, sepE := billedSums(t, header, rows, func(get func(string) string) bool {
		return strings.HasPrefix(get("BillingPeriodStart"), "2024-09") && get("ProviderName") == "AWS"
	})
	want := "billing_period,provider,accounts,first_charge,last_charge,lines,currency,billed_cost,effective_cost\n" +
		"2024-09,AWS,1234567890123,2024-09-01,2024-09-30,942,USD," + sepB.Fixed(2) + "," + sepE.Fixed(2) + "\n" +
		"2024-09,Microsoft,/providers/Microsoft.Billing/billingAccounts/8611537,2024-09-01,2024-09-19,51,USD,1.98,1.98\n" +
		"2024-09,Oracle,20209880,2024-09-03,2024-09-22,6,USD,0.30,0.00\n" +
		"2024-10,Oracle,20209880,2024-09-30,2024-09-30,1,USD,0.24,0.00\n"
	if out != want {
		t.Errorf("import periods --output csv =\n%s\nwant\n%s", out, want)
	}
	if !strings.Contains(errOut, "--month 2024-10") {
		t.Errorf("import periods notes %q do not say --month", errOut)
	}
}

// On the demo fleet (three days to 2026-12-02), --month covers the calendar month by time for
// telemetry, the month so far while it runs, and an empty month names the telemetry's span.
func TestPeriodMonthOverTelemetry(t *testing.T) {
	dir := loadDemo(t)
	fleetOf := func(args ...string) (hours float64, cost string) {
		t.Helper()
		rep := cli(t, dir, append([]string{"report", "utilization", "--by", "model"}, args...)...)
		var sum gpucost.Money
		for _, g := range items(field(rep, "groups")) {
			h, _ := field(g, "gpu_hours").(float64)
			hours += h
			c, _ := field(g, "cost").(string)
			sum = sum.Add(mustMoney(t, c))
		}
		return hours, sum.Decimal()
	}
	for _, tt := range []struct{ month, dates []string }{
		{[]string{"--month", "2026-11"}, []string{"--since", "2026-11-01", "--until", "2026-11-30"}},
		{[]string{"--quarter", "2026Q4"}, []string{"--since", "2026-10-01", "--until", "2026-12-01"}},
		{[]string{"--month", "2026-12"}, []string{"--since", "1d"}},
	} {
		h1, c1 := fleetOf(tt.month...)
		h2, c2 := fleetOf(tt.dates...)
		if h1 == 0 || h1 != h2 || c1 != c2 {
			t.Errorf("report utilization %s = %.1f GPU-h, %s; %s = %.1f GPU-h, %s; want the same, not 0",
				strings.Join(tt.month, " "), h1, c1, strings.Join(tt.dates, " "), h2, c2)
		}
	}
	// November and December so far hold the demo's three days, 5,952 GPU-hours (loadDemo).
	nov, _ := fleetOf("--month", "2026-11")
	dec, _ := fleetOf("--month", "2026-12")
	if nov+dec != 5952 || dec == 0 {
		t.Errorf("report utilization --month 2026-11 = %.1f GPU-h, --month 2026-12 %.1f; want the demo's 5952.0 between them", nov, dec)
	}
	code, _, errOut := runCLI(t, dir, "report", "utilization", "--month", "2026-10")
	want := "no GPU telemetry in " + filepath.Join(dir, "gpucost.db") + " between 2026-10-01T00:00:00Z and 2026-11-01T00:00:00Z; " +
		"the store holds telemetry from 2026-11-29T00:00:00Z to 2026-12-02T00:00:00Z: try --since 2026-11-29 --until 2026-12-01"
	if code != exitNotFound || !strings.Contains(errOut, want) {
		t.Errorf("report utilization --month 2026-10: exit %d, %q\nwant %q", code, errOut, want)
	}
}
