package billimport

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing"
	"github.com/gpucost/gpucost/billing/internal/csvscan"
	"github.com/gpucost/gpucost/billing/internal/totals"
)

// A large CSV bill is read in parts side by side, one goroutine and one billing.Aggregator each,
// and the aggregators are merged in the parts' order (billing.Aggregator.Merge), which gives the
// lines and totals one reader gets. A part is the file's header followed by the rows between
// two line ends; each part's reader is the format's own, unchanged.
//
// Where a part starts is a guess: the first line end after an even share of the file, which a
// quoted field holding line breaks may hide. A part read whole without an error ends where a
// record ends (a quote left open at its end is an error), so when every part reads cleanly, the
// first part starting at the file's start, each part started where a record starts and read the
// rows one reader would have. When any part fails — a bad value, a quote spanning a split, a sum
// past the range of an amount — the parts are dropped and the file is read again by one reader,
// whose result stands: errors name the line and column they always did, and an import stays
// whole or nothing.

// splitMin is the size from which a CSV bill is read in parts, and the least a part holds:
// below it, starting the goroutines and merging costs more than they save.
var splitMin int64 = 16 << 20

// maxParts bounds the parts of one file: each holds an aggregator until it is merged.
const maxParts = 8

// errStopped stops a part's reader when another part has failed, and a read that is no
// longer wanted (readFile).
var errStopped = errors.New("another part of the file failed")

// span is a part of a file: the rows from off to end, starting where a line starts.
type span struct{ off, end int64 }

// splitParts returns how many parts to read a file of size bytes in: 1 when it is read whole.
func splitParts(size int64) int {
	return int(min(int64(runtime.GOMAXPROCS(0)), size/max(splitMin, 1), maxParts))
}

// splitCSV returns the header of the CSV file r of size bytes (its first record, with its line
// end) and up to n spans of its rows, each starting after a line end; ok is false when the file
// is not split: a gzip stream, a header the CSV scanner does not read as one record, or no line
// ends to split at.
func splitCSV(r io.ReaderAt, size int64, n int) (header []byte, spans []span, ok bool) {
	first := make([]byte, min(size, 64<<10))
	if _, err := r.ReadAt(first, 0); err != nil && err != io.EOF {
		return nil, nil, false
	}
	if bytes.HasPrefix(first, []byte{0x1f, 0x8b}) {
		return nil, nil, false
	}
	header = firstRecord(first)
	if header == nil {
		return nil, nil, false
	}
	from := int64(len(header))
	window := make([]byte, 64<<10)
	for k := 1; k < n; k++ {
		guess := from + (size-from)*int64(k)/int64(n)
		if len(spans) > 0 && guess <= spans[len(spans)-1].off {
			continue
		}
		m, err := r.ReadAt(window, guess)
		if err != nil && err != io.EOF {
			return nil, nil, false
		}
		i := bytes.IndexByte(window[:m], '\n')
		if i < 0 || guess+int64(i)+1 >= size {
			continue
		}
		spans = append(spans, span{off: guess + int64(i) + 1})
	}
	if len(spans) == 0 {
		return nil, nil, false
	}
	spans = append([]span{{off: from}}, spans...)
	for i := range spans {
		spans[i].end = size
		if i+1 < len(spans) {
			spans[i].end = spans[i+1].off
		}
	}
	return header, spans, true
}

// firstRecord returns the first record of data with its line end: the bytes up to the first
// line end outside quotes, which the CSV scanner must read as one whole record; nil when it does
// not, or data holds no line end outside quotes.
func firstRecord(data []byte) []byte {
	quoted := false
	for i, c := range data {
		switch {
		case c == '"':
			quoted = !quoted
		case c == '\n' && !quoted:
			s := csvscan.New(bytes.NewReader(data[:i+1]), i+1)
			if !s.Next() || s.Next() || s.Err() != nil {
				return nil
			}
			return data[:i+1]
		}
	}
	return nil
}

// readSplit reads the CSV file r of size bytes in parts side by side with the format's reader
// into agg, and returns the stats of the whole file; ok is false when it was not split or a part
// failed, and then agg holds what the parts read, to be dropped.
func readSplit(r io.ReaderAt, size int64, name string, rd format, o Options, agg *billing.Aggregator, n int, stop func() bool) (st Stats, ok bool) {
	header, spans, ok := splitCSV(r, size, n)
	if !ok {
		return Stats{}, false
	}
	aggs := make([]*billing.Aggregator, len(spans))
	stats := make([]Stats, len(spans))
	errs := make([]error, len(spans))
	var failed atomic.Bool
	var wg sync.WaitGroup
	aggs[0] = agg
	for i := range spans[1:] {
		aggs[i+1] = &billing.Aggregator{Grain: agg.Grain}
	}
	for i, sp := range spans {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rows := io.MultiReader(bytes.NewReader(header), io.NewSectionReader(r, sp.off, sp.end-sp.off))
			a := aggs[i]
			stats[i], errs[i] = rd.read(rows, name, o, func(l *gpucost.CostLine) error {
				if failed.Load() || stop() {
					return errStopped
				}
				a.Add(l)
				return nil
			})
			if errs[i] != nil {
				failed.Store(true)
			}
		}()
	}
	wg.Wait()
	if failed.Load() {
		return Stats{}, false
	}
	for _, a := range aggs[1:] {
		agg.Merge(a)
	}
	return mergeStats(stats)
}

// mergeStats returns the stats of a file from those of its parts, in order: rows, totals and
// type counts summed, coercions tallied in the order first met, the rest (read from the header
// every part shares) from the first. ok is false when a total passes the range of an amount,
// which the one reader's read then reports.
func mergeStats(parts []Stats) (Stats, bool) {
	st := parts[0]
	st.Rows, st.Totals, st.Types, st.Coerced = 0, map[string]Sums{}, nil, nil
	for _, p := range parts {
		st.Rows += p.Rows
		for cur, s := range p.Totals {
			t, ok := st.Totals[cur], true
			for _, m := range []struct{ sum, part *gpucost.Money }{
				{&t.BilledCost, &s.BilledCost}, {&t.EffectiveCost, &s.EffectiveCost}, {&t.ListCost, &s.ListCost},
				{&t.ContractedCost, &s.ContractedCost}, {&t.Source, &s.Source},
			} {
				m.sum.Nanos, ok = totals.Add(m.sum.Nanos, m.part.Nanos, ok)
				m.sum.Currency = cur
			}
			if !ok {
				return Stats{}, false
			}
			t.Rows += s.Rows
			st.Totals[cur] = t
		}
		for k, v := range p.Types {
			if st.Types == nil {
				st.Types = map[string]int{}
			}
			st.Types[k] += v
		}
		st.Coerced = addCoerced(st.Coerced, p.Coerced)
	}
	return st, true
}

// addCoerced adds the coercion tallies of a later part to those of the parts before it.
func addCoerced(to, part []Coercion) []Coercion {
	for _, c := range part {
		i := slices.IndexFunc(to, func(t Coercion) bool { return t.Kind == c.Kind })
		if i < 0 {
			to = append(to, Coercion{Kind: c.Kind, How: c.How})
			i = len(to) - 1
		}
		t := &to[i]
		t.Count += c.Count
		for _, col := range c.Columns {
			if !slices.Contains(t.Columns, col) {
				t.Columns = append(t.Columns, col)
			}
		}
	}
	return to
}
