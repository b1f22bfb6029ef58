package focus

import (
	"bytes"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/gpucost/gpucost"
)

var update = flag.Bool("update", false, "rewrite golden files")

const sample = "testdata/focus_sample.csv"

// want is what the sample holds, computed here from the raw CSV strings with encoding/csv and
// math/big, independently of the reader.
type want struct {
	rows       int
	byProvider map[string]int
	// exact sums of the raw decimals, and sums of each value rounded half to even to nine places
	exact   map[string]*big.Rat // "USD BilledCost" → sum
	rounded map[string]*big.Int // "USD BilledCost" → nano-units
}

func computeWant(t *testing.T, path string) want {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, name := range recs[0] {
		col[name] = i
	}
	w := want{byProvider: map[string]int{}, exact: map[string]*big.Rat{}, rounded: map[string]*big.Int{}}
	for _, r := range recs[1:] {
		w.rows++
		w.byProvider[r[col["ProviderName"]]]++
		cur := r[col["BillingCurrency"]]
		for _, name := range []string{"BilledCost", "EffectiveCost", "ListCost"} {
			v := r[col[name]]
			if v == "NULL" || v == "" {
				continue
			}
			x, ok := new(big.Rat).SetString(v)
			if !ok {
				t.Fatalf("sample %s %q is not a decimal", name, v)
			}
			key := cur + " " + name
			if w.exact[key] == nil {
				w.exact[key], w.rounded[key] = new(big.Rat), new(big.Int)
			}
			w.exact[key].Add(w.exact[key], x)
			w.rounded[key].Add(w.rounded[key], roundHalfEven(x))
		}
	}
	return w
}

// roundHalfEven returns x×10⁹ rounded to an integer, half to even.
func roundHalfEven(x *big.Rat) *big.Int {
	n := new(big.Rat).Mul(x, big.NewRat(1e9, 1))
	q, r := new(big.Int).QuoRem(n.Num(), n.Denom(), new(big.Int))
	twice := new(big.Int).Mul(new(big.Int).Abs(r), big.NewInt(2))
	if c := twice.Cmp(n.Denom()); c > 0 || c == 0 && q.Bit(0) == 1 {
		q.Add(q, big.NewInt(int64(n.Sign())))
	}
	return q
}

func TestReadSample(t *testing.T) {
	w := computeWant(t, sample)
	var lines []gpucost.CostLine
	byProvider := map[string]int{}
	st, err := ReadFile(sample, func(l *gpucost.CostLine) error {
		lines = append(lines, Clone(l))
		byProvider[l.Provider]++
		return nil
	})
	if err != nil {
		t.Fatalf("ReadFile(%s) error: %v", sample, err)
	}
	if st.Rows != 1000 || w.rows != 1000 || len(lines) != 1000 {
		t.Fatalf("ReadFile(%s) read %d rows (emitted %d), want all %d", sample, st.Rows, len(lines), w.rows)
	}
	if !reflect.DeepEqual(byProvider, w.byProvider) {
		t.Errorf("rows by provider = %v, want %v", byProvider, w.byProvider)
	}
	if st.Version != V1_0 || len(st.VersionColumns) != 0 || !slices.Equal(st.Kept, []string{"Id"}) || st.Format != "csv" {
		t.Errorf("Stats = %s %v extra %v format %s, want 1.0 [] [Id] csv", st.Version, st.VersionColumns, st.Kept, st.Format)
	}
	checkTotals(t, st, w)
	from, to := time.Date(2024, 9, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 10, 1, 0, 0, 0, 0, time.UTC)
	if !st.ChargePeriodStart.Equal(from) || !st.ChargePeriodEnd.Equal(to) {
		t.Errorf("charge period = %v – %v, want %v – %v", st.ChargePeriodStart, st.ChargePeriodEnd, from, to)
	}
	checkGolden(t, "testdata/focus_sample.golden", summarize(lines))
}

// checkTotals compares the reader's totals with the independent sums: equal to the nano-unit to
// the sum of rounded values, and to the cent to the exact sum.
func checkTotals(t *testing.T, st Stats, w want) {
	t.Helper()
	for key, exact := range w.exact {
		cur, name, _ := strings.Cut(key, " ")
		tot := st.Totals[cur]
		got := map[string]gpucost.Money{"BilledCost": tot.BilledCost, "EffectiveCost": tot.EffectiveCost, "ListCost": tot.ListCost}[name]
		if got.Currency != cur || big.NewInt(got.Nanos).Cmp(w.rounded[key]) != 0 {
			t.Errorf("Totals[%s].%s = %s nano %d, want %s nano %s", cur, name, got.Currency, got.Nanos, cur, w.rounded[key])
		}
		cents := new(big.Rat).Mul(exact, big.NewRat(100, 1))
		wantCents := roundHalfEven(new(big.Rat).Quo(cents, big.NewRat(1e9, 1)))
		if got.Round(2).Nanos/1e7 != wantCents.Int64() {
			t.Errorf("Totals[%s].%s = %s, want %s to the cent", cur, name, got.Fixed(2), exact.FloatString(2))
		}
	}
	if len(st.Totals) != 1 || st.Totals["USD"].Rows != w.rows {
		t.Errorf("Totals = %v, want one currency, USD, of %d rows", st.Totals, w.rows)
	}
}

// summarize renders per-provider counts and sums and a few lines in full, for the golden file.
func summarize(lines []gpucost.CostLine) string {
	type sum struct {
		rows                   int
		billed, effective, lst int64
	}
	sums := map[string]*sum{}
	var b strings.Builder
	for i, l := range lines {
		key := l.Provider + " " + l.ChargeCategory + " " + l.PricingCategory + " " + l.BillingCurrency()
		if sums[key] == nil {
			sums[key] = &sum{}
		}
		s := sums[key]
		s.rows++
		s.billed += l.BilledCost.Nanos
		s.effective += l.EffectiveCost.Nanos
		s.lst += l.ListCost.Nanos
		if i < 3 || l.ChargeCategory != "Usage" || l.PricingCategory == "Committed" || l.Provider == "Oracle" && i%3 == 0 {
			l.Tags = gpucost.ParseLabels(l.Tags.String()) // print sorted
			fmt.Fprintf(&b, "%+v\n", l)
		}
	}
	keys := make([]string, 0, len(sums))
	for k := range sums {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var head strings.Builder
	fmt.Fprintln(&head, "provider category pricing currency: rows billed effective list")
	for _, k := range keys {
		s := sums[k]
		fmt.Fprintf(&head, "%s: %d %s %s %s\n", k, s.rows, gpucost.USD(s.billed).Decimal(), gpucost.USD(s.effective).Decimal(), gpucost.USD(s.lst).Decimal())
	}
	return head.String() + "\n" + b.String()
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./billing/focus -run %s -update to write it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -run %s -update rewrites it):\n%s", filepath.Base(path), t.Name(), diffLines(string(want), got))
	}
}

// diffLines shows the first lines that differ.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < max(len(w), len(g)) && b.Len() < 2000; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want %s\n  got  %s\n", i+1, wl, gl)
		}
	}
	return b.String()
}

// TestReadSampleValues checks single lines against the raw file: a credit stays negative, the
// Oracle rows' "Usage-based" is spelled as FOCUS spells it, NULL is null, tags are parsed.
func TestReadSampleValues(t *testing.T) {
	byID := map[string]gpucost.CostLine{}
	if _, err := ReadFile(sample, func(l *gpucost.CostLine) error {
		byID[l.Extra["Id"]] = Clone(l)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	first := byID["19384"]
	if first.Line != 3 || first.Tags["application"] != "BrightLensMatrix" || len(first.Tags) != 3 ||
		first.BilledCost != (gpucost.Money{Nanos: 16060, Currency: "USD"}) || first.ConsumedQuantity != 0.00200749 ||
		first.ResourceName != "" || first.ChargeClass != "" || first.ServiceName != "Elastic Load Balancing" {
		t.Errorf("line 3 = %+v", first)
	}
	credits, oracle := 0, 0
	for _, l := range byID {
		if l.ChargeCategory == "Credit" {
			credits++
			if l.BilledCost.Nanos != -2_613_700_000 || l.EffectiveCost.Nanos != -3_000_000_000 {
				t.Errorf("credit line %d: billed %v effective %v, want -2.6137 and -3", l.Line, l.BilledCost, l.EffectiveCost)
			}
		}
		if l.Provider == "Oracle" {
			oracle++
			if l.ChargeFrequency != "Usage-Based" || l.ContractedCost.Nanos != 0 || l.RegionID != "" {
				t.Errorf("Oracle line %d: frequency %q contracted %v region %q", l.Line, l.ChargeFrequency, l.ContractedCost, l.RegionID)
			}
		}
	}
	if credits != 1 || oracle != 7 {
		t.Errorf("credits %d, Oracle lines %d; want 1 and 7", credits, oracle)
	}
}

// TestReadersThatDribble reads the sample through readers that return a byte or half a buffer
// at a time, and one that fails: the lines are the same, the failure is reported.
func TestReadersThatDribble(t *testing.T) {
	raw, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := readAll(t, sample)
	for name, r := range map[string]io.Reader{
		"one byte": iotest.OneByteReader(bytes.NewReader(raw)),
		"half":     iotest.HalfReader(bytes.NewReader(raw)),
		"data+EOF": iotest.DataErrReader(bytes.NewReader(raw)),
	} {
		var got []gpucost.CostLine
		if _, err := Read(r, name, func(l *gpucost.CostLine) error { got = append(got, Clone(l)); return nil }); err != nil {
			t.Errorf("Read(%s): %v", name, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Read(%s) gives other lines than ReadFile", name)
		}
	}
	r := io.MultiReader(bytes.NewReader(raw[:5000]), iotest.ErrReader(errors.New("disk on fire")))
	if _, err := Read(r, "failing.csv", func(*gpucost.CostLine) error { return nil }); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("Read(failing reader) = %v, want the reader's error", err)
	}
}
