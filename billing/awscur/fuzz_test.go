package awscur

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/billtest"
)

// checkRead reads input with read and checks what holds for any input: no panic; an error is
// gpucost.EInvalid; the Stats agree with the lines emitted.
func checkRead(t *testing.T, read func(emit func(*gpucost.CostLine) error) (Stats, error)) {
	t.Helper()
	var st Stats
	got := billtest.CheckRead(t, func(emit func(*gpucost.CostLine) error) (err error) {
		st, err = read(emit)
		return err
	}, nil)
	if st.Rows != got.Rows {
		t.Fatalf("Stats.Rows = %d, emitted %d", st.Rows, got.Rows)
	}
	for cur, tot := range st.Totals {
		if tot.BilledCost.Nanos != got.Billed[cur] || tot.EffectiveCost.Nanos != got.Effective[cur] {
			t.Fatalf("Totals[%s] = %+v, emitted billed %d effective %d", cur, tot, got.Billed[cur], got.Effective[cur])
		}
	}
}

func FuzzRead(f *testing.F) {
	for _, name := range fixtures {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		billtest.AddSeeds(f, b)
	}
	f.Add([]byte("line_item_line_item_type,line_item_usage_start_date,line_item_usage_end_date,line_item_unblended_cost,line_item_currency_code,resource_tags\n" +
		`Usage,2025-06-01T00:00:00Z,2025-06-01T01:00:00Z,1e3,USD,"{""a"":""b""}"` + "\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkRead(t, func(emit func(*gpucost.CostLine) error) (Stats, error) {
			return Read(bytes.NewReader(b), "fuzz.csv", emit)
		})
	})
}

// maxFuzzParquet is the largest input FuzzReadParquet reads: its seeds are about 12 KB, and a
// larger input only slows each run and the minimising of new inputs.
const maxFuzzParquet = 64 << 10

// maxParquetAlloc bounds what one read of a fuzzed file may allocate (runtime.MemStats.TotalAlloc):
// reads of the corpus allocate about a megabyte, a file within billing/internal/limits' page
// sizes tens of megabytes, while a footer or page header that declares gigabytes made parquet-go
// allocate them (billing/internal/pqcheck) and got fuzz workers killed for memory.
const maxParquetAlloc = 512 << 20

// FuzzReadParquet reads arbitrary bytes as Parquet: no panic, an EInvalid error or Stats that
// agree with the lines, and no allocation past maxParquetAlloc.
func FuzzReadParquet(f *testing.F) {
	f.Add(fixtureParquet(f, "testdata/cur2_net_eur.csv", curTypes, 4))
	f.Add(fixtureParquet(f, "testdata/legacy_cur.csv", curTypes, 1000))
	f.Add([]byte("PAR1PAR1"))
	f.Add([]byte("PAR1\x00\x00\x00\x00\xff\xff\xff\x7fPAR1"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzParquet {
			t.Skip("larger than maxFuzzParquet")
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		checkRead(t, func(emit func(*gpucost.CostLine) error) (Stats, error) {
			return ReadParquet(bytes.NewReader(b), int64(len(b)), "fuzz.parquet", emit)
		})
		runtime.ReadMemStats(&after)
		if n := after.TotalAlloc - before.TotalAlloc; n > maxParquetAlloc {
			t.Fatalf("ReadParquet of %d bytes allocated %d MB; want at most %d MB", len(b), n>>20, maxParquetAlloc>>20)
		}
	})
}
