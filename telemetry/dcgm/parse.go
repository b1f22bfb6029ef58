package dcgm

import (
	"errors"

	"github.com/gpucost/gpucost/internal/promtext"
	"github.com/gpucost/gpucost/telemetry/dcgmfields"
)

// lineParser runs promtext over the lines of blocks. Each goroutine that parses owns one.
type lineParser struct {
	host   string // the host of series without a Hostname label
	labels []promtext.Label
}

func newLineParser(host string) *lineParser { return &lineParser{host: host} }

// parse fills in the value, timestamp or error of every line of b, and parses the label sets
// first seen in b. A sample line is parsed as "ALIAS VALUE [TS]", its label set apart; HELP and
// TYPE lines and odd lines whole.
func (e *lineParser) parse(b *block) {
	for _, ls := range b.newSets {
		e.parseLabels(ls)
	}
	for i := range b.recs {
		switch r := &b.recs[i]; r.kind {
		case recComment, recOdd:
			e.parseAlone(r)
		case recSample:
			s, err := promtext.ParseSample(string(b.buf[r.off:r.end-1]), e.labels)
			if err != nil {
				r.err = message(err)
				continue
			}
			r.set(s)
		}
	}
}

// parseLabels parses a label set.
func (e *lineParser) parseLabels(ls *labelSet) {
	pairs, err := promtext.ParseLabels(ls.raw, e.labels)
	if err != nil {
		ls.err = "malformed labels: " + message(err)
		return
	}
	e.labels = pairs
	ls.derive(pairs, e.host)
}

// parseAlone parses a HELP, TYPE or odd line by itself.
func (e *lineParser) parseAlone(r *rec) {
	if r.kind == recComment {
		if _, _, _, err := promtext.ParseComment(r.text); err != nil {
			r.err = message(err)
		}
		return
	}
	s, err := promtext.ParseSample(r.text, e.labels)
	if err != nil {
		r.err = message(err)
		return
	}
	r.name, r.f = s.Name, dcgmfields.Of(s.Name)
	r.ls = &labelSet{}
	r.ls.derive(s.Labels, e.host)
	r.set(s)
}

// set takes the line's value and timestamp from what promtext made of it.
func (r *rec) set(s promtext.Sample) {
	r.val = s.Value
	if s.HasTime {
		r.ts, r.hasTS = s.TimestampMs, true
	}
}

// message returns the parser's complaint.
func message(err error) string {
	if pe := (*promtext.Error)(nil); errors.As(err, &pe) {
		return pe.Msg
	}
	return err.Error()
}
