package promtext

import (
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Collector writes metric families to a page; a Registry asks each of its collectors on every
// scrape.
type Collector interface {
	Collect(w *Writer)
}

// CollectorFunc adapts a function to a Collector.
type CollectorFunc func(w *Writer)

// Collect calls f.
func (f CollectorFunc) Collect(w *Writer) { f(w) }

// Registry is the collectors of one /metrics page.
type Registry struct {
	mu         sync.Mutex
	collectors []Collector
}

// Register adds collectors; they write in the order registered.
func (r *Registry) Register(cs ...Collector) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.collectors = append(r.collectors, cs...)
}

// Page writes every collector's families.
func (r *Registry) Page() []byte {
	r.mu.Lock()
	cs := slices.Clone(r.collectors)
	r.mu.Unlock()
	var w Writer
	for _, c := range cs {
		c.Collect(&w)
	}
	return w.Bytes()
}

// ServeHTTP serves the page in the text format.
func (r *Registry) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	page := r.Page()
	w.Header().Set("Content-Type", ContentType)
	w.Write(page)
}

// value is a float64 updated atomically.
type value struct{ bits atomic.Uint64 }

func (v *value) add(d float64) {
	for {
		old := v.bits.Load()
		if v.bits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+d)) {
			return
		}
	}
}

func (v *value) get() float64 { return math.Float64frombits(v.bits.Load()) }

// vec holds one child per distinct label values, written in the order of the values.
type vec[T any] struct {
	name, help string
	labels     []string
	mu         sync.RWMutex
	children   map[string]*T
	newChild   func() *T
}

// with returns the child of values, making it on first use; it panics when the number of values
// is not the number of labels, a programming error.
func (v *vec[T]) with(values []string) *T {
	if len(values) != len(v.labels) {
		panic("promtext: " + v.name + " takes " + strings.Join(v.labels, ", ") + " as labels")
	}
	key := strings.Join(values, "\xff")
	v.mu.RLock()
	c, ok := v.children[key]
	v.mu.RUnlock()
	if ok {
		return c
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if c, ok := v.children[key]; ok {
		return c
	}
	if v.children == nil {
		v.children = map[string]*T{}
	}
	c = v.newChild()
	v.children[key] = c
	return c
}

// each calls f with each child's label pairs, in the order of their values.
func (v *vec[T]) each(f func(pairs []string, c *T)) {
	v.mu.RLock()
	keys := make([]string, 0, len(v.children))
	for k := range v.children {
		keys = append(keys, k)
	}
	children := make(map[string]*T, len(v.children))
	for k, c := range v.children {
		children[k] = c
	}
	v.mu.RUnlock()
	slices.Sort(keys)
	pairs := make([]string, 2*len(v.labels))
	for _, k := range keys {
		values := strings.Split(k, "\xff")
		for i, l := range v.labels {
			pairs[2*i], pairs[2*i+1] = l, values[i]
		}
		f(pairs, children[k])
	}
}

// Counter is a value that only goes up.
type Counter struct{ v value }

// Inc adds one.
func (c *Counter) Inc() { c.v.add(1) }

// Add adds d, which must not be negative.
func (c *Counter) Add(d float64) {
	if d > 0 {
		c.v.add(d)
	}
}

// CounterVec is a counter per label values.
type CounterVec struct{ v vec[Counter] }

// NewCounterVec returns a counter family with the given labels.
func NewCounterVec(name, help string, labels ...string) *CounterVec {
	return &CounterVec{v: vec[Counter]{name: name, help: help, labels: labels, newChild: func() *Counter { return &Counter{} }}}
}

// With returns the counter of the label values, one per label, in order.
func (c *CounterVec) With(values ...string) *Counter { return c.v.with(values) }

// Collect writes the family.
func (c *CounterVec) Collect(w *Writer) {
	w.Family(c.v.name, "counter", c.v.help)
	c.v.each(func(pairs []string, ch *Counter) { w.Sample(c.v.name, ch.v.get(), pairs...) })
}

// Histogram counts observations in cumulative buckets.
type Histogram struct {
	upper  []float64
	counts []atomic.Uint64 // per bucket, not cumulative; the last is above every bound
	sum    value
}

// Observe adds one observation.
func (h *Histogram) Observe(v float64) {
	i, _ := slices.BinarySearch(h.upper, v)
	h.counts[i].Add(1)
	h.sum.add(v)
}

// HistogramVec is a histogram per label values.
type HistogramVec struct {
	v       vec[Histogram]
	buckets []float64
}

// NewHistogramVec returns a histogram family with the given upper bounds, ascending, and
// labels.
func NewHistogramVec(name, help string, buckets []float64, labels ...string) *HistogramVec {
	h := &HistogramVec{buckets: slices.Clone(buckets)}
	h.v = vec[Histogram]{name: name, help: help, labels: labels, newChild: func() *Histogram {
		return &Histogram{upper: h.buckets, counts: make([]atomic.Uint64, len(h.buckets)+1)}
	}}
	return h
}

// With returns the histogram of the label values, one per label, in order.
func (h *HistogramVec) With(values ...string) *Histogram { return h.v.with(values) }

// Collect writes the family: cumulative _bucket lines with le, then _sum and _count.
func (h *HistogramVec) Collect(w *Writer) {
	name := h.v.name
	w.Family(name, "histogram", h.v.help)
	h.v.each(func(pairs []string, ch *Histogram) {
		le := append(slices.Clone(pairs), "le", "")
		var n uint64
		for i := range ch.counts {
			n += ch.counts[i].Load()
			if i < len(ch.upper) {
				le[len(le)-1] = string(AppendFloat(nil, ch.upper[i]))
			} else {
				le[len(le)-1] = "+Inf"
			}
			w.Sample(name+"_bucket", float64(n), le...)
		}
		w.Sample(name+"_sum", ch.sum.get(), pairs...)
		w.Sample(name+"_count", float64(n), pairs...)
	})
}

// GaugeFunc is a gauge whose value a function gives at each scrape.
func GaugeFunc(name, help string, f func() float64) Collector {
	return CollectorFunc(func(w *Writer) {
		w.Family(name, "gauge", help)
		w.Sample(name, f())
	})
}

// CounterFunc is a counter whose value a function gives at each scrape.
func CounterFunc(name, help string, f func() float64) Collector {
	return CollectorFunc(func(w *Writer) {
		w.Family(name, "counter", help)
		w.Sample(name, f())
	})
}
