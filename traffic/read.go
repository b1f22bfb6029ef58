package traffic

import (
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// defaultMaxSilence is how long a request log may be silent before the silence is listed.
const defaultMaxSilence = 2 * time.Minute

// DefaultMaxIntervals bounds a trace: a year at 1 s resolution.
const DefaultMaxIntervals = 366 * 24 * 3600

// minStep is the shortest interval a trace is binned into.
const minStep = time.Millisecond

// Read reads a trace from r, named name in messages. o.Format, or else the header and first
// row, decide its shape (shape.go): a request log, a rate file or per-source samples, each with
// its timestamp column TIMESTAMP, time or the first; an ambiguous file is an error. Bad rows are EInvalid
// errors naming name, line and column and saying what to do.
func Read(r io.Reader, name string, o Options) (*Trace, error) {
	if o.Step < 0 || o.MaxSilence < 0 {
		return nil, gpucost.Errorf(gpucost.EInvalid, "trace %s: step %v and max silence %v must not be negative", name, o.Step, o.MaxSilence)
	}
	if o.Step != 0 && o.Step < minStep {
		return nil, gpucost.Errorf(gpucost.EInvalid, "trace %s: step %v: give an interval of %v or more", name, o.Step, minStep)
	}
	if o.MaxSilence == 0 {
		o.MaxSilence = defaultMaxSilence
	}
	if o.MaxIntervals <= 0 {
		o.MaxIntervals = DefaultMaxIntervals
	}
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, gpucost.Errorf(gpucost.EInvalid, "trace %s is empty: give a CSV with a header, such as TIMESTAMP or timestamp,rate", name)
		}
		return nil, gpucost.Errorf(gpucost.EInvalid, "trace %s: reading the header: %w", name, err)
	}
	if _, err := parseTime(header[0]); err == nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "trace %s:1: %q is a timestamp, not a header; add a header line such as TIMESTAMP or timestamp,rate", name, header[0])
	}
	header = slices.Clone(header)
	rd := &reader{name: name, cr: cr, o: o, tcol: timeColumn(header)}
	rd.inTok, rd.outTok = tokenColumns(header)
	first, err := cr.Read()
	switch {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, gpucost.Errorf(gpucost.EInvalid, "trace %s: %w", name, err)
	default:
		rd.first = slices.Clone(first)
		rd.firstLine, _ = cr.FieldPos(0)
	}
	sh, err := detectShape(name, header, rd.first, rd.tcol, o.Format)
	if err != nil {
		return nil, err
	}
	switch sh.format {
	case Rates:
		return rd.rates(sh.value)
	case Samples:
		f, line := rd.first, rd.firstLine
		rd.first = nil
		return rd.samples(f, line, sh)
	}
	return rd.timestamps()
}

type reader struct {
	name string
	cr   *csv.Reader
	o    Options
	tcol int
	// first is the first data row, read to tell the shape and handed out again by next
	first     []string
	firstLine int
	// inTok and outTok are a request log's token columns, −1 without
	inTok, outTok int
}

// next returns the next record and its line, io.EOF at the end.
func (rd *reader) next() ([]string, int, error) {
	if rd.first != nil {
		rec, line := rd.first, rd.firstLine
		rd.first = nil
		return rec, line, nil
	}
	rec, err := rd.cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, 0, err
		}
		return nil, 0, gpucost.Errorf(gpucost.EInvalid, "trace %s: %w", rd.name, err)
	}
	line, _ := rd.cr.FieldPos(0)
	return rec, line, nil
}

// time reads the timestamp cell of rec.
func (rd *reader) time(rec []string, line int) (time.Time, error) {
	if rd.tcol >= len(rec) {
		return time.Time{}, gpucost.Errorf(gpucost.EInvalid, "trace %s:%d: no timestamp in column %d", rd.name, line, rd.tcol+1)
	}
	t, err := parseTime(rec[rd.tcol])
	if err != nil {
		return time.Time{}, gpucost.Errorf(gpucost.EInvalid, "trace %s:%d:%d: %w", rd.name, line, rd.tcol+1, err)
	}
	return t, nil
}

// timestamps bins a request log into counts per step.
func (rd *reader) timestamps() (*Trace, error) {
	tr := &Trace{Name: rd.name, Format: Timestamps, Step: rd.o.Step}
	if tr.Step == 0 {
		tr.Step = time.Second
	}
	var (
		counts   []float64 // counts[i] is the requests of the interval starting at base + i·step
		base     int64     // the interval index, since the Unix epoch, of counts[0]
		last     time.Time
		lastLine int
	)
	for {
		rec, line, err := rd.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		t, err := rd.time(rec, line)
		if err != nil {
			return nil, err
		}
		if err := rd.tokens(tr, rec, line); err != nil {
			return nil, err
		}
		if tr.Rows > 0 {
			switch {
			case t.Equal(last):
				tr.Duplicates++
			case t.Before(last):
				if !rd.o.Sort {
					return nil, gpucost.Errorf(gpucost.EInvalid, "trace %s:%d:%d: %s is earlier than %s on line %d: sort the file by time, or pass --sort",
						rd.name, line, rd.tcol+1, t.Format(time.RFC3339Nano), last.Format(time.RFC3339Nano), lastLine)
				}
				tr.Unsorted++
			case t.Sub(last) > rd.o.MaxSilence:
				tr.Gaps = append(tr.Gaps, Gap{From: last, To: t, Line: line})
			}
		}
		idx := t.UnixNano() / int64(tr.Step)
		if t.UnixNano() < 0 {
			return nil, gpucost.Errorf(gpucost.EInvalid, "trace %s:%d:%d: %s is before 1970", rd.name, line, rd.tcol+1, t)
		}
		if tr.Rows == 0 {
			base = idx
		}
		if span := max(idx, base+int64(len(counts))-1) - min(idx, base) + 1; span > int64(rd.o.MaxIntervals) {
			return nil, gpucost.Errorf(gpucost.EInvalid, "trace %s:%d: the trace spans more than %d intervals of %v; use a longer --step", rd.name, line, rd.o.MaxIntervals, tr.Step)
		}
		if idx < base { // only with Sort
			counts = append(make([]float64, base-idx), counts...)
			base = idx
		}
		for int64(len(counts)) <= idx-base {
			counts = append(counts, 0)
		}
		counts[idx-base]++
		tr.Rows++
		if rd.o.Sort && t.Before(last) {
			continue // keep the latest time seen, so silences are measured in time order
		}
		last, lastLine = t, line
	}
	if tr.Rows == 0 {
		return nil, gpucost.Errorf(gpucost.EInvalid, "trace %s has a header but no requests", rd.name)
	}
	if rd.o.Sort && tr.Unsorted > 0 {
		tr.Gaps = silences(counts, base, tr.Step, rd.o.MaxSilence)
	}
	if rd.o.Gaps == GapError && len(tr.Gaps) > 0 {
		g := tr.Gaps[0]
		return nil, gpucost.Errorf(gpucost.EInvalid, "trace %s:%d: no requests for %s (and %d more silences over %v): check the log for an outage, or read silences as zero traffic with --gaps zero",
			rd.name, g.Line, g, len(tr.Gaps)-1, rd.o.MaxSilence)
	}
	tr.Start = time.Unix(0, base*int64(tr.Step)).UTC()
	tr.Requests = float64(tr.Rows)
	sec := tr.Step.Seconds()
	for i := range counts {
		counts[i] /= sec
	}
	tr.Rates = counts
	return tr, nil
}

// silences finds runs of empty intervals longer than maxSilence in binned counts, for a log
// read out of order (line numbers are then unknown and given as 0).
func silences(counts []float64, base int64, step, maxSilence time.Duration) []Gap {
	var gaps []Gap
	at := func(i int) time.Time { return time.Unix(0, (base+int64(i))*int64(step)).UTC() }
	for i := 0; i < len(counts); {
		if counts[i] > 0 {
			i++
			continue
		}
		j := i
		for j < len(counts) && counts[j] == 0 {
			j++
		}
		if time.Duration(j-i)*step > maxSilence {
			gaps = append(gaps, Gap{From: at(i), To: at(j)})
		}
		i = j
	}
	return gaps
}

type rateRow struct {
	t    time.Time
	rate float64
	line int
}

// rates reads timestamp,rate rows, checks their spacing and fills or refuses gaps.
func (rd *reader) rates(rcol int) (*Trace, error) {
	var rows []rateRow
	for {
		rec, line, err := rd.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		t, err := rd.time(rec, line)
		if err != nil {
			return nil, err
		}
		if rcol >= len(rec) {
			return nil, gpucost.Errorf(gpucost.EInvalid, "trace %s:%d: no rate in column %d", rd.name, line, rcol+1)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rec[rcol]), 64)
		if err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, gpucost.Errorf(gpucost.EInvalid, "trace %s:%d:%d: rate %q: give requests per second, zero or more", rd.name, line, rcol+1, rec[rcol])
		}
		if n := len(rows); n > 0 && !t.After(rows[n-1].t) {
			what := "earlier than"
			if t.Equal(rows[n-1].t) {
				what = "the same as"
			}
			return nil, gpucost.Errorf(gpucost.EInvalid, "trace %s:%d:%d: %s is %s the timestamp on line %d: a rate file needs one row per interval, in time order",
				rd.name, line, rd.tcol+1, t.Format(time.RFC3339Nano), what, rows[n-1].line)
		}
		if len(rows) >= rd.o.MaxIntervals {
			return nil, gpucost.Errorf(gpucost.EInvalid, "trace %s:%d: more than %d intervals; aggregate to a longer step", rd.name, line, rd.o.MaxIntervals)
		}
		rows = append(rows, rateRow{t, v, line})
	}
	if len(rows) == 0 {
		return nil, gpucost.Errorf(gpucost.EInvalid, "trace %s has a header but no rates", rd.name)
	}
	return rd.fillRates(rows)
}

// fillRates lays rate rows on their step grid.
func (rd *reader) fillRates(rows []rateRow) (*Trace, error) {
	step := rd.o.Step
	if step == 0 {
		step = time.Minute // a single row: the interval is unknowable, so take a minute
		if len(rows) > 1 {
			step = rows[1].t.Sub(rows[0].t)
			for i := 2; i < len(rows); i++ {
				step = min(step, rows[i].t.Sub(rows[i-1].t))
			}
		}
	}
	tr := &Trace{Name: rd.name, Format: Rates, Start: rows[0].t, Step: step, Rows: len(rows)}
	for i, r := range rows {
		off := r.t.Sub(tr.Start)
		if off%step != 0 {
			return nil, gpucost.Errorf(gpucost.EInvalid, "trace %s:%d:%d: %s is not on the %v grid that starts at %s: give rows at a fixed interval, or --step",
				rd.name, r.line, rd.tcol+1, r.t.Format(time.RFC3339Nano), step, tr.Start.Format(time.RFC3339Nano))
		}
		idx := int(off / step)
		if idx >= rd.o.MaxIntervals {
			return nil, gpucost.Errorf(gpucost.EInvalid, "trace %s:%d: more than %d intervals of %v; aggregate to a longer step", rd.name, r.line, rd.o.MaxIntervals, step)
		}
		if i > 0 && idx > len(tr.Rates) {
			tr.Gaps = append(tr.Gaps, Gap{From: rows[i-1].t, To: r.t, Line: r.line})
		}
		for len(tr.Rates) < idx {
			tr.Rates = append(tr.Rates, 0)
		}
		tr.Rates = append(tr.Rates, r.rate)
		tr.Requests += r.rate * step.Seconds()
	}
	if len(tr.Gaps) > 0 && rd.o.Gaps != GapZero {
		g := tr.Gaps[0]
		missing := 0
		for _, g := range tr.Gaps {
			missing += int(g.Duration()/step) - 1
		}
		return nil, gpucost.Errorf(gpucost.EInvalid, "trace %s:%d: no rows for %s; %d gaps, %d missing %v intervals in all: fix the export, or read gaps as zero traffic with --gaps zero",
			rd.name, g.Line, g, len(tr.Gaps), missing, step)
	}
	return tr, nil
}

// Summary describes a trace in one line, with its gaps and quirks, for notes under a report.
func (t *Trace) Summary() []string {
	out := []string{fmt.Sprintf("Trace %s: %s, %d rows, %.0f requests over %v from %s in %v intervals; mean %.3g/s, peak %.3g/s.",
		t.Name, t.Format, t.Rows, t.Requests, t.Duration(), t.Start.Format(time.DateTime), t.Step, t.Mean(), t.Peak())}
	if t.Format == Samples {
		out = append(out, fmt.Sprintf("Per-source samples: %d sources' requests per second summed per %v interval; %d source-intervals without a sample took that source's previous value.", t.Sources, t.Step, t.Carried))
	}
	if t.Duplicates > 0 {
		out = append(out, fmt.Sprintf("%d requests share a timestamp with the row before; each counts as a request.", t.Duplicates))
	}
	if t.Unsorted > 0 {
		out = append(out, fmt.Sprintf("%d rows were out of time order; read sorted (--sort).", t.Unsorted))
	}
	gaps := slices.Clone(t.Gaps)
	slices.SortFunc(gaps, func(a, b Gap) int { return cmp.Compare(b.Duration(), a.Duration()) })
	for i, g := range gaps {
		if i == 3 {
			out = append(out, fmt.Sprintf("… and %d more gaps.", len(gaps)-3))
			break
		}
		out = append(out, "Gap read as zero traffic: "+g.String()+".")
	}
	return out
}
