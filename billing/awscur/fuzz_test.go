package awscur

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpucost/gpucost"
)

// checkRead reads input with read and checks what holds for any input: no panic; an error is
// gpucost.EInvalid; the Stats agree with the lines emitted.
func checkRead(t *testing.T, read func(emit func(*gpucost.CostLine) error) (Stats, error)) {
	t.Helper()
	billed, effective, rows := map[string]int64{}, map[string]int64{}, int64(0)
	st, err := read(func(c *gpucost.CostLine) error {
		cur := c.BilledCost.Currency
		if cur == "" || c.EffectiveCost.Currency != cur || c.ListCost.Currency != cur {
			t.Fatalf("line %d has currencies %q/%q/%q", c.Line, cur, c.EffectiveCost.Currency, c.ListCost.Currency)
		}
		billed[cur] += c.BilledCost.Nanos
		effective[cur] += c.EffectiveCost.Nanos
		rows++
		return nil
	})
	if err != nil {
		if code := gpucost.ErrorCode(err); code != gpucost.EInvalid {
			t.Fatalf("error code %q for %v; bad input must be EInvalid", code, err)
		}
	}
	if st.Rows != rows {
		t.Fatalf("Stats.Rows = %d, emitted %d", st.Rows, rows)
	}
	for cur, tot := range st.Totals {
		if tot.Billed.Nanos != billed[cur] || tot.Effective.Nanos != effective[cur] {
			t.Fatalf("Totals[%s] = %+v, emitted billed %d effective %d", cur, tot, billed[cur], effective[cur])
		}
	}
}

func FuzzRead(f *testing.F) {
	for _, name := range fixtures {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(gz(f, b))
		if i := bytes.IndexByte(b, '\n'); i > 0 && len(b) > 2*i {
			f.Add(b[:2*i]) // header and part of a row
		}
	}
	f.Add([]byte("line_item_line_item_type,line_item_usage_start_date,line_item_usage_end_date,line_item_unblended_cost,line_item_currency_code,resource_tags\n" +
		`Usage,2025-06-01T00:00:00Z,2025-06-01T01:00:00Z,1e3,USD,"{""a"":""b""}"` + "\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkRead(t, func(emit func(*gpucost.CostLine) error) (Stats, error) {
			return Read(bytes.NewReader(b), "fuzz.csv", emit)
		})
	})
}

func FuzzReadParquet(f *testing.F) {
	f.Add(fixtureParquet(f, "testdata/cur2_net_eur.csv", curTypes, 4))
	f.Add(fixtureParquet(f, "testdata/legacy_cur.csv", curTypes, 1000))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkRead(t, func(emit func(*gpucost.CostLine) error) (Stats, error) {
			return ReadParquet(bytes.NewReader(b), int64(len(b)), "fuzz.parquet", emit)
		})
	})
}
