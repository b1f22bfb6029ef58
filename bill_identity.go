package gpucost

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// BillIdentity gathers, line by line, what identifies a bill apart from its bytes: the
// providers, billing accounts and billing periods its lines cover, and the (account, period)
// pairs. Two imports that share a pair would count that account's period twice, so a bill is
// refused while a stored import covers one of its pairs, whatever either file is called or
// wherever it lies, unless it replaces that import (a restated bill; docs/limits.md "Import
// identity"). The zero value is ready to use.
type BillIdentity struct {
	providers, accounts, periods map[string]struct{}
	pairs                        map[BillCoverage]struct{}
	from, to                     time.Time
}

// BillCoverage is one billing account's billing period that a bill covers.
type BillCoverage struct {
	Account string    `json:"account"`
	Period  time.Time `json:"period"` // the billing period's start, UTC
}

// String is "ACCOUNT 2026-10" (the period's month; the full start when it is not a month's).
func (c BillCoverage) String() string {
	return c.Account + " " + PeriodLabel(c.Period)
}

// PeriodLabel is a billing period start as people read it: 2026-10 for a calendar month's,
// the RFC 3339 time otherwise.
func PeriodLabel(p time.Time) string {
	p = p.UTC()
	if p.Day() == 1 && p.Hour() == 0 && p.Minute() == 0 && p.Second() == 0 && p.Nanosecond() == 0 {
		return p.Format("2006-01")
	}
	return p.Format(time.RFC3339)
}

// ImportFile is one file an import was read from.
type ImportFile struct {
	Name     string `json:"name"`
	Checksum string `json:"checksum"` // SHA-256 of its bytes, hex
}

// Add counts the line's provider, billing account, billing period and charge period. A line
// without a billing period counts the month its charge period starts in.
func (b *BillIdentity) Add(l *CostLine) {
	if b.providers == nil {
		b.providers, b.accounts, b.periods = map[string]struct{}{}, map[string]struct{}{}, map[string]struct{}{}
		b.pairs = map[BillCoverage]struct{}{}
	}
	b.providers[strings.ToLower(l.Provider)] = struct{}{}
	b.accounts[l.BillingAccountID] = struct{}{}
	p := l.BillingPeriodStart
	if p.IsZero() {
		s := l.ChargePeriodStart.UTC()
		p = time.Date(s.Year(), s.Month(), 1, 0, 0, 0, 0, time.UTC)
	}
	p = p.UTC()
	b.periods[p.Format(time.RFC3339)] = struct{}{}
	b.pairs[BillCoverage{Account: l.BillingAccountID, Period: p}] = struct{}{}
	if s := l.ChargePeriodStart; !s.IsZero() && (b.from.IsZero() || s.Before(b.from)) {
		b.from = s.UTC()
	}
	end := l.ChargePeriodEnd
	if end.IsZero() {
		end = l.ChargePeriodStart
	}
	if end.After(b.to) {
		b.to = end.UTC()
	}
}

// Key returns the identity key of a bill of the given format: "b2-" and the SHA-256, in hex, of
// the lines
//
//	format=FORMAT
//	providers=P1,P2        (lower case, sorted)
//	accounts=A1,A2         (billing account ids, sorted)
//	periods=T1,T2          (billing period starts, RFC 3339 in UTC, sorted)
//
// each ending in a newline; "" for a bill without lines, which covers nothing. The file's name
// is no part of it (keys of imports stored before it was dropped start "b1-" and stay as they
// were). Two imports with one key cover the same pairs, so the key is a second, unique-indexed
// guard behind the coverage check.
func (b *BillIdentity) Key(format string) string {
	if len(b.pairs) == 0 {
		return ""
	}
	var s strings.Builder
	for _, kv := range [][2]string{
		{"format", format},
		{"providers", strings.Join(slices.Sorted(maps.Keys(b.providers)), ",")},
		{"accounts", strings.Join(slices.Sorted(maps.Keys(b.accounts)), ",")},
		{"periods", strings.Join(slices.Sorted(maps.Keys(b.periods)), ",")},
	} {
		s.WriteString(kv[0] + "=" + kv[1] + "\n")
	}
	sum := sha256.Sum256([]byte(s.String()))
	return "b2-" + hex.EncodeToString(sum[:])
}

// Describe sets what imp covers from the lines added: its providers, (account, period) pairs
// and charge period span, and its identity key for format.
func (b *BillIdentity) Describe(imp *CostImport, format string) {
	imp.Identity = b.Key(format)
	imp.Providers = slices.Sorted(maps.Keys(b.providers))
	imp.Coverage = SortCoverage(slices.Collect(maps.Keys(b.pairs)))
	imp.ChargeFrom, imp.ChargeTo = b.from, b.to
}

// SortCoverage sorts pairs by account, then period, and returns them.
func SortCoverage(pairs []BillCoverage) []BillCoverage {
	slices.SortFunc(pairs, func(a, b BillCoverage) int {
		if c := strings.Compare(a.Account, b.Account); c != 0 {
			return c
		}
		return a.Period.Compare(b.Period)
	})
	return pairs
}

// Accounts returns the billing accounts imp covers, sorted.
func (imp CostImport) Accounts() []string {
	var out []string
	for _, c := range imp.Coverage {
		if !slices.Contains(out, c.Account) {
			out = append(out, c.Account)
		}
	}
	slices.Sort(out)
	return out
}

// Periods returns the billing period starts imp covers, oldest first.
func (imp CostImport) Periods() []time.Time {
	var out []time.Time
	for _, c := range imp.Coverage {
		if !slices.ContainsFunc(out, c.Period.Equal) {
			out = append(out, c.Period)
		}
	}
	slices.SortFunc(out, time.Time.Compare)
	return out
}

// Overlap returns the (account, period) pairs both imp and other cover, sorted.
func (imp CostImport) Overlap(other CostImport) []BillCoverage {
	var out []BillCoverage
	for _, c := range imp.Coverage {
		if slices.ContainsFunc(other.Coverage, func(o BillCoverage) bool { return o.Account == c.Account && o.Period.Equal(c.Period) }) {
			out = append(out, c)
		}
	}
	return out
}

// HasFile reports whether imp was read from a file whose SHA-256 is sum.
func (imp CostImport) HasFile(sum string) bool {
	return imp.Checksum == sum || slices.ContainsFunc(imp.Files, func(f ImportFile) bool { return f.Checksum == sum })
}

// BillLabel returns the base name of a bill's file, / and \ both separating folders, without a
// .gz suffix: a bill is the same bill whether it was sent compressed or not, and wherever it was
// read from. A name with no base (".", "/", "") is "bill".
func BillLabel(name string) string {
	base := path.Base(strings.ReplaceAll(name, `\`, "/"))
	base = strings.TrimSuffix(base, ".gz")
	if base == "." || base == "/" || base == "" || base == ".." {
		return "bill"
	}
	return base
}

// ImportChange says, for the audit log, what replacing or removing bill imports did: the
// imports that went (id, name, source rows and totals per currency) and the one that came in
// their place, if any (nil for a removal).
func ImportChange(gone []CostImport, now *CostImport) string {
	var b strings.Builder
	b.WriteString("before: ")
	for i, imp := range gone {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(imp.Summary())
	}
	b.WriteString(". after: ")
	if now == nil {
		b.WriteString("nothing (removed)")
	} else {
		b.WriteString(now.Summary())
	}
	return b.String()
}

// Summary says what an import holds, for people and the audit log: "import 12
// (focus-2026-10.csv, 1248 rows, USD billed 181436.47 effective 170012.00)".
func (imp CostImport) Summary() string {
	totals := "no totals"
	if len(imp.Totals) > 0 {
		parts := make([]string, len(imp.Totals))
		for i, t := range imp.Totals {
			parts[i] = t.Currency + " billed " + t.BilledCost.Fixed(2) + " effective " + t.EffectiveCost.Fixed(2)
		}
		totals = strings.Join(parts, ", ")
	}
	return "import " + strconv.FormatInt(imp.ID, 10) + " (" + imp.Name + ", " + strconv.Itoa(imp.Rows) + " rows, " + totals + ")"
}

// ImportListing is an import as gpucost import list --output json and GET /api/v1/imports give
// it: what a FinOps lead checks before trusting a report, with what the import covers.
type ImportListing struct {
	ID         int64        `json:"id"`
	Format     string       `json:"format"`
	Version    string       `json:"version,omitempty"`
	File       string       `json:"file"`
	Parts      []ImportFile `json:"parts,omitempty"` // the files of a multi-part import
	SHA256     string       `json:"sha256"`
	Identity   string       `json:"identity,omitempty"`
	Providers  []string     `json:"providers"`
	Accounts   []string     `json:"billing_accounts"`
	Periods    []string     `json:"billing_periods"` // 2026-10, as PeriodLabel writes them
	Coverage   []ListedPair `json:"coverage"`        // the (billing account, billing period) pairs that make it the same bill as another
	ChargeFrom *time.Time   `json:"charge_period_start,omitempty"`
	ChargeTo   *time.Time   `json:"charge_period_end,omitempty"`
	Lenient    bool         `json:"lenient,omitempty"` // read with --lenient (CostImport.Lenient)
	Rows       int          `json:"rows"`
	Lines      int          `json:"lines_stored"`
	Totals     []CostTotal  `json:"totals"`
	ImportedAt time.Time    `json:"imported_at"`
}

// ListedPair is one (billing account, billing period) pair an import covers, as gpucost import
// list and GET /api/v1/imports give it.
type ListedPair struct {
	Account string `json:"billing_account"`
	Period  string `json:"billing_period"` // 2026-10, as PeriodLabel writes it
}

// Listing returns imp as gpucost import list and GET /api/v1/imports give it.
func (imp CostImport) Listing() ImportListing {
	l := ImportListing{ID: imp.ID, Format: imp.Format, Version: imp.Version, File: imp.Name, Parts: imp.Files, SHA256: imp.Checksum,
		Identity: imp.Identity, Providers: imp.Providers, Accounts: imp.Accounts(), Lenient: imp.Lenient, Rows: imp.Rows, Lines: imp.Lines,
		Totals: imp.Totals, ImportedAt: imp.ImportedAt}
	for _, p := range imp.Periods() {
		l.Periods = append(l.Periods, PeriodLabel(p))
	}
	l.Coverage = make([]ListedPair, len(imp.Coverage))
	for i, c := range imp.Coverage {
		l.Coverage[i] = ListedPair{Account: c.Account, Period: PeriodLabel(c.Period)}
	}
	if !imp.ChargeFrom.IsZero() {
		from, to := imp.ChargeFrom, imp.ChargeTo
		l.ChargeFrom, l.ChargeTo = &from, &to
	}
	for _, s := range []*[]string{&l.Providers, &l.Accounts, &l.Periods} {
		if *s == nil {
			*s = []string{}
		}
	}
	if l.Totals == nil {
		l.Totals = []CostTotal{}
	}
	return l
}
