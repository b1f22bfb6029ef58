package dcgm

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/gpucost/gpucost/telemetry/dcgmfields"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// expParser runs expfmt, the parser of record, over blocks. Each goroutine that parses owns one.
type expParser struct {
	tp     expfmt.TextParser
	r      bytes.Reader
	host   string // the host of series without a Hostname label
	text   []byte
	cursor map[string]int
}

func newExpParser(host string) *expParser {
	return &expParser{tp: expfmt.NewTextParser(model.UTF8Validation), host: host, cursor: map[string]int{}}
}

func (e *expParser) families(text []byte) (map[string]*dto.MetricFamily, error) {
	e.r.Reset(text)
	return e.tp.TextToMetricFamilies(&e.r)
}

// parse fills in the value, timestamp or error of every line of b, and parses the label sets
// first seen in b. The block goes to expfmt in one piece; if that fails, line by line, so that
// one bad line costs only itself.
func (e *expParser) parse(b *block) {
	for _, ls := range b.newSets {
		e.parseLabels(ls)
	}
	if !b.odd {
		mfs, err := e.families(b.buf)
		if err == nil && e.assign(b, mfs) {
			return
		}
		if pe := (expfmt.ParseError{}); errors.As(err, &pe) {
			if r := b.fed(pe.Line); r != nil {
				r.err = pe.Msg
			}
		}
	}
	e.parseLines(b)
}

// parseLabels parses a label set as the labels of a stand-in metric line.
func (e *expParser) parseLabels(ls *labelSet) {
	e.text = append(append(append(e.text[:0], 'l'), ls.raw...), " 0\n"...)
	mfs, err := e.families(e.text)
	if err != nil {
		ls.err = "malformed labels: " + message(err)
		return
	}
	mf := mfs["l"]
	if mf == nil || len(mf.Metric) != 1 {
		ls.err = "label set " + ls.raw + " is not valid"
		return
	}
	ls.derive(mf.Metric[0].Label, e.host)
}

// fed returns the line that was the n-th (from 1) expfmt was given, nil if there is none.
func (b *block) fed(n int) *rec {
	for i := range b.recs {
		if b.recs[i].kind != recBad {
			if n--; n == 0 {
				return &b.recs[i]
			}
		}
	}
	return nil
}

// assign hands out the metrics expfmt returned to the sample lines, in order within each family.
// It returns false if they do not match one for one.
func (e *expParser) assign(b *block, mfs map[string]*dto.MetricFamily) bool {
	clear(e.cursor)
	n := 0
	var last string
	var mf *dto.MetricFamily
	k := 0
	for i := range b.recs {
		r := &b.recs[i]
		if r.kind != recSample {
			continue
		}
		if r.alias != last || mf == nil {
			if mf != nil {
				e.cursor[last] = k
			}
			last, mf, k = r.alias, mfs[r.alias], e.cursor[r.alias]
		}
		if mf == nil || k >= len(mf.Metric) {
			return false
		}
		if err := r.set(mf.Metric[k]); err != nil {
			r.err = err.Error()
		}
		k++
		n++
	}
	total := 0
	for _, mf := range mfs {
		total += len(mf.Metric)
	}
	return total == n
}

// parseLines parses each line of b that has no error yet on its own.
func (e *expParser) parseLines(b *block) {
	for i := range b.recs {
		r := &b.recs[i]
		if r.kind == recBad || r.err != "" {
			continue
		}
		mfs, err := e.families(b.buf[r.off:r.end])
		if err != nil {
			r.err = message(err)
			continue
		}
		if r.kind == recComment {
			continue
		}
		if len(mfs) != 1 {
			r.err = "not one sample"
			continue
		}
		for name, mf := range mfs {
			if len(mf.Metric) != 1 {
				r.err = "not one sample"
				break
			}
			if r.kind == recOdd {
				r.name, r.f = name, dcgmfields.Of(name)
				r.ls = &labelSet{}
				r.ls.derive(mf.Metric[0].Label, e.host)
			}
			if err := r.set(mf.Metric[0]); err != nil {
				r.err = err.Error()
			}
		}
	}
}

// set takes the line's value and timestamp from what expfmt made of it.
func (r *rec) set(m *dto.Metric) error {
	switch {
	case m.Gauge != nil:
		r.val = m.Gauge.GetValue()
	case m.Counter != nil:
		r.val = m.Counter.GetValue()
	case m.Untyped != nil:
		r.val = m.Untyped.GetValue()
	default:
		return fmt.Errorf("metric %s is a summary or histogram, not a DCGM reading", r.name)
	}
	if m.TimestampMs != nil {
		r.ts, r.hasTS = m.GetTimestampMs(), true
	}
	return nil
}

// message returns expfmt's complaint without its line number, which counts lines of a block.
func message(err error) string {
	if pe := (expfmt.ParseError{}); errors.As(err, &pe) {
		return pe.Msg
	}
	return err.Error()
}
