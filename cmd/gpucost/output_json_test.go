package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// jsonCommands are the commands whose --output json TestJSONKeysSnakeCase reads on the demo
// store: every report, the catalog, the plans that read the store or flags alone, and the
// operations lists.
var jsonCommands = [][]string{
	{"version"},
	{"report", "utilization", "--since", "3d"},
	{"report", "utilization", "--since", "3d", "--by", "namespace"},
	{"report", "idle", "--since", "3d"},
	{"report", "alerts", "--since", "3d"},
	{"report", "anomalies", "--since", "3d"},
	{"report", "cost", "--by", "team"},
	{"report", "kpi", "--by", "team"},
	{"report", "savings"},
	{"report", "untagged"},
	{"catalog", "gpus", "--gpu", "H100"},
	{"catalog", "specs"},
	{"catalog", "issues"},
	{"recommend"},
	{"plan", "instance", "--params", "7e9", "--precision", "bf16", "--mode", "training", "--tokens", "2e9"},
	{"plan", "commit", "--from-store", "--since", "30d", "--discount", "0.4", "--payment", "all"},
	{"import", "list"},
	{"import", "periods"},
	{"bills"},
	{"budget", "deliveries"},
	{"enforce", "log"},
	{"enforce", "avoided"},
	{"token", "list"},
	{"audit"},
}

// snakeKey is the one key style of gpucost's JSON (docs/architecture.md "Output conventions").
var snakeKey = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// dataKeyed names the objects whose keys are data, not field names: label sets, tags and
// totals by currency, which take whatever keys the fleet and its bill have.
var dataKeyed = []string{"labels", "tags", "totals"}

// badKeys returns the paths of the keys in v that are not snake_case.
func badKeys(v any, path string) []string {
	var bad []string
	switch v := v.(type) {
	case map[string]any:
		for k, c := range v {
			if !snakeKey.MatchString(k) {
				bad = append(bad, path+"/"+k)
			}
			if !slices.Contains(dataKeyed, k) {
				bad = append(bad, badKeys(c, path+"/"+k)...)
			}
		}
	case []any:
		for _, c := range v {
			bad = append(bad, badKeys(c, path+"[]")...)
		}
	}
	slices.Sort(bad)
	return slices.Compact(bad)
}

// TestOutputsAndCompletions loads the demo store once and checks on it both conventions of
// docs/architecture.md "Output conventions" and the shell completion of flag values; the
// outputs' schemas are TestSchemasCommands'.
func TestOutputsAndCompletions(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := runCLI(t, dir, "demo", "--days", "3", "--no-serve"); code != exitOK {
		t.Fatalf("demo: exit %d, stderr %s", code, errOut)
	}
	t.Run("json", func(t *testing.T) { checkJSONKeys(t, dir) })
	t.Run("csv", func(t *testing.T) { checkCSVNumbers(t, dir) })
	t.Run("completion", func(t *testing.T) { checkCompletions(t, dir) })
}

// checkJSONKeys runs every command of jsonCommands with --output json on the store in dir, and
// reads every API golden file, and fails on a key that is not snake_case.
func checkJSONKeys(t *testing.T, dir string) {
	for _, args := range jsonCommands {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, out, errOut := runCLI(t, dir, append(args, "--output", "json")...)
			if code != exitOK {
				t.Fatalf("gpucost %s --output json: exit %d, stderr %s", strings.Join(args, " "), code, errOut)
			}
			var v any
			if err := json.Unmarshal([]byte(out), &v); err != nil {
				t.Fatalf("gpucost %s --output json: %v\n%s", strings.Join(args, " "), err, out)
			}
			if bad := badKeys(v, ""); len(bad) > 0 {
				t.Errorf("gpucost %s --output json: keys not snake_case: %s", strings.Join(args, " "), strings.Join(bad, ", "))
			}
		})
	}
	goldens, err := filepath.Glob(filepath.Join("testdata", "api-*.golden.json"))
	if err != nil || len(goldens) == 0 {
		t.Fatalf("no API golden files in testdata (%v)", err)
	}
	for _, g := range goldens {
		b, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%s: %v", g, err)
		}
		if bad := badKeys(v, ""); len(bad) > 0 {
			t.Errorf("%s: keys not snake_case: %s", g, strings.Join(bad, ", "))
		}
	}
}

func TestBadKeys(t *testing.T) {
	v := map[string]any{"gpu_hours": 1, "GPUHours": 2, "labels": map[string]any{"app.kubernetes.io/name": "x"},
		"rows": []any{map[string]any{"ok": 1, "idleCost": 2}}}
	got := badKeys(v, "")
	want := []string{"/GPUHours", "/rows[]/idleCost"}
	if !slices.Equal(got, want) {
		t.Errorf("badKeys(%v) = %v, want %v", v, got, want)
	}
}

// checkCSVNumbers reads the CSV of report cost, report utilization and catalog gpus on the
// store in dir: the headers name the units, and every cell of a column with a unit is a plain
// number or empty.
func checkCSVNumbers(t *testing.T, dir string) {
	for _, c := range []struct {
		args []string
		want []string // headers that must be there
	}{
		{[]string{"report", "cost", "--by", "team"}, []string{"cost_less_idle", "idle", "total", "idle_pct", "gpu_hours", "used_gpu_hours", "usd_per_used_gpu_hour"}},
		{[]string{"report", "utilization", "--since", "3d"}, []string{"gpu_hours", "util_pct", "vram_peak_gib", "idle_pct", "idle_cost_usd", "cost_usd"}},
		{[]string{"catalog", "gpus", "--gpu", "A100"}, []string{"vram_gb", "on_demand_usd_per_gpu_hour", "spot_usd_per_gpu_hour", "spot_discount_pct"}},
	} {
		name := strings.Join(c.args, " ")
		code, out, errOut := runCLI(t, dir, append(c.args, "--output", "csv")...)
		if code != exitOK {
			t.Fatalf("gpucost %s --output csv: exit %d, stderr %s", name, code, errOut)
		}
		recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil || len(recs) < 2 {
			t.Fatalf("gpucost %s --output csv: %d records, %v\n%s", name, len(recs), err, out)
		}
		for _, h := range c.want {
			j := slices.Index(recs[0], h)
			if j < 0 {
				t.Errorf("gpucost %s --output csv: no column %q in %q", name, h, recs[0])
				continue
			}
			for _, r := range recs[1:] {
				if _, err := strconv.ParseFloat(r[j], 64); r[j] != "" && err != nil {
					t.Errorf("gpucost %s --output csv: %s = %q is not a plain number", name, h, r[j])
				}
			}
		}
	}
}
