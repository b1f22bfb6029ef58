package serving

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry/promql"
	"github.com/gpucost/gpucost/traffic"
)

// HourCounts gathers a pool's requests by hour over a period, from midnight UTC, and how much
// of each hour its source covered, to average them by hour of the week.
type HourCounts struct {
	From, To time.Time
	Requests []float64 // by hour from From
	Covered  []float64 // seconds of each hour the source covered
	// Tokens are the token counts of the requests file, when it is a request log with input
	// and output token columns: its mean tokens a request.
	Tokens *traffic.TokenCounts
}

// NewHourCounts returns empty counts for the hours of [from, to).
func NewHourCounts(from, to time.Time) *HourCounts {
	n := int((to.Sub(from) + time.Hour - 1) / time.Hour)
	return &HourCounts{From: from, To: to, Requests: make([]float64, n), Covered: make([]float64, n)}
}

// Add counts rate requests a second over [start, start+d), split across the hours it spans,
// within the period.
func (w *HourCounts) Add(start time.Time, d time.Duration, rate float64) {
	s, end := start, start.Add(d)
	if s.Before(w.From) {
		s = w.From
	}
	if end.After(w.To) {
		end = w.To
	}
	for s.Before(end) {
		h := int(s.Sub(w.From) / time.Hour)
		next := w.From.Add(time.Duration(h+1) * time.Hour)
		if next.After(end) {
			next = end
		}
		sec := next.Sub(s).Seconds()
		w.Requests[h] += rate * sec
		w.Covered[h] += sec
		s = next
	}
}

// CoveredHours returns the hours of the period the source covered.
func (w *HourCounts) CoveredHours() float64 {
	sum := 0.0
	for _, c := range w.Covered {
		sum += c
	}
	return sum / 3600
}

// Week returns the mean requests in each hour of the week ([time.Weekday][hour], UTC) over the
// covered hours. An hour of the week the source never covered (a source shorter than a week)
// takes the mean of its hour of the day on the days covered; an hour of the day never covered
// is an error.
func (w *HourCounts) Week() ([7][24]float64, error) {
	var req, cov [7][24]float64
	var reqH, covH [24]float64
	for i := range w.Requests {
		t := w.From.Add(time.Duration(i) * time.Hour)
		d, h := t.Weekday(), t.Hour()
		req[d][h] += w.Requests[i]
		cov[d][h] += w.Covered[i]
		reqH[h] += w.Requests[i]
		covH[h] += w.Covered[i]
	}
	var out [7][24]float64
	for d := range 7 {
		for h := range 24 {
			switch {
			case cov[d][h] > 0:
				out[d][h] = req[d][h] / cov[d][h] * 3600
			case covH[h] > 0:
				out[d][h] = reqH[h] / covH[h] * 3600
			default:
				return out, fmt.Errorf("covers %.0f hours of the period and never %02d:00–%02d:00 UTC; give at least one whole day", w.CoveredHours(), h, h+1)
			}
		}
	}
	return out, nil
}

// PoolRequests reads a pool's request counts over [from, to) into the mean requests per
// hour of the week, and says where they came from.
func PoolRequests(ctx context.Context, p Pool, from, to time.Time) ([7][24]float64, string, error) {
	week, desc, _, err := poolRequests(ctx, p, from, to)
	return week, desc, err
}

// poolRequests is PoolRequests with the token counts of a requests file that has them.
func poolRequests(ctx context.Context, p Pool, from, to time.Time) ([7][24]float64, string, *traffic.TokenCounts, error) {
	w := NewHourCounts(from, to)
	var desc string
	var err error
	if p.Requests != "" {
		desc, err = ReadRequestsFileAs(p.Requests, p.RequestsShape, w)
	} else {
		desc, err = readRequestsPrometheus(ctx, p, w)
	}
	if err != nil {
		return [7][24]float64{}, "", nil, err
	}
	if p.PromTokens != "" && w.Total() > 0 {
		if err := readTokensPrometheus(ctx, p, w); err != nil {
			return [7][24]float64{}, "", nil, err
		}
	}
	if w.CoveredHours() == 0 {
		return [7][24]float64{}, "", nil, gpucost.Errorf(gpucost.EInvalid, "%s has no requests from %s to %s, the period recommend reads: give --since/--until that overlap it",
			desc, from.Format(time.DateTime), to.Format(time.DateTime))
	}
	week, err := w.Week()
	if err != nil {
		return week, "", nil, gpucost.Errorf(gpucost.EInvalid, "%s %w", desc, err)
	}
	return week, fmt.Sprintf("%s: %.0f requests over %.0f hours of the period", desc, w.Total(), w.CoveredHours()), w.Tokens, nil
}

// Total returns the requests counted in the period.
func (w *HourCounts) Total() float64 {
	s := 0.0
	for _, x := range w.Requests {
		s += x
	}
	return s
}

// ReadRequestsFile reads a request log (binned by the minute), a timestamp,rate CSV or
// per-source timestamp,source,value samples (summed), telling which from the file. Gaps in a
// rate or sample file are hours not covered; silences in a request log are zero traffic.
func ReadRequestsFile(name string, w *HourCounts) (string, error) {
	return ReadRequestsFileAs(name, "", w)
}

// ReadRequestsFileAs is ReadRequestsFile for a file of the given shape ("" tells it from the
// file, and an ambiguous file is an error that asks for requests_shape).
func ReadRequestsFileAs(name string, shape traffic.Format, w *HourCounts) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", gpucost.Errorf(gpucost.EInvalid, "requests: %v; give a request log or a timestamp,rate CSV, its path relative to the serving file", err)
	}
	defer f.Close()
	format := shape
	if format == "" {
		if format, err = traffic.Detect(f); err != nil {
			return "", gpucost.Errorf(gpucost.EInvalid, "requests %s: %s", name, strings.ReplaceAll(err.Error(), "--trace-shape", "the pool's requests_shape:"))
		}
	}
	if _, err := f.Seek(0, 0); err != nil {
		return "", fmt.Errorf("read requests %s: %w", name, err)
	}
	o := traffic.Options{Gaps: traffic.GapZero, Sort: true, Format: format}
	if format == traffic.Timestamps {
		o.Gaps, o.Step = traffic.GapAuto, time.Minute
	}
	tr, err := traffic.Read(f, name, o)
	if err != nil {
		return "", gpucost.Errorf(gpucost.EInvalid, "requests: %w", err)
	}
	w.Tokens = tr.Tokens
	for i, r := range tr.Rates {
		t := tr.Start.Add(time.Duration(i) * tr.Step)
		if format != traffic.Timestamps && slices.ContainsFunc(tr.Gaps, func(g traffic.Gap) bool { return t.After(g.From) && t.Before(g.To) }) {
			continue // filled by GapZero: no data, not zero traffic
		}
		w.Add(t, tr.Step, r)
	}
	desc := fmt.Sprintf("requests %s (%s, %d intervals of %v from %s)", name, tr.Format, len(tr.Rates), tr.Step, tr.Start.Format(time.DateTime))
	return desc, nil
}

// readRequestsPrometheus reads a pool's requests a second, one point an hour, from a
// Prometheus range query; each point stands for the hour before it, so a [1h] range in the
// query averages that hour. Series are summed.
func readRequestsPrometheus(ctx context.Context, p Pool, w *HourCounts) (string, error) {
	c := &promql.Collector{URL: p.PromURL, Client: &http.Client{Timeout: time.Minute}}
	desc := fmt.Sprintf("prometheus %s query %q", p.PromURL, p.PromQuery)
	ss, err := c.Matrix(ctx, p.PromQuery, w.From.Add(time.Hour), w.To, time.Hour)
	if err != nil {
		return "", fmt.Errorf("read requests of namespace %s: %w", p.Namespace, err)
	}
	byHour := map[time.Time]float64{}
	for _, s := range ss {
		for _, pt := range s.Points {
			if pt.Value < 0 {
				return "", gpucost.Errorf(gpucost.EInvalid, "%s: %v at %s is negative; the query must give requests per second", desc, pt.Value, pt.Time.Format(time.DateTime))
			}
			byHour[pt.Time] += pt.Value
		}
	}
	for t, rate := range byHour {
		w.Add(t.Add(-time.Hour), time.Hour, rate)
	}
	return fmt.Sprintf("%s (%d series, %d hourly points)", desc, len(ss), len(byHour)), nil
}

// readTokensPrometheus reads the input and output tokens of the pool's namespace over the
// period from its engine's token counters, beside the requests already counted, for the pool's
// cost of a million tokens. A namespace whose counters show no tokens leaves Tokens nil.
func readTokensPrometheus(ctx context.Context, p Pool, w *HourCounts) error {
	g := GroupTokens{Prometheus: p.PromURL, Server: p.PromTokens}
	m, _, err := g.Read(ctx, "namespace", w.From, w.To)
	if err != nil {
		return fmt.Errorf("read tokens of namespace %s: %w", p.Namespace, err)
	}
	t, ok := m[p.Namespace]
	if !ok || t.Input+t.Output <= 0 {
		return nil
	}
	w.Tokens = &traffic.TokenCounts{Requests: w.Total(), Input: t.Input, Output: t.Output}
	return nil
}
