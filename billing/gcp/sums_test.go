package gcp

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/billtest"
)

// rawRow is one source row read independently of the reader: the cost, cost_at_list, currency
// and credit amounts as written.
type rawRow struct {
	currency   string
	cost, list string
	credits    []string
}

// rawRows reads a fixture with encoding/json or encoding/csv.
func rawRows(t testing.TB, path string) []rawRow {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var objs []map[string]any
	switch filepath.Ext(path) {
	case ".jsonl":
		for line := range bytes.SplitSeq(bytes.TrimSpace(data), []byte("\n")) {
			objs = append(objs, decodeJSON[map[string]any](t, line))
		}
	case ".json":
		objs = decodeJSON[[]map[string]any](t, data)
	default:
		return csvRawRows(t, data)
	}
	var rows []rawRow
	for _, o := range objs {
		r := rawRow{currency: str(o["currency"]), cost: str(o["cost"]), list: str(o["cost_at_list"])}
		cr, _ := o["credits"].([]any)
		for _, c := range cr {
			r.credits = append(r.credits, str(c.(map[string]any)["amount"]))
		}
		rows = append(rows, r)
	}
	return rows
}

func decodeJSON[T any](t testing.TB, b []byte) T {
	t.Helper()
	var v T
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatalf("fixture is not JSON: %v", err)
	}
	return v
}

func str(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case json.Number:
		return x.String()
	case string:
		return x
	}
	panic("unexpected JSON value")
}

// csvRawRows reads a CSV fixture; columns may be named service.description or service_description.
func csvRawRows(t testing.TB, data []byte) []rawRow {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[strings.ReplaceAll(h, ".", "_")] = i
	}
	var rows []rawRow
	for _, rec := range recs[1:] {
		r := rawRow{currency: rec[col["currency"]], cost: rec[col["cost"]], list: rec[col["cost_at_list"]]}
		if cr := rec[col["credits"]]; cr != "" {
			for _, c := range decodeJSON[[]map[string]any](t, []byte(cr)) {
				r.credits = append(r.credits, str(c["amount"]))
			}
		}
		rows = append(rows, r)
	}
	return rows
}

// nanosOf parses a decimal exactly and rounds it to nano-units, half to even, as Money does.
func nanosOf(t testing.TB, s string) int64 {
	t.Helper()
	return billtest.Nanos(billtest.Rat(t, s))
}

// TestReadExactSums checks every line's amounts and the per-currency totals against sums
// computed here from the raw values: BilledCost and EffectiveCost are cost plus the row's
// credits, ListCost is cost_at_list, ContractedCost is cost.
func TestReadExactSums(t *testing.T) {
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", name)
			lines, st := readAll(t, path)
			rows := rawRows(t, path)
			if len(lines) != len(rows) || st.Rows != len(rows) {
				t.Fatalf("read %d lines (Stats.Rows %d), want %d", len(lines), st.Rows, len(rows))
			}
			type tot struct{ billed, list, cost, credits int64 }
			want := map[string]*tot{}
			for i, r := range rows {
				c := &lines[i]
				cost, list := nanosOf(t, r.cost), nanosOf(t, r.list)
				var credits int64
				for _, a := range r.credits {
					credits += nanosOf(t, a)
				}
				for _, m := range []struct {
					what string
					got  gpucost.Money
					want int64
				}{{"BilledCost", c.BilledCost, cost + credits}, {"EffectiveCost", c.EffectiveCost, cost + credits},
					{"ListCost", c.ListCost, list}, {"ContractedCost", c.ContractedCost, cost}} {
					if m.got.Nanos != m.want || m.got.Currency != r.currency {
						t.Errorf("line %d %s = %d %s, want %d %s", c.Line, m.what, m.got.Nanos, m.got.Currency, m.want, r.currency)
					}
				}
				w := want[r.currency]
				if w == nil {
					w = &tot{}
					want[r.currency] = w
				}
				w.billed += cost + credits
				w.list += list
				w.cost += cost
				w.credits += credits
			}
			for cur, w := range want {
				got, ok := st.Totals[cur]
				cr := st.Credits[cur]
				if !ok || got.BilledCost.Nanos != w.billed || got.EffectiveCost.Nanos != w.billed || got.ListCost.Nanos != w.list ||
					got.Source.Nanos != w.cost || cr.Total.Nanos != w.credits || got.ContractedCost.Nanos != w.cost {
					t.Errorf("Stats.Totals[%s] = %+v, want billed %d list %d cost %d credits %d", cur, got, w.billed, w.list, w.cost, w.credits)
					continue
				}
				var byType int64
				for _, m := range cr.ByType {
					byType += m.Nanos
				}
				if byType != w.credits {
					t.Errorf("Σ Credits[%s].ByType = %d, want %d", cur, byType, w.credits)
				}
			}
			if len(st.Totals) != len(want) {
				t.Errorf("Stats.Totals has currencies %v, want %d", st.Currencies(), len(want))
			}
		})
	}
}
