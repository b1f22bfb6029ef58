package traffic

import (
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

// A trace's shape is told from its header and first row, never guessed: a file that fits no
// shape, or more than one, is an error that shows what was seen and the flag that picks a
// shape (--trace-shape). The shapes:
//   - a request log: one row per request, a timestamp and only request fields (token counts,
//     latencies, ids);
//   - a rate series: timestamp,rate, one row per interval;
//   - per-source samples: timestamp,source,value, such as a Prometheus export of each
//     container's requests per second; the sources' rates are summed per interval.

// ParseFormat reads a --trace-shape: requests, rates or samples ("" detects).
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return "", nil
	case "requests", "request-log", "timestamps":
		return Timestamps, nil
	case "rates", "rate":
		return Rates, nil
	case "samples", "per-source":
		return Samples, nil
	}
	return "", fmt.Errorf("trace shape %q: use requests (one row per request), rates (timestamp,rate) or samples (timestamp,source,value, summed)", s)
}

// Column names by what they hold, lower case.
var (
	rateNames  = []string{"rate", "qps", "rps", "requests_per_second", "rate_per_s", "req_per_s"}
	valueNames = []string{"value", "val", "sample"}
	labelNames = []string{"source", "container", "pod", "instance", "replica", "host", "node", "job", "service", "endpoint", "model", "name", "series", "worker"}
	// requestFields are columns a request log carries beside the timestamp.
	requestFields = []string{"contexttokens", "generatedtokens", "prompt_tokens", "completion_tokens", "input_tokens", "output_tokens", "tokens",
		"latency", "latency_ms", "latency_s", "duration", "duration_ms", "duration_s", "status", "status_code", "id", "request_id", "method", "path", "model_id", "user"}
)

// shape is a detected or given format with the columns it reads.
type shape struct {
	format      Format
	value, lbl  int // the rate or value column, and the source column of samples
	description string
}

// detectShape tells a trace's shape from its header and first data row (nil when there is
// none), or returns the error that shows what it saw. want forces a shape.
func detectShape(name string, header, first []string, tcol int, want Format) (shape, error) {
	cols := make([]string, len(header))
	for i, h := range header {
		cols[i] = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
	}
	find := func(names []string) int {
		return slices.IndexFunc(cols, func(c string) bool { return slices.Contains(names, c) })
	}
	rate, value, label := find(rateNames), find(valueNames), find(labelNames)
	// Columns that are neither the timestamp nor a known request field.
	var other []int
	for i, c := range cols {
		if i != tcol && !slices.Contains(requestFields, c) {
			other = append(other, i)
		}
	}
	if label < 0 && first != nil { // a text column is a source label
		for _, i := range other {
			if i < len(first) && i != rate && i != value && !numeric(first[i]) {
				label = i
				break
			}
		}
	}
	if value < 0 {
		value = rate
	}
	if value < 0 && first != nil { // the one numeric column that is not a request field
		for _, i := range other {
			if i < len(first) && i != label && numeric(first[i]) {
				value = i
			}
		}
	}
	switch want {
	case Timestamps:
		return shape{format: Timestamps}, nil
	case Rates:
		if rate < 0 {
			rate = value
		}
		if rate < 0 {
			return shape{}, gpucost.Errorf(gpucost.EInvalid, "trace %s: --trace-shape rates needs a column of rates; the header is %s", name, strings.Join(header, ","))
		}
		return shape{format: Rates, value: rate}, nil
	case Samples:
		if label < 0 || value < 0 {
			return shape{}, gpucost.Errorf(gpucost.EInvalid, "trace %s: --trace-shape samples needs a source column and a value column; the header is %s", name, strings.Join(header, ","))
		}
		return shape{format: Samples, value: value, lbl: label}, nil
	}
	switch {
	case label >= 0 && value >= 0:
		return shape{format: Samples, value: value, lbl: label}, nil
	case rate >= 0 && label < 0:
		return shape{format: Rates, value: rate}, nil
	case len(other) == 0:
		return shape{format: Timestamps}, nil
	}
	seen := strings.Join(header, ",")
	if first != nil {
		seen += fmt.Sprintf(" with a first row of %s", strings.Join(first, ","))
	}
	return shape{}, gpucost.Errorf(gpucost.EInvalid,
		"trace %s: cannot tell its shape from %s: a request log has a timestamp and request fields only (such as ContextTokens), a rate series has timestamp,rate, per-source samples have timestamp,source,value (summed); say which with --trace-shape requests, rates or samples",
		name, seen)
}

func numeric(s string) bool {
	_, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return err == nil
}

// Detect reads the header and first row of a trace and says which shape it has, or returns
// an EInvalid error that shows what it saw when the shape is ambiguous.
func Detect(r io.Reader) (Format, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return "", fmt.Errorf("read the trace's header: %w", err)
	}
	first, err := cr.Read()
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read the trace's first row: %w", err)
	}
	sh, err := detectShape("", header, first, timeColumn(header), "")
	return sh.format, err
}

// timeColumn is the index of the timestamp column: timestamp, time, or the first.
func timeColumn(header []string) int {
	for _, n := range []string{"timestamp", "time"} {
		if i := slices.IndexFunc(header, func(h string) bool {
			return strings.EqualFold(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")), n)
		}); i >= 0 {
			return i
		}
	}
	return 0
}

// sample is one source's value at a time.
type sample struct {
	t    time.Time
	v    float64
	line int
}

// samples reads timestamp,source,value rows and sums the sources' rates per interval: each
// source's samples in an interval are averaged, a source that skips an interval within its
// span keeps its last value (a late scrape), and outside its span it adds nothing.
func (rd *reader) samples(first []string, firstLine int, sh shape) (*Trace, error) {
	bySource := map[string][]sample{}
	var order []string
	rows := 0
	add := func(rec []string, line int) error {
		t, err := rd.time(rec, line)
		if err != nil {
			return err
		}
		if sh.value >= len(rec) || sh.lbl >= len(rec) {
			return gpucost.Errorf(gpucost.EInvalid, "trace %s:%d: no source or value: give timestamp,source,value rows", rd.name, line)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rec[sh.value]), 64)
		if err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return gpucost.Errorf(gpucost.EInvalid, "trace %s:%d:%d: value %q: give requests per second, zero or more", rd.name, line, sh.value+1, rec[sh.value])
		}
		src := rec[sh.lbl]
		if _, ok := bySource[src]; !ok {
			order = append(order, src)
		}
		bySource[src] = append(bySource[src], sample{t, v, line})
		rows++
		return nil
	}
	if first != nil {
		if err := add(first, firstLine); err != nil {
			return nil, err
		}
	}
	for {
		rec, line, err := rd.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := add(rec, line); err != nil {
			return nil, err
		}
	}
	if rows == 0 {
		return nil, gpucost.Errorf(gpucost.EInvalid, "trace %s has a header but no samples", rd.name)
	}
	for _, ss := range bySource {
		slices.SortStableFunc(ss, func(a, b sample) int { return a.t.Compare(b.t) })
	}
	if err := rd.notCounters(bySource, order); err != nil {
		return nil, err
	}
	step := rd.o.Step
	if step == 0 {
		step = sampleSpacing(bySource)
	}
	var start time.Time
	for i, src := range order {
		ss := bySource[src]
		if i == 0 || ss[0].t.Before(start) {
			start = ss[0].t
		}
	}
	start = start.Truncate(step)
	var end time.Time
	for _, ss := range bySource {
		end = later(end, ss[len(ss)-1].t)
	}
	n := int(end.Sub(start)/step) + 1
	if n > rd.o.MaxIntervals {
		return nil, gpucost.Errorf(gpucost.EInvalid, "trace %s: the samples span more than %d intervals of %v; use a longer --step", rd.name, rd.o.MaxIntervals, step)
	}
	tr := &Trace{Name: rd.name, Format: Samples, Start: start, Step: step, Rows: rows, Rates: make([]float64, n), Sources: len(order)}
	covered := make([]bool, n)
	for _, src := range order {
		tr.Carried += addSource(tr.Rates, covered, bySource[src], start, step)
	}
	for i := 0; i < n; i++ {
		if covered[i] {
			continue
		}
		j := i
		for j < n && !covered[j] {
			j++
		}
		tr.Gaps = append(tr.Gaps, Gap{From: start.Add(time.Duration(i-1) * step), To: start.Add(time.Duration(j) * step)})
		i = j
	}
	for _, r := range tr.Rates {
		tr.Requests += r * step.Seconds()
	}
	if len(tr.Gaps) > 0 && rd.o.Gaps != GapZero {
		return nil, gpucost.Errorf(gpucost.EInvalid, "trace %s: no source has samples for %s; %d gaps in all: fix the export, or read gaps as zero traffic with --gaps zero",
			rd.name, tr.Gaps[0], len(tr.Gaps))
	}
	return tr, nil
}

// addSource adds one source's samples, sorted, to the rates per interval from start: averaged
// within an interval, the last value carried across intervals it skips. It returns the
// intervals carried.
func addSource(rates []float64, covered []bool, ss []sample, start time.Time, step time.Duration) int {
	carried, prev, prevVal := 0, -1, 0.0
	for k := 0; k < len(ss); {
		idx := int(ss[k].t.Sub(start) / step)
		sum, n := 0.0, 0
		for ; k < len(ss) && int(ss[k].t.Sub(start)/step) == idx; k++ {
			sum += ss[k].v
			n++
		}
		for j := prev + 1; prev >= 0 && j < idx; j++ {
			rates[j] += prevVal
			covered[j] = true
			carried++
		}
		prevVal = sum / float64(n)
		rates[idx] += prevVal
		covered[idx] = true
		prev = idx
	}
	return carried
}

// sampleSpacing is the median spacing between one source's consecutive samples, over all
// sources, rounded to the millisecond: the scrape interval.
func sampleSpacing(bySource map[string][]sample) time.Duration {
	var gaps []time.Duration
	for _, ss := range bySource {
		for i := 1; i < len(ss); i++ {
			if d := ss[i].t.Sub(ss[i-1].t); d > 0 {
				gaps = append(gaps, d)
			}
		}
	}
	if len(gaps) == 0 {
		return time.Minute
	}
	slices.Sort(gaps)
	return max(minStep, gaps[len(gaps)/2].Round(time.Millisecond))
}

// notCounters refuses samples that look like a counter rather than a rate: every source with
// five or more samples only ever grows.
func (rd *reader) notCounters(bySource map[string][]sample, order []string) error {
	growing, checked := 0, 0
	for _, src := range order {
		ss := bySource[src]
		if len(ss) < 5 {
			continue
		}
		checked++
		up := slices.IsSortedFunc(ss, func(a, b sample) int {
			if a.v < b.v {
				return -1
			}
			if a.v > b.v {
				return 1
			}
			return 0
		})
		if up && ss[len(ss)-1].v > ss[0].v {
			growing++
		}
	}
	if checked > 0 && growing == checked {
		return gpucost.Errorf(gpucost.EInvalid, "trace %s: every source's value only grows, like a counter (requests_total): export requests per second instead, such as Prometheus rate(...[1m])", rd.name)
	}
	return nil
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// Token columns of a request log, lower case.
var (
	inputTokenNames  = []string{"contexttokens", "prompt_tokens", "input_tokens"}
	outputTokenNames = []string{"generatedtokens", "completion_tokens", "output_tokens"}
)

// tokenColumns returns the input and output token columns of a header, or −1, −1.
func tokenColumns(header []string) (int, int) {
	find := func(names []string) int {
		return slices.IndexFunc(header, func(h string) bool {
			return slices.Contains(names, strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))))
		})
	}
	in, out := find(inputTokenNames), find(outputTokenNames)
	if in < 0 || out < 0 {
		return -1, -1
	}
	return in, out
}

// tokens reads a request row's token counts into tr.Tokens.
func (rd *reader) tokens(tr *Trace, rec []string, line int) error {
	if rd.inTok < 0 {
		return nil
	}
	var v [2]float64
	for k, col := range []int{rd.inTok, rd.outTok} {
		if col >= len(rec) {
			return gpucost.Errorf(gpucost.EInvalid, "trace %s:%d: no token count in column %d", rd.name, line, col+1)
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(rec[col]), 64)
		if err != nil || x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
			return gpucost.Errorf(gpucost.EInvalid, "trace %s:%d:%d: token count %q: give a whole number of tokens, zero or more", rd.name, line, col+1, rec[col])
		}
		v[k] = x
	}
	if tr.Tokens == nil {
		tr.Tokens = &TokenCounts{}
	}
	tr.Tokens.add(v[0], v[1])
	tr.sampleTokens(v[0], v[1])
	return nil
}
