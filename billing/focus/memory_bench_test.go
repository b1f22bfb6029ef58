package focus_test

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing"
	"github.com/gpucost/gpucost/billing/focus"
	"github.com/gpucost/gpucost/billing/internal/billtest"
)

// importStream returns a FOCUS CSV of rows rows shaped like the first row of the real sample
// (44 columns, its unique Id column included), streamed without being held: resources resources
// charged hourly, row i being resource i%resources in hour i/resources, each row with its own Id.
func importStream(tb testing.TB, rows, resources int) io.Reader {
	raw, err := os.ReadFile("testdata/focus_sample.csv")
	if err != nil {
		tb.Fatal(err)
	}
	r := csv.NewReader(bytes.NewReader(raw))
	header, err := r.Read()
	if err != nil {
		tb.Fatal(err)
	}
	row, err := r.Read()
	if err != nil {
		tb.Fatal(err)
	}
	col := func(name string) int { return slices.Index(header, name) }
	id, res, start, end := col("Id"), col("ResourceId"), col("ChargePeriodStart"), col("ChargePeriodEnd")
	cells := make([][]byte, len(row))
	for i, v := range row {
		cells[i] = []byte(`"` + strings.ReplaceAll(v, `"`, `""`) + `"`)
		if v == "" {
			cells[i] = nil
		}
	}
	t0 := time.Date(2024, 9, 1, 0, 0, 0, 0, time.UTC)
	var hb bytes.Buffer
	w := csv.NewWriter(&hb)
	w.Write(header)
	w.Flush()
	return billtest.NewStream(hb.String(), rows, 1024, func(dst []byte, i int) []byte {
		h := t0.Add(time.Duration(i/resources) * time.Hour)
		for c := range cells {
			if c > 0 {
				dst = append(dst, ',')
			}
			switch c {
			case id:
				dst = strconv.AppendInt(dst, int64(i), 10)
			case res:
				dst = fmt.Appendf(dst, "arn:aws:ec2:us-west-2:347410479675:instance/i-%017x", i%resources)
			case start:
				dst = h.AppendFormat(dst, time.DateTime)
			case end:
				dst = h.Add(time.Hour).AppendFormat(dst, time.DateTime)
			default:
				dst = append(dst, cells[c]...)
			}
		}
		return append(dst, '\n')
	})
}

// BenchmarkImportMemory imports a generated FOCUS bill whose rows each have their own Id, as
// the real sample's do, through ReadWith and billing.Aggregator as gpucost import billing does
// (garbage collected at GOGC 50, as it sets), and reports the peak heap (peak-heap-MB: live and
// not yet collected objects; peak-go-MB: all the memory the Go runtime holds, which bounds the
// process's) and the lines stored. By default the Id column is read past and 10 M rows make
// 2,000 resources × 209 days of lines; kept in the key, as before --keep-columns, Id stops every
// line merging (200 k rows shown). The last case gives each row its own resource: what a line
// that cannot merge costs, reader and aggregator together (peak-heap-bytes/line):
//
//	go test ./billing/focus -run XXX -bench ImportMemory -benchtime 1x
func BenchmarkImportMemory(b *testing.B) {
	none := func(string) bool { return false }
	for _, bc := range []struct {
		name      string
		rows      int
		resources int
		keep      func(string) bool
	}{
		{"rows=10M/Id=dropped", 10_000_000, 2000, none},
		{"rows=200k/Id=kept", 200_000, 2000, nil},
		{"rows=1M/resources=1M", 1_000_000, 1_000_000, none},
	} {
		b.Run(bc.name, func(b *testing.B) {
			defer debug.SetGCPercent(debug.SetGCPercent(50))
			var heap, total uint64
			lines := 0
			for b.Loop() {
				stop := peakMemory(&heap, &total)
				var agg billing.Aggregator
				_, err := focus.ReadWith(importStream(b, bc.rows, bc.resources), "gen.csv", focus.Options{Extra: bc.keep},
					func(l *gpucost.CostLine) error { agg.Add(l); return nil })
				if err != nil {
					b.Fatal(err)
				}
				for range agg.Lines() {
					lines++
				}
				stop()
				if agg.Rows() != bc.rows {
					b.Fatalf("%d rows aggregated, want %d", agg.Rows(), bc.rows)
				}
			}
			b.ReportMetric(float64(heap)/1e6, "peak-heap-MB")
			b.ReportMetric(float64(total)/1e6, "peak-go-MB")
			b.ReportMetric(float64(lines)/float64(b.N), "lines")
			b.ReportMetric(float64(heap)/float64(lines/b.N), "peak-heap-bytes/line")
			b.ReportMetric(float64(bc.rows*b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// peakMemory samples the heap every 5 ms until the returned func is called, keeping the peaks.
func peakMemory(heap, total *uint64) (stop func()) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/total:bytes"}}
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			*heap, *total = max(*heap, s[0].Value.Uint64()), max(*total, s[1].Value.Uint64())
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() { close(done); <-finished }
}
