package focus

import (
	"bytes"
	"math"
	"os"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// sampleHead returns the header and the first n rows of the sample.
func sampleHead(t testing.TB, n int) string {
	raw, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(raw), "\n")
	return strings.Join(lines[:n+1], "")
}

// FuzzRead reads arbitrary CSV, strictly and leniently. It must never panic; when it succeeds,
// the totals are the sums of the lines emitted, and writing the lines and reading them again
// gives them back.
func FuzzRead(f *testing.F) {
	f.Add([]byte(sampleHead(f, 5)))
	for _, name := range []string{"testdata/focus_1_1.csv", "testdata/focus_1_2.csv"} {
		raw, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Add([]byte(goodHead + goodRow + row(0, "-1e-3") + row(17, `"{""a"":1,""b"":null}"`)))
	f.Add([]byte(goodHead + row(6, `"multi
line ""quoted"""`) + "\r\n" + row(8, "2024-09-01 00:00:00.5-07:00")))
	f.Add([]byte(goodHead + row(0, `"$10,000.00"`) + row(8, "2024/09/01") + row(3, "Sun, 01 Sep 2024 00:00:00 GMT") + row(10, "null")))
	f.Fuzz(func(t *testing.T, data []byte) {
		var lenientLines []gpucost.CostLine
		st, err := ReadWith(bytes.NewReader(data), "fuzz.csv", Options{Lenient: true}, func(l *gpucost.CostLine) error {
			lenientLines = append(lenientLines, Clone(l))
			return nil
		})
		if err != nil && gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Fatalf("ReadWith(lenient) error %v has code %s, want %s", err, gpucost.ErrorCode(err), gpucost.EInvalid)
		}
		if err == nil {
			checkSums(t, lenientLines, st)
		}
		var lines []gpucost.CostLine
		st, err = Read(bytes.NewReader(data), "fuzz.csv", func(l *gpucost.CostLine) error {
			lines = append(lines, Clone(l))
			return nil
		})
		if err != nil {
			if gpucost.ErrorCode(err) != gpucost.EInvalid {
				t.Fatalf("Read error %v has code %s, want %s", err, gpucost.ErrorCode(err), gpucost.EInvalid)
			}
			return
		}
		checkSums(t, lines, st)
		roundTrip(t, lines, st)
	})
}

func checkSums(t *testing.T, lines []gpucost.CostLine, st Stats) {
	t.Helper()
	sums := map[string]int64{}
	for _, l := range lines {
		if l.BilledCost.Currency == "" {
			t.Fatalf("line %d has no currency", l.Line)
		}
		sums[l.BilledCost.Currency] += l.BilledCost.Nanos
	}
	if st.Rows != len(lines) || len(sums) != len(st.Totals) {
		t.Fatalf("Stats %d rows %d currencies; emitted %d lines %d currencies", st.Rows, len(st.Totals), len(lines), len(sums))
	}
	for c, n := range sums {
		if st.Totals[c].BilledCost.Nanos != n {
			t.Fatalf("Totals[%s] = %d, lines sum to %d", c, st.Totals[c].BilledCost.Nanos, n)
		}
	}
}

// roundTrip writes lines as CSV and reads them again, where the writer can write them: extra
// column names it accepts, times in years 1–9999.
func roundTrip(t *testing.T, lines []gpucost.CostLine, st Stats) {
	t.Helper()
	for _, l := range lines {
		for _, tm := range []time.Time{l.BillingPeriodStart, l.ChargePeriodStart, l.ChargePeriodEnd} {
			if !tm.IsZero() && (tm.Year() < 1 || tm.Year() > 9999) {
				return
			}
		}
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, WriterOptions{Extra: st.Kept})
	if err != nil {
		return // an extra column name the writer refuses
	}
	for i := range lines {
		if err := w.Write(&lines[i]); err != nil {
			t.Fatalf("Write(line %d): %v", lines[i].Line, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	i := 0
	_, err = Read(&buf, "again.csv", func(l *gpucost.CostLine) error {
		want := lines[i]
		want.Line = l.Line
		if !reflect.DeepEqual(*l, want) {
			t.Fatalf("read again line %d:\n got  %+v\n want %+v\nfile:\n%s", i, *l, want, buf.String())
		}
		i++
		return nil
	})
	if err != nil || i != len(lines) {
		t.Fatalf("read again: %d of %d lines, %v", i, len(lines), err)
	}
}

// maxFuzzParquet is the largest input FuzzReadParquet reads: four rows of the sample are about
// 12 KB, and a larger input only slows each run and the minimising of new inputs.
const maxFuzzParquet = 64 << 10

// maxParquetAlloc bounds what one read of a fuzzed file may allocate (runtime.MemStats.TotalAlloc).
// Reads of the corpus allocate under 1 MB; a file within billing/internal/limits' page sizes
// needs tens of MB for its largest pages. An 8-byte file whose footer length says 789 MB
// ("PAR1PAR1", testdata/fuzz/FuzzReadParquet) made parquet-go allocate that much, and such
// allocations got fuzz workers killed for memory; the bound makes them a failing input instead.
const maxParquetAlloc = 512 << 20

// FuzzReadParquet reads arbitrary bytes as Parquet: never a panic, never a hang, no allocation
// past maxParquetAlloc, and totals that are the sums of the lines when it succeeds.
func FuzzReadParquet(f *testing.F) {
	lines, _ := readAllTB(f, sample)
	f.Add(writeLines(f, lines[:4], Parquet, []string{"Id"}))
	f.Add(writeLines(f, lines[:1], Parquet, nil))
	f.Add([]byte("PAR1\x00\x00\x00\x00\xff\xff\xff\x7fPAR1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzParquet {
			t.Skip("larger than maxFuzzParquet")
		}
		var lines []gpucost.CostLine
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		st, err := ReadParquet(bytes.NewReader(data), int64(len(data)), "fuzz.parquet", func(l *gpucost.CostLine) error {
			lines = append(lines, Clone(l))
			return nil
		})
		runtime.ReadMemStats(&after)
		if n := after.TotalAlloc - before.TotalAlloc; n > maxParquetAlloc {
			t.Fatalf("ReadParquet of %d bytes allocated %d MB (%v); want at most %d MB", len(data), n>>20, err, maxParquetAlloc>>20)
		}
		if err != nil {
			return
		}
		checkSums(t, lines, st)
	})
}

func readAllTB(t testing.TB, path string) ([]gpucost.CostLine, Stats) {
	var lines []gpucost.CostLine
	st, err := ReadFile(path, func(l *gpucost.CostLine) error {
		lines = append(lines, Clone(l))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return lines, st
}

// FuzzParseNanos checks the fast decimal parser against gpucost.ParseMoney.
func FuzzParseNanos(f *testing.F) {
	for _, s := range []string{"0.00000080000", "-2.61370000000", "0.000000000500", "0.0000000015", "-0.0000000025",
		"999999999.9999999995", "1e-3", "+.5", "1.", ".", "-", "0.000000037300000", "12345678901"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseNanos([]byte(s))
		want, werr := gpucost.ParseMoney(s, "")
		if (err == nil) != (werr == nil) || err == nil && got != want.Nanos {
			t.Fatalf("parseNanos(%q) = %d, %v; ParseMoney = %d, %v", s, got, err, want.Nanos, werr)
		}
	})
}

// FuzzParseTime checks the date parser: what it accepts formats and reads back to the same
// instant, and what time.Parse reads as RFC 3339 it reads the same way.
func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"2024-09-01T00:00:00Z", "2024-09-01 00:00:00", "2024-09-01T00:00:00.000Z",
		"2024-09-01T02:00:00+02:00", "2024-09-01 00:00:00 UTC", "2024-02-29", "2023-02-29T00:00:00Z", "2024-09-01T00:00:00.123456789123-0530"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseTime([]byte(s))
		if want, err := time.Parse(time.RFC3339Nano, s); err == nil && rfc3339.MatchString(s) {
			if !ok || !got.Equal(want) {
				t.Fatalf("parseTime(%q) = %v, %v; time.Parse = %v", s, got, ok, want)
			}
		}
		if !ok || got.Year() < 1 || got.Year() > 9999 {
			return
		}
		again, ok := parseTime([]byte(got.Format(time.RFC3339Nano)))
		if !ok || !again.Equal(got) {
			t.Fatalf("parseTime(%q) = %v; its RFC 3339 form reads as %v, %v", s, got, again, ok)
		}
	})
}

var rfc3339 = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$`)

// FuzzFloatNanos checks that doubles convert as their shortest decimal does.
func FuzzFloatNanos(f *testing.F) {
	for _, x := range []float64{0.1, 31.464, -2.6137, 1.5e-9, 2.5e-9, 0.0000000015, 123456789.123456789, 1e-300, 9e9} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		got, err := nanosFromFloat(x)
		want, werr := gpucost.ParseMoney(strconvG(x), "")
		if (err == nil) != (werr == nil) || err == nil && got != want.Nanos {
			t.Fatalf("nanosFromFloat(%v) = %d, %v; ParseMoney(%s) = %d, %v", x, got, err, strconvG(x), want.Nanos, werr)
		}
	})
}

func strconvG(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// FuzzParseQuantity checks the fast quantity parser against strconv.
func FuzzParseQuantity(f *testing.F) {
	for _, s := range []string{"0.011111111100000", "2.000000000000000", "-0", "1e5", "123456789012345678901", "0.0000000000000000000001", ".5", "5.", "-.", "9007199254740993"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseQuantity([]byte(s))
		want, err := strconv.ParseFloat(s, 64)
		wok := err == nil && !math.IsInf(want, 0) && !math.IsNaN(want)
		if ok != wok || ok && got != want {
			t.Fatalf("parseQuantity(%q) = %v, %v; strconv.ParseFloat = %v, %v", s, got, ok, want, err)
		}
	})
}
