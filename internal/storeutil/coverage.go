package storeutil

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
)

// ImportExtras is what both stores keep of an import besides its row's original columns: its
// providers, charge period span and files, as text (the (account, period) pairs go to a table
// of their own, so that the stores find an overlap by index).
type ImportExtras struct {
	Providers, ChargeFrom, ChargeTo, Files string
}

// EncodeExtras returns imp's providers (a JSON array, "" for none), charge span (RFC 3339, ""
// when zero) and files (a JSON array, "" for none: an import of one file, its Name and
// Checksum) as both stores keep them.
func EncodeExtras(imp gpucost.CostImport) (ImportExtras, error) {
	x := ImportExtras{ChargeFrom: TimeText(imp.ChargeFrom), ChargeTo: TimeText(imp.ChargeTo)}
	if len(imp.Providers) > 0 {
		b, err := json.Marshal(imp.Providers)
		if err != nil {
			return ImportExtras{}, err
		}
		x.Providers = string(b)
	}
	if len(imp.Files) > 0 {
		b, err := json.Marshal(imp.Files)
		if err != nil {
			return ImportExtras{}, err
		}
		x.Files = string(b)
	}
	return x, nil
}

// DecodeExtras sets imp's providers, charge span and files from x.
func DecodeExtras(imp *gpucost.CostImport, x ImportExtras) error {
	if x.Providers != "" {
		if err := json.Unmarshal([]byte(x.Providers), &imp.Providers); err != nil {
			return fmt.Errorf("import %d (%s): providers: %w", imp.ID, imp.Name, err)
		}
	}
	if x.Files != "" {
		if err := json.Unmarshal([]byte(x.Files), &imp.Files); err != nil {
			return fmt.Errorf("import %d (%s): files: %w", imp.ID, imp.Name, err)
		}
	}
	var err error
	if imp.ChargeFrom, err = ParseTimeText(x.ChargeFrom); err == nil {
		imp.ChargeTo, err = ParseTimeText(x.ChargeTo)
	}
	if err != nil {
		return fmt.Errorf("import %d (%s): charge period: %w", imp.ID, imp.Name, err)
	}
	return nil
}

// TimeText is t as both stores keep coverage times: RFC 3339 in UTC, "" when zero.
func TimeText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// ParseTimeText reads TimeText.
func ParseTimeText(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	return time.Parse(time.RFC3339Nano, s)
}

// OverlapConflict is the EConflict of storing the import called name while import id (called
// other, imported at) covers the billing account's period c too. Both stores answer it, within
// the transaction that would store the import.
func OverlapConflict(name string, id int64, other string, at time.Time, c gpucost.BillCoverage) error {
	return gpucost.Errorf(gpucost.EConflict, "store cost import %s: import %d (%s, imported %s) covers billing account %s's period %s too; storing both would count it twice: replace import %d (a restated bill) or remove it first",
		name, id, other, at.UTC().Format(time.DateTime), c.Account, gpucost.PeriodLabel(c.Period), id)
}

// CoverageRows returns imp's (account, period) pairs as the stores' coverage rows keep them.
func CoverageRows(imp gpucost.CostImport) [][2]string {
	out := make([][2]string, len(imp.Coverage))
	for i, c := range imp.Coverage {
		out[i] = [2]string{c.Account, TimeText(c.Period)}
	}
	return out
}

// ParseCoverage reads a coverage row.
func ParseCoverage(account, period string) (gpucost.BillCoverage, error) {
	p, err := ParseTimeText(period)
	return gpucost.BillCoverage{Account: account, Period: p}, err
}

// Rows is what the stores' row iterators (database/sql's and pgx's) both have.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// ReadCoverage reads rows of (import id, account, period) into each import's (account,
// period) pairs, by import id.
func ReadCoverage(rows Rows) (map[int64][]gpucost.BillCoverage, error) {
	out := map[int64][]gpucost.BillCoverage{}
	for rows.Next() {
		var imp int64
		var account, period string
		if err := rows.Scan(&imp, &account, &period); err != nil {
			return nil, err
		}
		c, err := ParseCoverage(account, period)
		if err != nil {
			return nil, fmt.Errorf("import %d: coverage period %q: %w", imp, period, err)
		}
		out[imp] = append(out[imp], c)
	}
	return out, rows.Err()
}
