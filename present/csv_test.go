package present

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

func TestCellNumber(t *testing.T) {
	for _, c := range []struct {
		cell, num, unit string
		ok              bool
	}{
		{"$1,234.50", "1234.50", "usd", true},
		{"-$3.00", "-3.00", "usd", true},
		{"−$3.00", "-3.00", "usd", true},
		{"79.0%", "79.0", "pct", true},
		{"0.0 GiB", "0.0", "gib", true},
		{"80 GB", "80", "gb", true},
		{"EUR 2.000", "2.000", "eur", true},
		{"12", "12", "", true},
		{"-7.5", "-7.5", "", true},
		{"2026-11-24 14:00", "", "", false},
		{"72h0m0s", "259200", "s", true}, // a duration is seconds in CSV and JSON
		{"250ms", "0.25", "s", true},
		{"3 days", "", "", false},
		{"idle daily 00:00–24:00", "", "", false},
		{"1.1", "1.1", "", true},
		{"1.2.3", "", "", false},
	} {
		num, unit, ok := cellNumber(c.cell)
		if num != c.num || unit != c.unit || ok != c.ok {
			t.Errorf("cellNumber(%q) = %q, %q, %v; want %q, %q, %v", c.cell, num, unit, ok, c.num, c.unit, c.ok)
		}
	}
}

func TestDataKey(t *testing.T) {
	for _, c := range []struct{ title, unit, want string }{
		{"Cost", "usd", "cost_usd"},
		{"Util", "pct", "util_pct"},
		{"Idle %", "pct", "idle_pct"},
		{"VRAM peak", "gib", "vram_peak_gib"},
		{"GPU-h", "", "gpu_hours"},
		{"Idle GPU-h", "", "idle_gpu_hours"},
		{"$/used GPU-h", "", "usd_per_used_gpu_hour"},
		{"On-demand $/GPU-h", "", "on_demand_usd_per_gpu_hour"},
		{"Zero-util h", "", "zero_util_hours"},
		{"BilledCost", "", "billed_cost"},
		{"#", "", "number"},
		{"Monthly saving", "usd", "monthly_saving_usd"},
	} {
		if got := dataKey(c.title, c.unit); got != c.want {
			t.Errorf("dataKey(%q, %q) = %q, want %q", c.title, c.unit, got, c.want)
		}
	}
}

// TestDataColumns: a column of one unit becomes plain numbers, a missing cell is empty in CSV
// and null in JSON, money stays an exact decimal string in JSON, a column that mixes units gets
// its units in a column beside it, a word among numbers stays a word, and text stays as shown.
func TestDataColumns(t *testing.T) {
	tab := Table{
		Columns: []string{"GPU", "Cost", "Util", "VRAM", "Mixed", "Spark", "p99", "Note"},
		Rows: [][]string{
			{"H100", "$1,599.36", "100.0%", "80", "$1.00", "▁", "140.5ms", "ok"},
			{"A100", "–", "7.5%", "40", "5%", "▂", "unstable", "2 left"},
		},
		Units:     []string{3: "gb"},
		TableOnly: []int{5},
	}
	var out, notes bytes.Buffer
	if err := Write(&out, &notes, "csv", tab); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"gpu", "cost_usd", "util_pct", "vram_gb", "mixed", "mixed_unit", "p99_s", "note"},
		{"H100", "1599.36", "100.0", "80", "1.00", "usd", "0.1405", "ok"}, {"A100", "", "7.5", "40", "5", "pct", "unstable", "2 left"}}
	if strings.Join(flat(recs), "|") != strings.Join(flat(want), "|") {
		t.Errorf("csv = %q, want %q", recs, want)
	}
	for _, r := range recs[1:] {
		for _, c := range r[2:4] {
			if _, err := strconv.ParseFloat(c, 64); err != nil {
				t.Errorf("csv cell %q is not a number: %v", c, err)
			}
		}
	}
	out.Reset()
	if err := Write(&out, &notes, "json", tab); err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0]["cost_usd"] != "1599.36" || rows[0]["util_pct"] != 100.0 || rows[0]["vram_gb"] != 80.0 ||
		rows[1]["cost_usd"] != nil || rows[0]["mixed"] != "1.00" || rows[1]["mixed"] != 5.0 || rows[1]["mixed_unit"] != "pct" ||
		rows[0]["p99_s"] != 0.1405 || rows[1]["p99_s"] != "unstable" || rows[1]["note"] != "2 left" {
		t.Errorf("json rows = %v", rows)
	}
}

func flat(recs [][]string) []string {
	var out []string
	for _, r := range recs {
		out = append(out, strings.Join(r, ","))
	}
	return out
}
