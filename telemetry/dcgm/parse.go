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
// first seen in b. The sample lines go to expfmt in one piece; if that fails, one by one, so that
// a bad line costs only itself. HELP and TYPE lines and odd lines go alone.
func (e *expParser) parse(b *block) {
	for _, ls := range b.newSets {
		e.parseLabels(ls)
	}
	for i := range b.recs {
		if r := &b.recs[i]; r.kind == recComment || r.kind == recOdd {
			e.parseAlone(r)
		}
	}
	if b.samples == 0 {
		return
	}
	mfs, err := e.families(b.buf)
	if err == nil && e.assign(b, mfs) {
		return
	}
	if pe := (expfmt.ParseError{}); errors.As(err, &pe) {
		if r := b.sample(pe.Line); r != nil {
			r.err = pe.Msg
		}
	}
	e.parseSamples(b)
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

// sample returns the n-th (from 1) sample line of b, nil if there is none.
func (b *block) sample(n int) *rec {
	for i := range b.recs {
		if b.recs[i].kind == recSample {
			if n--; n == 0 {
				return &b.recs[i]
			}
		}
	}
	return nil
}

// assign hands out the metrics expfmt returned to the sample lines, in order within each alias.
// It returns false if they do not match one for one.
func (e *expParser) assign(b *block, mfs map[string]*dto.MetricFamily) bool {
	clear(e.cursor)
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
	}
	total := 0
	for _, mf := range mfs {
		total += len(mf.Metric)
	}
	return total == b.samples
}

// parseSamples parses each sample line of b that has no error yet on its own.
func (e *expParser) parseSamples(b *block) {
	for i := range b.recs {
		r := &b.recs[i]
		if r.kind != recSample || r.err != "" {
			continue
		}
		mf, err := e.one(b.buf[r.off:r.end])
		if err == nil {
			err = r.set(mf.Metric[0])
		}
		if err != nil {
			r.err = message(err)
		}
	}
}

// parseAlone parses a HELP, TYPE or odd line by itself.
func (e *expParser) parseAlone(r *rec) {
	e.text = append(append(e.text[:0], r.text...), '\n')
	if r.kind == recComment {
		if _, err := e.families(e.text); err != nil {
			r.err = message(err)
		}
		return
	}
	mf, err := e.one(e.text)
	if err != nil {
		r.err = message(err)
		return
	}
	r.name, r.f = mf.GetName(), dcgmfields.Of(mf.GetName())
	r.ls = &labelSet{}
	r.ls.derive(mf.Metric[0].Label, e.host)
	if err := r.set(mf.Metric[0]); err != nil {
		r.err = err.Error()
	}
}

// one parses a line that must hold exactly one sample.
func (e *expParser) one(line []byte) (*dto.MetricFamily, error) {
	mfs, err := e.families(line)
	if err != nil {
		return nil, err
	}
	for _, mf := range mfs {
		if len(mfs) == 1 && len(mf.Metric) == 1 {
			return mf, nil
		}
	}
	return nil, errors.New("not one sample")
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
