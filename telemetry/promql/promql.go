// Package promql reads GPU samples from the DCGM series of a Prometheus-compatible server
// (Prometheus, VictoriaMetrics, Thanos, Mimir) through its HTTP API: Collect takes the latest
// values with /api/v1/query and Range takes a history with /api/v1/query_range, in chunks that
// stay within the server's limits.
package promql

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry/dcgmfields"
)

// MaxPoints is Prometheus' limit of points per series in one query_range answer.
const MaxPoints = 11000

// MaxSkips is how many skipped values Stats keeps; it counts them all.
const MaxSkips = 100

// Collector queries a Prometheus-compatible server for dcgm-exporter's series.
type Collector struct {
	URL      string       // the server, such as http://prometheus:9090
	Client   *http.Client // nil: http.DefaultClient; the context bounds each request
	Selector string       // extra label matchers, such as `cluster="prod",namespace=~"ml-.*"`
	Now      func() time.Time
	// MaxPoints bounds the points per series of one query_range request; 0 means MaxPoints.
	MaxPoints int
	// MaxValues bounds the values (series × points) one query_range request is sized for, which
	// bounds memory; 0 means 500,000.
	MaxValues int
	// OnStats, if set, is called after each Collect or Range with what it skipped and the
	// server's warnings, so that they can be logged.
	OnStats func(Stats)
}

var _ gpucost.Collector = (*Collector)(nil)

// Stats says what a Collect or Range did.
type Stats struct {
	Queries  int            // API requests made
	Series   int            // series read (one per metric and GPU)
	Samples  int            // samples emitted
	Skipped  int            // values left out
	Skips    []gpucost.Skip // the first MaxSkips of them
	Warnings []string       // the server's warnings and infos
}

func (s *Stats) skip(series, reason string) {
	s.Skipped++
	if len(s.Skips) < MaxSkips {
		s.Skips = append(s.Skips, gpucost.Skip{File: "prometheus", Field: series, Reason: reason})
	}
}

func (s *Stats) warn(ws []string) {
	for _, w := range ws {
		if !slices.Contains(s.Warnings, w) {
			s.Warnings = append(s.Warnings, w)
		}
	}
}

// Query returns the PromQL selector of the DCGM series the Collector reads.
func (c *Collector) Query() string {
	q := `{__name__=~"` + strings.Join(dcgmfields.Metrics(), "|") + `"`
	if sel := strings.TrimSpace(c.Selector); sel != "" {
		q += "," + strings.TrimSuffix(strings.TrimPrefix(sel, "{"), "}")
	}
	return q + "}"
}

// Collect returns the latest sample of every GPU the server has DCGM series for, as of now. It
// returns an error if there are none.
func (c *Collector) Collect(ctx context.Context) ([]gpucost.Sample, error) {
	now := time.Now()
	if c.Now != nil {
		now = c.Now()
	}
	var st Stats
	res, warnings, err := c.get(ctx, "query", url.Values{"query": {c.Query()}, "time": {unixParam(now)}})
	st.Queries++
	st.warn(warnings)
	if err != nil {
		c.report(st)
		return nil, err
	}
	if len(res.Result) == 0 {
		c.report(st)
		return nil, gpucost.Errorf(gpucost.ENotFound, "Prometheus at %s has no DCGM series matching %s: does it scrape dcgm-exporter?", c.URL, c.Query())
	}
	var g grouper
	g.init(&st)
	for _, s := range res.Result {
		if s.Value != nil {
			g.add(s.Metric, []point{*s.Value})
		}
	}
	samples := g.samples()
	st.Samples = len(samples)
	c.report(st)
	return samples, nil
}

// Range calls emit with the samples of every GPU at each step from from to to, oldest first.
// The range is read in chunks of at most MaxPoints steps and MaxValues values; a chunk the
// server finds too large is halved and tried again.
func (c *Collector) Range(ctx context.Context, from, to time.Time, step time.Duration, emit func(gpucost.Sample)) error {
	var st Stats
	defer func() { c.report(st) }()
	if step < time.Millisecond || !from.Before(to.Add(time.Nanosecond)) {
		return gpucost.Errorf(gpucost.EInvalid, "Prometheus range %s to %s by %s: want from ≤ to and a step of at least 1ms", from, to, step)
	}
	steps := min(c.maxPoints(), 1000) // a first chunk small enough to learn how many series there are
	for start := from; !start.After(to); {
		end := start.Add(time.Duration(steps-1) * step)
		if end.After(to) {
			end = to
		}
		n, err := c.chunk(ctx, start, end, step, &st, emit)
		if err != nil && tooManySamples(err) && steps > 1 {
			steps /= 2
			continue
		}
		if err != nil {
			return err
		}
		start = end.Add(step)
		steps = c.chunkSteps(n)
	}
	return nil
}

func (c *Collector) maxPoints() int {
	if c.MaxPoints > 0 {
		return min(c.MaxPoints, MaxPoints)
	}
	return MaxPoints
}

// chunkSteps sizes the next chunk for a range with n series.
func (c *Collector) chunkSteps(n int) int {
	values := c.MaxValues
	if values <= 0 {
		values = 500_000
	}
	return max(1, min(c.maxPoints(), values/max(n, 1)))
}

// chunk reads one query_range chunk and emits its samples. It returns the number of series.
func (c *Collector) chunk(ctx context.Context, start, end time.Time, step time.Duration, st *Stats, emit func(gpucost.Sample)) (int, error) {
	res, warnings, err := c.get(ctx, "query_range", url.Values{"query": {c.Query()}, "start": {unixParam(start)},
		"end": {unixParam(end)}, "step": {strconv.FormatFloat(step.Seconds(), 'f', -1, 64)}})
	st.Queries++
	st.warn(warnings)
	if err != nil {
		return 0, fmt.Errorf("read %s to %s: %w", start.UTC().Format(time.RFC3339), end.UTC().Format(time.RFC3339), err)
	}
	var g grouper
	g.init(st)
	for _, s := range res.Result {
		g.add(s.Metric, s.Values)
	}
	for _, s := range g.samples() {
		emit(s)
		st.Samples++
	}
	return len(res.Result), nil
}

func (c *Collector) report(st Stats) {
	if c.OnStats != nil {
		c.OnStats(st)
	}
}
