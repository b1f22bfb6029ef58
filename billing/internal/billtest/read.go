package billtest

import (
	"bytes"
	"testing"

	"github.com/gpucost/gpucost"
)

// Collect runs read with an emit that keeps copies of the lines, and fails t on an error; name
// is the file, for the message.
func Collect[S any](t testing.TB, name string, read func(emit func(*gpucost.CostLine) error) (S, error)) ([]gpucost.CostLine, S) {
	t.Helper()
	var lines []gpucost.CostLine
	st, err := read(func(c *gpucost.CostLine) error {
		lines = append(lines, *c)
		return nil
	})
	if err != nil {
		t.Fatalf("ReadFile(%s) = %v", name, err)
	}
	return lines, st
}

// LineReused checks the readers' documented contract that emit gets the same *CostLine each
// time; read reads a fixture of two lines or more.
func LineReused(t testing.TB, read func(emit func(*gpucost.CostLine) error) error) {
	t.Helper()
	var ptrs []*gpucost.CostLine
	if err := read(func(c *gpucost.CostLine) error {
		ptrs = append(ptrs, c)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(ptrs) < 2 || ptrs[0] != ptrs[1] {
		t.Errorf("emit got distinct pointers; the documented contract is one reused line")
	}
}

// Sums is what a read emitted: its rows, and billed and effective nano-units per currency, for
// checking against the Stats a reader returns.
type Sums struct {
	Rows              int
	Billed, Effective map[string]int64
}

// CheckRead runs a fuzzed read with an emit that checks every line's billed, effective and list
// costs share one non-empty currency, calls more (when not nil) for the reader's own checks, and
// sums what is emitted; it fails t when read returns an error that is not gpucost.EInvalid.
func CheckRead(t testing.TB, read func(emit func(*gpucost.CostLine) error) error, more func(c *gpucost.CostLine)) Sums {
	t.Helper()
	s := Sums{Billed: map[string]int64{}, Effective: map[string]int64{}}
	err := read(func(c *gpucost.CostLine) error {
		cur := c.BilledCost.Currency
		if cur == "" || c.EffectiveCost.Currency != cur || c.ListCost.Currency != cur {
			t.Fatalf("line %d has currencies %q/%q/%q", c.Line, cur, c.EffectiveCost.Currency, c.ListCost.Currency)
		}
		if more != nil {
			more(c)
		}
		s.Billed[cur] += c.BilledCost.Nanos
		s.Effective[cur] += c.EffectiveCost.Nanos
		s.Rows++
		return nil
	})
	if err != nil {
		if code := gpucost.ErrorCode(err); code != gpucost.EInvalid {
			t.Fatalf("error code %q for %v; bad input must be EInvalid", code, err)
		}
	}
	return s
}

// AddSeeds adds a fixture to a fuzz corpus as it is, gzip-compressed, and cut after its header
// and part of its first row.
func AddSeeds(f *testing.F, b []byte) {
	f.Add(b)
	f.Add(Gzip(f, b))
	if i := bytes.IndexByte(b, '\n'); i > 0 && len(b) > 2*i {
		f.Add(b[:2*i])
	}
}
