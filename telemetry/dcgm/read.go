// Package dcgm reads GPU samples from NVIDIA dcgm-exporter: its /metrics endpoint over HTTP
// (Collector) and recordings of it (Read), and writes samples in the same text format (Write).
//
// The Prometheus text is parsed by internal/promtext, whose messages are those of the reference
// parser, expfmt. Every line of a scrape repeats its GPU's labels and a long metric name, so the
// reader parses each distinct label set once and, for each line, the rest of it with the name
// replaced by a short alias ("a 91 1790000000000"); lines it cannot take apart are parsed whole. Blocks of lines are parsed on several cores at once. The lines of one scrape are
// grouped into one gpucost.Sample per GPU or MIG instance, pod and instant.
package dcgm

import (
	"io"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry/dcgmfields"
)

// MaxSkips is how many skipped lines Stats keeps; it counts them all.
const MaxSkips = 100

// ReadOptions say how to read a recording.
type ReadOptions struct {
	// At is the scrape time of lines that carry no timestamp. Lines without one are skipped if At
	// is zero.
	At time.Time
	// Host names the host of series that have no Hostname label.
	Host string
	// MaxSkew, if not zero and At is set, is how far a line's timestamp may be from At; lines
	// further off are skipped as clock skew.
	MaxSkew time.Duration
	// Workers is how many blocks are parsed at once; 0 means one per CPU.
	Workers int
}

// Stats says what a read did.
type Stats struct {
	Lines   int            // metric lines read, skipped ones included (not HELP, TYPE or blank lines)
	Samples int            // samples emitted
	Skipped int            // lines or readings left out
	Skips   []gpucost.Skip // the first MaxSkips of them, and the first line of each unknown metric
	Unknown map[string]int // lines of each metric that is not a DCGM metric; ignored, not skipped
}

// skip counts a line left out and keeps the first MaxSkips.
func (s *Stats) skip(file string, line int, metric, reason string) {
	s.Skipped++
	s.note(gpucost.Skip{File: file, Line: line, Field: metric, Reason: reason})
}

func (s *Stats) note(sk gpucost.Skip) {
	if len(s.Skips) < MaxSkips {
		s.Skips = append(s.Skips, sk)
	}
}

// Read parses a recording of dcgm-exporter output from r, one or more scrapes one after
// another, and calls emit with each sample in order. name names r in skips and errors. Bad lines
// are skipped and counted in Stats; Read fails only when r cannot be read or holds no DCGM
// metrics at all.
func Read(r io.Reader, name string, opt ReadOptions, emit func(gpucost.Sample)) (Stats, error) {
	p := newParser(opt.Host)
	p.file, p.at, p.maxSkew = name, opt.At, opt.MaxSkew
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var stats Stats
	err := p.run(r, workers, &stats, emit)
	return stats, err
}

// parser holds what reading keeps from one scrape to the next: interned metric names and parsed
// label sets. The fields below mark which goroutine owns them.
type parser struct {
	host string
	exp  *lineParser // for reading on one goroutine
	pool sync.Pool   // of *block

	// The splitter's.
	names    map[string]string
	sets     map[string]*labelSet
	comments map[string]struct{}
	scrape   scrape

	// The consumer's, reset by each run.
	file      string
	at        time.Time
	maxSkew   time.Duration
	stats     *Stats
	groups    map[groupKey]int
	series    map[string]*labelSet // series → its first label set
	pending   []dcgmfields.Builder
	good, bad int // lines the parser accepted and rejected
	known     int // lines of DCGM metrics
}

func newParser(host string) *parser {
	return &parser{
		host:     host,
		names:    map[string]string{},
		sets:     map[string]*labelSet{},
		comments: map[string]struct{}{},
		scrape:   scrape{seen: map[string]uint8{}},
		series:   map[string]*labelSet{},
		groups:   map[groupKey]int{},
	}
}

func (p *parser) getBlock() *block {
	if b, ok := p.pool.Get().(*block); ok {
		return b
	}
	return &block{}
}

func (p *parser) putBlock(b *block) {
	b.reset()
	p.pool.Put(b)
}

// run reads r to the end and emits its samples, parsing on the given number of goroutines.
func (p *parser) run(r io.Reader, workers int, stats *Stats, emit func(gpucost.Sample)) error {
	p.stats, p.good, p.bad, p.known = stats, 0, 0, 0
	p.scrape.reset()
	var err error
	if workers <= 1 {
		err = p.runHere(r, emit)
	} else {
		err = p.runParallel(r, workers, emit)
	}
	if err != nil {
		return err
	}
	p.flush(emit)
	return p.verdict()
}

// runHere parses each block as soon as it is cut, on this goroutine.
func (p *parser) runHere(r io.Reader, emit func(gpucost.Sample)) error {
	if p.exp == nil {
		p.exp = newLineParser(p.host)
	}
	var err error
	readErr := p.scan(r, func(b *block) bool {
		p.exp.parse(b)
		p.consume(b, emit)
		p.putBlock(b)
		err = p.notText()
		return err == nil
	})
	if err != nil {
		return err
	}
	return readErr
}

// runParallel parses blocks on workers goroutines while this one emits them in order.
func (p *parser) runParallel(r io.Reader, workers int, emit func(gpucost.Sample)) error {
	work := make(chan *block, workers)
	order := make(chan *block, 2*workers)
	quit := make(chan struct{})
	var readErr error
	go func() {
		defer close(order)
		defer close(work)
		readErr = p.scan(r, func(b *block) bool {
			b.done = make(chan struct{})
			select {
			case work <- b:
			case <-quit:
				return false
			}
			select {
			case order <- b:
				return true
			case <-quit:
				return false
			}
		})
	}()
	for range workers {
		go func() {
			e := newLineParser(p.host)
			for b := range work {
				e.parse(b)
				close(b.done)
			}
		}()
	}
	var err error
	for b := range order {
		<-b.done
		if err == nil {
			p.consume(b, emit)
			if err = p.notText(); err != nil {
				close(quit)
			}
		}
		p.putBlock(b)
	}
	if err != nil {
		return err
	}
	return readErr
}

// notText returns an error once the first lines read show the input is not Prometheus text.
func (p *parser) notText() error {
	if p.good > 0 || p.bad < 16 {
		return nil
	}
	return gpucost.Errorf(gpucost.EInvalid, "%s is not dcgm-exporter text: %s", p.file, p.firstProblem())
}

// verdict returns an error if the whole input held no DCGM metric.
func (p *parser) verdict() error {
	if p.known > 0 {
		return nil
	}
	switch {
	case p.bad > 0 && p.good == 0:
		return gpucost.Errorf(gpucost.EInvalid, "%s is not dcgm-exporter text: %s", p.file, p.firstProblem())
	case len(p.stats.Unknown) > 0:
		return gpucost.Errorf(gpucost.EInvalid, "%s holds no DCGM metrics, only others such as %s: is it dcgm-exporter output?",
			p.file, strings.Join(p.unknownNames(3), ", "))
	}
	return gpucost.Errorf(gpucost.EInvalid, "%s holds no DCGM metrics", p.file)
}

func (p *parser) firstProblem() string {
	if len(p.stats.Skips) == 0 {
		return "no metric lines"
	}
	return p.stats.Skips[0].String()
}

func (p *parser) unknownNames(n int) []string {
	names := make([]string, 0, len(p.stats.Unknown))
	for name := range p.stats.Unknown {
		names = append(names, name)
	}
	sort.Strings(names)
	return names[:min(n, len(names))]
}
