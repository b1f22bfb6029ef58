package totals

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gpucost/gpucost"
)

// Stats is what every bill reader (billing/focus, awscur, gcp, azure) reports about a file,
// whatever its format: each reader's own Stats embeds it and adds what only its format has.
// The importer (billing.Importer) reads nothing else: it stores Version, shows Unknown and
// Kept, and reconciles Totals to the cent with what it stored.
type Stats struct {
	Format  string // how the file was written: csv, csv.gz, parquet, ndjson, json …
	Version string // the format's version or dialect, as stored with the import
	Rows    int    // source rows read, one cost line each

	Totals map[string]Sums // by billing currency; currencies are never added together

	// Types counts rows by the source's own type column: CUR's line_item_line_item_type,
	// GCP's cost_type, Azure's ChargeType; nil where the format has none (FOCUS).
	Types map[string]int

	// Unknown are the columns outside the format, sorted or in file order as the reader says,
	// whose values were not read; Kept are those whose values were kept as CostLine.Extra.
	Unknown, Kept []string

	// Coerced counts the values a lenient read (billing/internal/lenient) rewrote, by kind;
	// nil when it rewrote none.
	Coerced []Coercion
}

// Coercion counts the values of one kind a lenient read rewrote, and says how.
type Coercion struct {
	Kind    string   `json:"kind"`    // what the values are: "amounts", "dates"
	How     string   `json:"how"`     // what was done to them
	Columns []string `json:"columns"` // the columns they were in, in the order first met
	Count   int      `json:"count"`
}

// String says what c did, as an import's summary prints it: "coerced 1,204 amounts in
// BilledCost, EffectiveCost: currency symbol and thousands separators removed".
func (c Coercion) String() string {
	kind := c.Kind
	if c.Count == 1 {
		kind = strings.TrimSuffix(kind, "s")
	}
	return "coerced " + thousands(c.Count) + " " + kind + " in " + strings.Join(c.Columns, ", ") + ": " + c.How
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Coercions tallies the values a lenient read rewrote. The zero value is ready to use.
type Coercions struct{ list []Coercion }

// Add counts one value of kind, rewritten as how says, in column.
func (t *Coercions) Add(kind, how, column string) {
	i := slices.IndexFunc(t.list, func(c Coercion) bool { return c.Kind == kind })
	if i < 0 {
		t.list = append(t.list, Coercion{Kind: kind, How: how})
		i = len(t.list) - 1
	}
	c := &t.list[i]
	c.Count++
	if !slices.Contains(c.Columns, column) {
		c.Columns = append(c.Columns, column)
	}
}

// List returns the tallies, by kind in the order first met; nil when nothing was rewritten.
func (t *Coercions) List() []Coercion {
	if len(t.list) == 0 {
		return nil
	}
	out := slices.Clone(t.list)
	for i := range out {
		out[i].Columns = slices.Clone(out[i].Columns)
	}
	return out
}

// Sums are exact sums over one currency's lines.
type Sums struct {
	Rows                                                int
	BilledCost, EffectiveCost, ListCost, ContractedCost gpucost.Money

	// Source is the sum of the source's own cost column as written, for reconciliation with
	// the provider's console: CUR's line_item_unblended_cost, GCP's cost, Azure's cost column.
	// FOCUS, whose BilledCost is its own column, leaves it zero.
	Source gpucost.Money
}

// Currencies returns the currencies of st.Totals, sorted.
func (st Stats) Currencies() []string { return slices.Sorted(maps.Keys(st.Totals)) }

// CostTotals returns the BilledCost and EffectiveCost sums per currency, sorted by currency:
// what an import stores and is reconciled against.
func (st Stats) CostTotals() []gpucost.CostTotal {
	var ts gpucost.CostTotals
	for _, cur := range st.Currencies() {
		s := st.Totals[cur]
		ts.Add(s.BilledCost, s.EffectiveCost)
	}
	return ts.Sorted()
}

// sums accumulates one currency's Sums in nano-units.
type sums struct {
	rows                                            int
	billed, effective, list, contracted, sourceCost int64
}

// Tally accumulates the Rows, Totals and Types of Stats as a reader emits lines, checking
// every sum for overflow. The zero value is ready to use.
type Tally struct {
	byCur Currencies[sums]
	types Counts
	rows  int
}

// Add counts one line whose source cost column held source nano-units and whose type column
// held typ (pass "" where the format has none). It fails when a sum leaves the range of Money.
func (t *Tally) Add(l *gpucost.CostLine, source int64, typ string) error {
	cur := l.BilledCost.Currency
	s := t.byCur.Of(cur)
	ok := true
	s.billed, ok = Add(s.billed, l.BilledCost.Nanos, ok)
	s.effective, ok = Add(s.effective, l.EffectiveCost.Nanos, ok)
	s.list, ok = Add(s.list, l.ListCost.Nanos, ok)
	s.contracted, ok = Add(s.contracted, l.ContractedCost.Nanos, ok)
	s.sourceCost, ok = Add(s.sourceCost, source, ok)
	if !ok {
		return Overflow(cur)
	}
	s.rows++
	t.types.Add(typ)
	t.rows++
	return nil
}

// Rows returns the lines counted so far.
func (t *Tally) Rows() int { return t.rows }

// Fill sets st's Rows, Totals and, when types is true, Types from what was counted.
func (t *Tally) Fill(st *Stats, types bool) {
	st.Rows = t.rows
	st.Totals = make(map[string]Sums, len(t.byCur.All()))
	for cur, s := range t.byCur.All() {
		m := func(n int64) gpucost.Money { return gpucost.Money{Nanos: n, Currency: cur} }
		st.Totals[cur] = Sums{Rows: s.rows, BilledCost: m(s.billed), EffectiveCost: m(s.effective),
			ListCost: m(s.list), ContractedCost: m(s.contracted), Source: m(s.sourceCost)}
	}
	if types {
		st.Types = Map[int](&t.types)
	}
}
