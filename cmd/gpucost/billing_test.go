package main

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/billimport"
	"github.com/gpucost/gpucost/billing/focus"
)

const focusSample = "../../../shared/datasets/focus/focus_sample.csv"

func needSample(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(focusSample); err != nil {
		t.Skipf("the shared datasets are not beside the repository: %v", err)
	}
}

// sampleTotals returns the FOCUS sample's sums per currency, read by the FOCUS reader alone.
func sampleTotals(t *testing.T, path string) map[string]billimport.Sums {
	st, err := focus.ReadFile(path, func(*gpucost.CostLine) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	return st.Totals
}

type importedFile struct {
	File     string
	Rows     int
	Lines    int `json:"lines_stored"`
	Status   string
	ImportID int64 `json:"import_id"`
	Totals   []struct {
		Currency      string
		BilledCost    string `json:"billed_cost"`
		EffectiveCost string `json:"effective_cost"`
	}
}

func importJSON(t *testing.T, dir string, args ...string) ([]importedFile, int, string) {
	t.Helper()
	code, out, errOut := runCLI(t, dir, append([]string{"import", "billing", "--output", "json"}, args...)...)
	var files []importedFile
	if code == exitOK {
		if err := json.Unmarshal([]byte(out), &files); err != nil {
			t.Fatalf("import billing --output json: %v\n%s", err, out)
		}
	}
	return files, code, errOut
}

// The FOCUS sample imports whole, with totals per currency equal to its rows' sums; a second
// import is skipped; a changed file of the same name is refused until --replace, which
// replaces rather than adds.
func TestImportBillingFOCUSSample(t *testing.T) {
	needSample(t)
	dir := t.TempDir()
	bill := filepath.Join(dir, "focus.csv")
	data, err := os.ReadFile(focusSample)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(bill, data, 0o644)
	want := sampleTotals(t, bill)

	files, code, errOut := importJSON(t, dir, bill)
	if code != exitOK || len(files) != 1 {
		t.Fatalf("import: exit %d\n%s", code, errOut)
	}
	f := files[0]
	if f.Rows != 1000 || f.Status != "imported" || f.Lines == 0 || f.Lines > 1000 {
		t.Errorf("import = %+v; want 1,000 rows imported", f)
	}
	if len(f.Totals) != len(want) {
		t.Errorf("totals in %d currencies, want %d", len(f.Totals), len(want))
	}
	for _, tot := range f.Totals {
		w := want[tot.Currency]
		if tot.BilledCost != w.BilledCost.Decimal() || tot.EffectiveCost != w.EffectiveCost.Decimal() {
			t.Errorf("%s: imported %s/%s, source %s/%s", tot.Currency, tot.BilledCost, tot.EffectiveCost, w.BilledCost.Decimal(), w.EffectiveCost.Decimal())
		}
	}

	files, code, _ = importJSON(t, dir, bill)
	if code != exitOK || !strings.HasPrefix(files[0].Status, "skipped") {
		t.Errorf("second import: exit %d, %+v; want skipped", code, files)
	}

	h := bytes.IndexByte(data, '\n') + 1
	row := data[h : h+bytes.IndexByte(data[h:], '\n')+1]
	os.WriteFile(bill, append(bytes.Clone(data), row...), 0o644) // one line restated twice
	_, code, errOut = importJSON(t, dir, bill)
	if code != exitConflict || !strings.Contains(errOut, "--replace") {
		t.Errorf("restated bill: exit %d, %q; want %d and a hint to --replace", code, errOut, exitConflict)
	}
	files, code, errOut = importJSON(t, dir, "--replace", bill)
	if code != exitOK || files[0].Rows != 1001 || !strings.HasPrefix(files[0].Status, "replaced") {
		t.Fatalf("--replace: exit %d, %+v\n%s", code, files, errOut)
	}

	// The store holds the restated bill once: report cost's totals are the file's.
	code, out, errOut := runCLI(t, dir, "report", "cost", "--by", "provider", "--since", "3650d", "--until", "2030-01-01T00:00:00Z", "--output", "json")
	if code != exitOK {
		t.Fatalf("report cost: exit %d\n%s", code, errOut)
	}
	var rep struct {
		Totals []struct {
			Currency   string
			BilledCost string `json:"billed_cost"`
		}
	}
	json.Unmarshal([]byte(out), &rep)
	restated := sampleTotals(t, bill)
	for _, tot := range rep.Totals {
		if tot.BilledCost != restated[tot.Currency].BilledCost.Decimal() {
			t.Errorf("report cost %s = %s, the restated file %s", tot.Currency, tot.BilledCost, restated[tot.Currency].BilledCost.Decimal())
		}
	}
	if len(rep.Totals) != len(restated) {
		t.Errorf("report cost has %d currencies, the file %d", len(rep.Totals), len(restated))
	}
}

// A truncated gzip file fails and stores nothing; a file of no known format says so.
func TestImportBillingBadFilesStoreNothing(t *testing.T) {
	needSample(t)
	dir := t.TempDir()
	data, _ := os.ReadFile(focusSample)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data)
	zw.Close()
	cut := filepath.Join(dir, "cut.csv.gz")
	os.WriteFile(cut, gz.Bytes()[:gz.Len()/2], 0o644)
	_, code, errOut := importJSON(t, dir, cut)
	if code != exitInvalid || !strings.Contains(errOut, "cut.csv.gz") {
		t.Errorf("truncated gzip: exit %d, %q; want %d naming the file", code, errOut, exitInvalid)
	}
	other := filepath.Join(dir, "other.csv")
	os.WriteFile(other, []byte("a,b,c\n1,2,3\n"), 0o644)
	_, code, errOut = importJSON(t, dir, other)
	if code != exitInvalid || !strings.Contains(errOut, "--format") {
		t.Errorf("unknown format: exit %d, %q", code, errOut)
	}
	code, _, errOut = runCLI(t, dir, "report", "cost", "--since", "3650d", "--until", "2030-01-01T00:00:00Z")
	if code != exitNotFound || !strings.Contains(errOut, "0 imports") || !strings.Contains(errOut, "gpucost import billing") {
		t.Errorf("after failed imports: exit %d, %q; want %d and a hint", code, errOut, exitNotFound)
	}
}

// The demo's bill reconciles: spend by team plus idle equals the FOCUS file it wrote, the
// untagged notebook is found, and the allocated export reads back with the same totals.
func TestDemoBillReports(t *testing.T) {
	dir := loadDemo(t)
	billFile := filepath.Join(dir, "gpucost-bill.focus.csv")
	want := sampleTotals(t, billFile)["USD"]
	if want.Rows == 0 {
		t.Fatalf("the demo bill %s has no USD rows", billFile)
	}
	args := []string{"--since", "4d", "--output", "json"}

	code, out, errOut := runCLI(t, dir, append([]string{"report", "cost", "--by", "team"}, args...)...)
	if code != exitOK {
		t.Fatalf("report cost: exit %d\n%s", code, errOut)
	}
	var rep struct {
		Groups []struct {
			Group        string
			CostLessIdle string  `json:"cost_less_idle"`
			IdleCost     string  `json:"idle_cost"`
			UsedGPUHours float64 `json:"used_gpu_hours"`
		}
		Totals []struct {
			BilledCost string `json:"billed_cost"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("report cost --output json: %v\n%s", err, out)
	}
	var sum gpucost.Money
	teams := map[string]bool{}
	for _, g := range rep.Groups {
		used, _ := gpucost.ParseMoney(g.CostLessIdle, "USD")
		idle, _ := gpucost.ParseMoney(g.IdleCost, "USD")
		sum = sum.Add(used).Add(idle)
		teams[g.Group] = true
	}
	sum.Currency = "USD"
	if sum != want.BilledCost || len(rep.Totals) != 1 || rep.Totals[0].BilledCost != want.BilledCost.Decimal() {
		t.Errorf("Σ used + idle = %v, totals %+v; the bill file sums to %v", sum, rep.Totals, want.BilledCost)
	}
	for _, team := range []string{"inference", "research", "foundation-models", "data-science", "(untagged)"} {
		if !teams[team] {
			t.Errorf("report cost --by team lacks %s: %v", team, teams)
		}
	}

	code, out, _ = runCLI(t, dir, "report", "cost", "--by", "namespace", "--gpu-only", "--since", "4d")
	if code != exitOK || !strings.Contains(out, "serving") || !strings.Contains(out, "reconcile with them to the cent") {
		t.Errorf("report cost --by namespace: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, dir, "report", "untagged", "--since", "4d")
	if code != exitOK || !strings.Contains(out, "A10G") || !strings.Contains(out, "i-0") {
		t.Errorf("report untagged: exit %d; want the untagged notebook instance\n%s", code, out)
	}
	code, out, _ = runCLI(t, dir, "report", "kpi", "--by", "namespace", "--since", "4d")
	if code != exitOK || !strings.Contains(out, "pretrain-7b") && !strings.Contains(out, "training") {
		t.Errorf("report kpi: exit %d\n%s", code, out)
	}

	export := filepath.Join(dir, "allocated.parquet")
	code, _, errOut = runCLI(t, dir, "export", "focus", "--allocated", "--since", "4d", "--out", export)
	if code != exitOK {
		t.Fatalf("export focus --allocated: exit %d\n%s", code, errOut)
	}
	teamsOut := map[string]bool{}
	st, err := focus.ReadFile(export, func(l *gpucost.CostLine) error {
		teamsOut[l.Extra["x_Team"]+"/"+l.Extra["x_Namespace"]+"/"+l.Extra["x_Idle"]] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	gpuOnly := sampleTotals(t, billFile)["USD"].BilledCost
	if got := st.Totals["USD"].BilledCost; got.Nanos <= 0 || got.Nanos > gpuOnly.Nanos {
		t.Errorf("export total %v, want the bill's GPU share of %v", got, gpuOnly)
	}
	for _, k := range []string{"inference/serving/false", "inference/serving/true", "foundation-models/training/false"} {
		if !teamsOut[k] {
			t.Errorf("allocated export lacks rows %s: %v", k, teamsOut)
		}
	}
}

// The recommendations over the demo's bill and telemetry find reference case R1's levers.
func TestDemoRecommendations(t *testing.T) {
	dir := loadDemo(t)
	code, out, errOut := runCLI(t, dir, "report", "savings", "--since", "4d", "--output", "json")
	if code != exitOK {
		t.Fatalf("report savings: exit %d\n%s", code, errOut)
	}
	var rep struct {
		Before, After, Saving string
		SavingPercent         float64 `json:"saving_pct"`
		Levers                []struct {
			Lever         string
			MonthlySaving string `json:"monthly_saving"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	before, _ := gpucost.ParseMoney(rep.Before, "USD")
	after, _ := gpucost.ParseMoney(rep.After, "USD")
	sum := before.Sub(after)
	for _, l := range rep.Levers {
		m, _ := gpucost.ParseMoney(l.MonthlySaving, "USD")
		sum = sum.Sub(m)
	}
	if sum.Nanos != 0 || rep.SavingPercent < 40 {
		t.Errorf("savings %+v: levers must add up to before − after (off by %v) and save at least 40%%", rep, sum)
	}
	t.Logf("demo (3 days): %s → %s, −%.1f%%", rep.Before, rep.After, rep.SavingPercent)
	code, out, _ = runCLI(t, dir, "recommend", "--since", "4d")
	for _, want := range []string{"research-v100-01–06", "p3.2xlarge", "serving-a100", "spot"} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("recommend lacks %q (exit %d):\n%s", want, code, out)
		}
	}
}

// A column outside the format, such as the unique Id of the FOCUS sample, stays out of the
// aggregation key unless --keep-columns names it: the sample with every row twice under two Ids
// stores as many lines as the sample by default, twice as many with Id kept, and the same totals.
func TestImportBillingKeepColumns(t *testing.T) {
	needSample(t)
	dir := t.TempDir()
	bill := filepath.Join(dir, "focus.csv")
	writeRowsTwice(t, focusSample, bill, "Id")
	merged, code, errOut := importJSON(t, dir, "--db", filepath.Join(dir, "merged.db"), bill)
	if code != exitOK || len(merged) != 1 {
		t.Fatalf("import: exit %d\n%s", code, errOut)
	}
	kept, code, errOut := importJSON(t, dir, "--db", filepath.Join(dir, "kept.db"), "--keep-columns", "Id", bill)
	if code != exitOK || len(kept) != 1 {
		t.Fatalf("import --keep-columns Id: exit %d\n%s", code, errOut)
	}
	if merged[0].Rows != 2000 || kept[0].Rows != 2000 || kept[0].Lines != 2*merged[0].Lines {
		t.Errorf("rows, lines = %d, %d by default and %d, %d with --keep-columns Id; want 2000 rows each and twice the lines with Id kept",
			merged[0].Rows, merged[0].Lines, kept[0].Rows, kept[0].Lines)
	}
	if !slices.Equal(totalsText(merged[0]), totalsText(kept[0])) {
		t.Errorf("totals = %v by default, %v with --keep-columns Id; want the same", totalsText(merged[0]), totalsText(kept[0]))
	}
}

// writeRowsTwice writes the CSV at src to dst with every row twice, the column col suffixed
// "-a" in the first copy and "-b" in the second.
func writeRowsTwice(t *testing.T, src, dst, col string) {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	at := slices.Index(recs[0], col)
	if at < 0 {
		t.Fatalf("%s has no column %s", src, col)
	}
	out := [][]string{recs[0]}
	for _, r := range recs[1:] {
		for _, suffix := range []string{"-a", "-b"} {
			c := slices.Clone(r)
			c[at] += suffix
			out = append(out, c)
		}
	}
	var b bytes.Buffer
	csv.NewWriter(&b).WriteAll(out)
	if err := os.WriteFile(dst, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func totalsText(f importedFile) []string {
	var out []string
	for _, t := range f.Totals {
		out = append(out, t.Currency+" "+t.BilledCost+" "+t.EffectiveCost)
	}
	return out
}
