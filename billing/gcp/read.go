package gcp

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/gpucost/gpucost/billing/internal/csvscan"
	"github.com/gpucost/gpucost/billing/internal/totals"

	"github.com/klauspost/compress/gzip"

	"github.com/gpucost/gpucost"
)

// Stats describes what a read read, as every bill reader reports it (totals.Stats), and what
// only the GCP export has. Version is the Dialect and the Format, as "detailed, ndjson"; Format
// is "csv", "ndjson" or "json" (one JSON array), with ".gz" when compressed; Rows the rows read,
// one CostLine each; Totals, per currency, the exact sums that let a caller reconcile with the
// source (BilledCost and EffectiveCost equal Source, Σ cost, plus Credits: a row's credits are
// netted into its line; ContractedCost is Σ cost too); Types the rows by cost_type; Unknown the
// column or field names outside the schema, sorted, whose values are not read. When a read
// fails, Stats covers the rows emitted before the failure.
type Stats struct {
	totals.Stats
	Dialect string             // DialectStandard or DialectDetailed
	Names   string             // how columns are named: NamesDotted, NamesUnderscore, NamesMixed or NamesNested
	Credits map[string]Credits // by currency, for the currencies of Totals
}

// Credits are the exact sums of one currency's credits.
type Credits struct {
	Total  gpucost.Money            // Σ credits.amount over every credit of every row
	ByType map[string]gpucost.Money // Σ credits.amount by credits.type ("" when untyped)
}

// creditSums accumulates one currency's credits in nano-units.
type creditSums struct {
	total  int64
	byType map[string]int64
}

func newCredits() *creditSums { return &creditSums{byType: map[string]int64{}} }

// tally accumulates Stats while a file is read.
type tally struct {
	totals.Tally
	credits totals.Currencies[creditSums]
}

// add counts one line. It fails when a sum leaves the range of Money.
func (t *tally) add(c *gpucost.CostLine, d *dims, v *rowValues) error {
	if len(v.credits.items) > 0 { // most rows have none
		cur := c.BilledCost.Currency
		s := t.credits.Of(cur)
		ok := true
		s.total, ok = totals.Add(s.total, v.credits.sum, ok)
		for _, it := range v.credits.items {
			s.byType[it.typ], ok = totals.Add(s.byType[it.typ], it.nanos, ok)
		}
		if !ok || netOverflows(v) {
			return totals.Overflow(cur)
		}
	}
	return t.Tally.Add(c, v.cost, d.str[fCostType])
}

// netOverflows reports whether a row's cost plus its credits leaves the range of Money.
func netOverflows(v *rowValues) bool {
	_, ok := totals.Add(v.cost, v.credits.sum, true)
	return !ok
}

// stats returns the Stats so far.
func (rd *reader) stats(format, names string) Stats {
	t := &rd.tally
	st := Stats{Stats: totals.Stats{Format: format}, Names: names, Dialect: DialectStandard, Credits: map[string]Credits{}}
	t.Fill(&st.Stats, true)
	if rd.detailed {
		st.Dialect = DialectDetailed
	}
	st.Version = st.Dialect + ", " + format
	for u := range rd.unknown {
		st.Unknown = append(st.Unknown, u)
	}
	slices.Sort(st.Unknown)
	for cur := range st.Totals {
		m := func(n int64) gpucost.Money { return gpucost.Money{Nanos: n, Currency: cur} }
		cr := Credits{Total: m(0), ByType: map[string]gpucost.Money{}}
		if s, ok := t.credits.All()[cur]; ok {
			cr.Total = m(s.total)
			for typ, n := range s.byType {
				cr.ByType[typ] = m(n)
			}
		}
		st.Credits[cur] = cr
	}
	return st
}

// Read reads a Cloud Billing export to BigQuery — the standard usage cost table
// (gcp_billing_export_v1_…) or the detailed one (gcp_billing_export_resource_v1_…) — as users
// get it out of BigQuery: newline-delimited JSON with nested records, a JSON array of rows, or
// CSV with records flattened to service.description or service_description columns and
// repeated records (labels, credits, …) as JSON text. Gzip is detected by its magic bytes and
// JSON by its first character. emit is called for each row, in file order; name is used in
// messages.
//
// The *CostLine handed to emit is reused for the next row: emit must copy what it keeps. Its
// strings are shared between lines, and its Tags and Extra maps are shared by every line with
// the same values: emit must not modify them.
//
// Read stops at the first value it cannot read, with a gpucost.EInvalid error naming the file,
// line and column, the value and what to do. A CSV file without the required columns fails
// before any line is emitted, listing all of them. Negative amounts (credits, corrections) are
// kept as such. Reading streams, so a truncated file fails when the damage is reached, after the
// lines before it were emitted: a caller that stores files whole keeps what emit gives it
// pending until Read returns nil.
func Read(r io.Reader, name string, emit func(*gpucost.CostLine) error) (Stats, error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	suffix := ""
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return Stats{}, gpucost.Errorf(gpucost.EInvalid, "read GCP billing export %s: not a readable gzip file (%v); download it again", name, err)
		}
		defer zr.Close()
		br, suffix = bufio.NewReaderSize(zr, 64<<10), ".gz"
	}
	kind, err := sniff(br)
	if err != nil {
		return Stats{}, gpucost.Errorf(gpucost.EInvalid, "read GCP billing export %s: %v", name, err)
	}
	rd := newReader(name, emit)
	switch kind {
	case "csv":
		p, err := rd.readCSV(csvscan.New(br, 256<<10))
		st := rd.stats("csv"+suffix, "")
		if p != nil { // names inside JSON record columns are in st.Unknown already
			st.Names, st.Dialect = p.style, p.dialect
			st.Unknown = slices.Sorted(slices.Values(append(st.Unknown, p.unknown...)))
		}
		return st, err
	case "Parquet", "Avro":
		return Stats{}, gpucost.Errorf(gpucost.EInvalid,
			"read GCP billing export %s: a %s file; export the table as CSV or newline-delimited JSON (bq extract --destination_format NEWLINE_DELIMITED_JSON)", name, kind)
	}
	sc := newJSONScanner(br)
	err = rd.readJSON(sc)
	format := "ndjson"
	if sc.array {
		format = "json"
	}
	st := rd.stats(format+suffix, NamesNested)
	if err == nil && st.Rows == 0 && !sc.array {
		err = gpucost.Errorf(gpucost.EInvalid, "read GCP billing export %s: the file is empty; want CSV with a header line or JSON rows", name)
	}
	return st, err
}

// sniff tells CSV from JSON by the first character after white space and a byte order mark.
func sniff(br *bufio.Reader) (string, error) {
	head, err := br.Peek(512)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return "", fmt.Errorf("%w; the file is truncated or damaged, download it again", err)
	}
	switch {
	case bytes.HasPrefix(head, []byte("PAR1")):
		return "Parquet", nil
	case bytes.HasPrefix(head, []byte("Obj\x01")):
		return "Avro", nil
	}
	t := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\ufeff")), " \t\r\n")
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		return "json", nil
	}
	return "csv", nil
}

// ReadFile reads the export at path, CSV or JSON, gzip-compressed or not. See Read.
func ReadFile(path string, emit func(*gpucost.CostLine) error) (Stats, error) {
	f, err := os.Open(path)
	if err != nil {
		return Stats{}, gpucost.Errorf(gpucost.EInvalid, "read GCP billing export: %w", err)
	}
	defer f.Close()
	return Read(bufio.NewReaderSize(f, 64<<10), path, emit)
}

// Detect reports whether the first bytes of a file (gzip-compressed or not) look like a Cloud
// Billing export: a CSV header, or a first JSON row, with cost and usage_start_time and a
// service, SKU or billing account field. Importers use it to choose a reader (--format auto).
func Detect(header []byte) bool {
	if len(header) >= 2 && header[0] == 0x1f && header[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(header))
		if err != nil {
			return false
		}
		plain, _ := io.ReadAll(io.LimitReader(zr, 64<<10)) // a prefix: the stream is cut short
		header = plain
	}
	t := bytes.TrimLeft(bytes.TrimPrefix(header, []byte("\ufeff")), " \t\r\n")
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		return jsonLooksLikeExport(t)
	}
	line, _, _ := bytes.Cut(t, []byte("\n"))
	sc := csvscan.New(bytes.NewReader(line), len(line)+1)
	if !sc.Next() {
		return false
	}
	seen := map[field]bool{}
	other := false
	for i := range sc.Count() {
		b := sc.Field(i)
		switch n, _ := columnNode(string(b)); {
		case n == nil || n.kind == kSkip:
		case n.kind == kRecord:
			other = other || n.name == "service" || n.name == "sku"
		default:
			seen[n.field] = true
		}
	}
	return seen[aCost] && seen[tStart] && (seen[fServiceDesc] || seen[fServiceID] || seen[fSkuID] ||
		seen[fSkuDesc] || seen[fBillingAccount] || other)
}

// jsonLooksLikeExport looks for an export's keys in the first JSON row.
func jsonLooksLikeExport(b []byte) bool {
	has := func(key string) bool { return bytes.Contains(b, []byte(`"`+key+`"`)) }
	return has("cost") && has("usage_start_time") && (has("service") || has("sku") || has("billing_account_id") ||
		has("service_description") || has("sku_description"))
}
