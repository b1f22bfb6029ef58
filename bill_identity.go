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
// providers, billing accounts and billing periods its lines cover. With the format and the
// export's base file name it makes the bill's identity key (Key), which a restated bill shares
// with the bill it restates, which the parts of one multi-part export do not share, and which
// does not depend on where the file was read from: an upload and a CLI import of one bill meet.
// The zero value is ready to use.
type BillIdentity struct {
	providers, accounts, periods map[string]struct{}
}

// Add counts the line's provider, billing account and billing period. A line without a billing
// period counts the month its charge period starts in.
func (b *BillIdentity) Add(l *CostLine) {
	if b.providers == nil {
		b.providers, b.accounts, b.periods = map[string]struct{}{}, map[string]struct{}{}, map[string]struct{}{}
	}
	b.providers[strings.ToLower(l.Provider)] = struct{}{}
	b.accounts[l.BillingAccountID] = struct{}{}
	p := l.BillingPeriodStart
	if p.IsZero() {
		s := l.ChargePeriodStart.UTC()
		p = time.Date(s.Year(), s.Month(), 1, 0, 0, 0, 0, time.UTC)
	}
	b.periods[p.UTC().Format(time.RFC3339)] = struct{}{}
}

// Key returns the identity key of a bill of the given format whose export is called name: "b1-"
// and the SHA-256, in hex, of the lines
//
//	format=FORMAT
//	providers=P1,P2        (lower case, sorted)
//	accounts=A1,A2         (billing account ids, sorted)
//	periods=T1,T2          (billing period starts, RFC 3339 in UTC, sorted)
//	file=BASE              (BillLabel(name): the base name without a .gz suffix)
//
// each ending in a newline.
func (b *BillIdentity) Key(format, name string) string {
	var s strings.Builder
	for _, kv := range [][2]string{
		{"format", format},
		{"providers", strings.Join(slices.Sorted(maps.Keys(b.providers)), ",")},
		{"accounts", strings.Join(slices.Sorted(maps.Keys(b.accounts)), ",")},
		{"periods", strings.Join(slices.Sorted(maps.Keys(b.periods)), ",")},
		{"file", BillLabel(name)},
	} {
		s.WriteString(kv[0] + "=" + kv[1] + "\n")
	}
	sum := sha256.Sum256([]byte(s.String()))
	return "b1-" + hex.EncodeToString(sum[:])
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
