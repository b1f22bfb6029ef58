package gcp

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/billtest"
)

// FuzzRead reads arbitrary input and checks what holds for any: no panic; an error is
// gpucost.EInvalid; the Stats agree with the lines emitted; every line's BilledCost is its
// ContractedCost (cost) plus its credits, so the totals reconcile.
func FuzzRead(f *testing.F) {
	// Small seeds (a few rows of each fixture) let the fuzzer mutate and minimise quickly; the
	// whole fixtures are read by the other tests.
	for _, name := range fixtures {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		if filepath.Ext(name) == ".json" {
			b = b[:bytes.Index(b, []byte("\n  },\n"))+4]
			b = append(b, "]\n"...)
		} else {
			b = firstLines(b, 4)
		}
		f.Add(b)
		f.Add(billtest.Gzip(f, b))
		f.Add(b[:len(b)*2/3]) // cut inside a row
	}
	f.Add([]byte("cost,currency,usage_start_time,usage_end_time,credits,labels\n" +
		`1e3,USD,2025-06-01 00:00:00 UTC,1748739600,"[{""amount"":""-1""}]","{""a"":""b""}"` + "\n"))
	f.Add([]byte(`[{"cost":"1","currency":"EUR","usage_start_time":"2025-06-01T00:00:00Z","usage_end_time":"2025-06-01T01:00:00Z","service_description":"GPU"}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 64<<10 {
			return
		}
		billed, contracted, credits, rows := map[string]int64{}, map[string]int64{}, map[string]int64{}, 0
		st, err := Read(bytes.NewReader(b), "fuzz", func(c *gpucost.CostLine) error {
			cur := c.BilledCost.Currency
			if cur == "" || c.EffectiveCost != c.BilledCost || c.ListCost.Currency != cur || c.ContractedCost.Currency != cur {
				t.Fatalf("line %d amounts %v %v %v %v", c.Line, c.BilledCost, c.EffectiveCost, c.ListCost, c.ContractedCost)
			}
			billed[cur] += c.BilledCost.Nanos
			contracted[cur] += c.ContractedCost.Nanos
			credits[cur] += c.BilledCost.Nanos - c.ContractedCost.Nanos
			rows++
			return nil
		})
		if err != nil && gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Fatalf("error code %q for %v; bad input must be EInvalid", gpucost.ErrorCode(err), err)
		}
		if st.Rows != rows {
			t.Fatalf("Stats.Rows = %d, emitted %d", st.Rows, rows)
		}
		for cur, tot := range st.Totals {
			if tot.BilledCost.Nanos != billed[cur] || tot.Source.Nanos != contracted[cur] || st.Credits[cur].Total.Nanos != credits[cur] {
				t.Fatalf("Totals[%s] = %+v, emitted billed %d cost %d credits %d", cur, tot, billed[cur], contracted[cur], credits[cur])
			}
		}
	})
}

// firstLines returns the first n lines of b.
func firstLines(b []byte, n int) []byte {
	end := 0
	for range n {
		i := bytes.IndexByte(b[end:], '\n')
		if i < 0 {
			return b
		}
		end += i + 1
	}
	return b[:end]
}
