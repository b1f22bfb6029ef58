package dcgm

import (
	"maps"
	"math"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry/dcgmfields"
)

// groupKey identifies one Sample of a scrape: a series at one instant.
type groupKey struct {
	series *labelSet // the first label set seen of the series
	ts     int64     // milliseconds; noTimestamp for lines that carry none
}

const noTimestamp = math.MinInt64

// maxPending bounds the samples held while a scrape is read; a scrape with more GPU×instant
// groups is emitted early, in parts.
const maxPending = 1 << 18

// consume turns the parsed lines of b into readings of the scrape's samples, in order.
func (p *parser) consume(b *block, emit func(gpucost.Sample)) {
	if b.newScrape {
		p.flush(emit)
	}
	for i := range b.recs {
		r := &b.recs[i]
		switch {
		case r.kind == recComment && r.err == "":
			p.good++
			continue
		case r.kind == recBad:
			p.stats.skip(p.file, r.num, "", r.err)
			p.bad++
		case r.err != "":
			p.stats.skip(p.file, r.num, r.name, "malformed line: "+r.err)
			p.bad++
		default:
			p.good++
			p.reading(r)
		}
		p.stats.Lines++
	}
	if len(p.pending) >= maxPending {
		p.flush(emit)
	}
}

// reading adds one sample line's value to its Sample.
func (p *parser) reading(r *rec) {
	switch r.f {
	case dcgmfields.Unknown:
		if p.stats.Unknown == nil {
			p.stats.Unknown = map[string]int{}
		}
		if p.stats.Unknown[r.name] == 0 {
			p.stats.note(gpucost.Skip{File: p.file, Line: r.num, Field: r.name,
				Reason: "not a DCGM metric; its lines are ignored (counted in Stats.Unknown)"})
		}
		p.stats.Unknown[r.name]++
		return
	case dcgmfields.Ignored:
		p.known++
		return
	}
	p.known++
	if r.ls.err != "" {
		p.stats.skip(p.file, r.num, r.name, r.ls.err+"; line left out")
		return
	}
	if why := r.f.Invalid(r.val); why != "" {
		p.stats.skip(p.file, r.num, r.name, why+"; reading left out")
		return
	}
	key := groupKey{series: p.canonical(r.ls), ts: noTimestamp}
	t := p.at
	if r.hasTS {
		key.ts, t = r.ts, time.UnixMilli(r.ts).UTC()
		if why := p.skewed(t); why != "" {
			p.stats.skip(p.file, r.num, r.name, why+"; line left out")
			return
		}
	} else if p.at.IsZero() {
		p.stats.skip(p.file, r.num, r.name, "no timestamp on the line and no scrape time given; line left out")
		return
	}
	i, ok := p.groups[key]
	if !ok {
		i = len(p.pending)
		p.groups[key] = i
		p.pending = append(p.pending, dcgmfields.NewBuilder(t, r.ls.gpu, r.ls.labels))
	}
	if !p.pending[i].Set(r.f, r.val) {
		p.stats.skip(p.file, r.num, r.name, "a second reading for this GPU and time; the first is kept")
	}
}

// canonical returns the first label set seen with the same series as ls: label sets that differ
// only in labels gpucost drops, or in their order, make one sample.
func (p *parser) canonical(ls *labelSet) *labelSet {
	if ls.canon == nil {
		c, ok := p.series[ls.series]
		if !ok {
			if len(p.series) >= maxLabelSets {
				clear(p.series)
			}
			c = ls
			p.series[ls.series] = c
		}
		ls.canon = c
	}
	return ls.canon
}

// Timestamps outside these years are not GPU readings but a broken clock or a corrupt line.
var (
	minTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTime = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
)

// skewed says why a line's timestamp cannot be used, or returns "".
func (p *parser) skewed(t time.Time) string {
	switch {
	case t.Before(minTime) || !t.Before(maxTime):
		return "timestamp " + t.Format(time.RFC3339) + " is not a plausible time (a broken clock?)"
	case p.maxSkew > 0 && !p.at.IsZero() && (t.Sub(p.at) > p.maxSkew || p.at.Sub(t) > p.maxSkew):
		return "timestamp " + t.Format(time.RFC3339Nano) + " is " + t.Sub(p.at).Round(time.Millisecond).String() +
			" from the scrape time (clock skew?)"
	}
	return ""
}

// flush emits the samples of the scrape read so far, in the order their first lines came.
func (p *parser) flush(emit func(gpucost.Sample)) {
	for i := range p.pending {
		s := p.pending[i].Sample()
		if s.Labels != nil {
			s.Labels = maps.Clone(s.Labels)
		}
		emit(s)
		p.stats.Samples++
	}
	clear(p.groups)
	p.pending = p.pending[:0]
}
