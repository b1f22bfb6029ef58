// Package traffic reads request-arrival traces for the serving planners: a CSV of request
// timestamps (one row per request, such as the Azure LLM inference trace with its TIMESTAMP
// column) or a CSV of timestamp,rate rows (requests per second for each interval), and bins them
// into a rate per interval.
//
// What a trace can get wrong, and what Read does about it:
//   - Unsorted timestamps: an error naming the line and the earlier one, unless Options.Sort is
//     set, since a request log merged from several front ends is often slightly out of order.
//   - Duplicate timestamps: in a request log, two requests logged at the same instant; they
//     count as two and Trace.Duplicates says how many there were. In a rate file, two rates for
//     one interval: an error naming both lines.
//   - Gaps: in a rate file, a missing interval is missing data, so by default (GapAuto) it is an
//     error naming the line, where and how long; GapZero fills it with zero traffic. In a request
//     log, silence is how zero traffic looks, so by default it is zero traffic, and silences
//     longer than Options.MaxSilence are listed in Trace.Gaps (and are errors with GapError).
//
// It reads from an io.Reader; opening files is the caller's job.
package traffic

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Format is the kind of trace a file holds.
type Format string

// The trace formats.
const (
	Timestamps Format = "timestamps" // one row per request, with its arrival time
	Rates      Format = "rates"      // timestamp,rate: requests per second per interval
	Samples    Format = "samples"    // timestamp,source,value: each source's requests per second, summed
)

// GapPolicy says what a gap in a trace means.
type GapPolicy string

// The gap policies.
const (
	GapAuto  GapPolicy = ""      // rate files: an error; request logs: zero traffic, listed
	GapError GapPolicy = "error" // any gap is an error
	GapZero  GapPolicy = "zero"  // any gap is zero traffic, listed in Trace.Gaps
)

// ParseGapPolicy reads "auto", "error" or "zero".
func ParseGapPolicy(s string) (GapPolicy, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return GapAuto, nil
	case "error":
		return GapError, nil
	case "zero":
		return GapZero, nil
	}
	return "", fmt.Errorf("gap policy %q: use auto, error or zero", s)
}

// Options control how a trace is read.
type Options struct {
	// Step is the interval rates are given for, 1 ms or more. For request logs it is the bin
	// width (default 1 s); for rate files it defaults to the smallest spacing between rows, and a given Step
	// must match the rows.
	Step time.Duration
	Gaps GapPolicy
	// MaxSilence is the longest stretch without requests a request log may have before it is
	// listed as a gap (default 2 min).
	MaxSilence time.Duration
	// Sort accepts an unsorted request log and bins it in time order.
	Sort bool
	// MaxIntervals bounds the trace's length in intervals (default DefaultMaxIntervals).
	MaxIntervals int
	// Format is the trace's shape when given (--trace-shape); "" tells it from the file.
	Format Format
}

// Trace is an arrival trace binned to a rate per interval.
type Trace struct {
	Name   string    `json:"name"`
	Format Format    `json:"format"`
	Start  time.Time `json:"start"` // the start of the first interval
	// Step is the interval of each rate.
	Step time.Duration `json:"-"`
	// Rates are requests per second, one per interval from Start.
	Rates []float64 `json:"-"`
	// Requests is the number of requests in the trace (the sum of rate × step for rate files).
	Requests float64 `json:"requests"`
	Rows     int     `json:"rows"`
	// Duplicates counts request-log rows with the same timestamp as the row before.
	Duplicates int `json:"duplicates,omitempty"`
	// Unsorted counts request-log rows earlier than the row before (only with Options.Sort).
	Unsorted int   `json:"unsorted,omitempty"`
	Gaps     []Gap `json:"gaps,omitempty"`
	// Sources is the number of sources summed (samples only); Carried the source-intervals
	// that took a source's previous value because it had no sample there.
	Sources int `json:"sources,omitempty"`
	Carried int `json:"carried,omitempty"`
	// Tokens sums a request log's token counts, when it has input and output token columns
	// (ContextTokens and GeneratedTokens, prompt_tokens and completion_tokens, input_tokens and
	// output_tokens); nil otherwise.
	Tokens *TokenCounts `json:"tokens,omitempty"`
	// TokenSample is a request log's token counts request by request (input, output), every
	// request up to MaxTokenSample and an evenly spaced sample of them beyond: the service time's
	// distribution, not only its moments.
	TokenSample              [][2]float64 `json:"-"`
	sampleStride, sampleSeen int
}

// MaxTokenSample bounds Trace.TokenSample.
const MaxTokenSample = 1 << 17

// sampleTokens keeps one request's token counts in TokenSample: every request while there is
// room, then every other of those kept and of those to come, and so on.
func (tr *Trace) sampleTokens(in, out float64) {
	if tr.sampleStride == 0 {
		tr.sampleStride = 1
	}
	tr.sampleSeen++
	if tr.sampleSeen%tr.sampleStride != 0 {
		return
	}
	tr.TokenSample = append(tr.TokenSample, [2]float64{in, out})
	if len(tr.TokenSample) >= MaxTokenSample {
		for i := 0; 2*i+1 < len(tr.TokenSample); i++ {
			tr.TokenSample[i] = tr.TokenSample[2*i+1]
		}
		tr.TokenSample = tr.TokenSample[:len(tr.TokenSample)/2]
		tr.sampleStride *= 2
	}
}

// TokenCounts are the moments of a request log's token counts: enough for the mean and spread
// of a service time linear in them.
type TokenCounts struct {
	Requests float64 `json:"requests"`
	Input    float64 `json:"input"`  // the sum of input tokens
	Output   float64 `json:"output"` // the sum of output tokens
	// sums of squares and of products
	Input2, Output2, InputOut float64 `json:"-"`
}

// add counts one request's tokens.
func (c *TokenCounts) add(in, out float64) {
	c.Requests++
	c.Input += in
	c.Output += out
	c.Input2 += in * in
	c.Output2 += out * out
	c.InputOut += in * out
}

// Gap is a stretch of a trace without data (rate files) or without requests (request logs).
type Gap struct {
	From time.Time `json:"from"` // the last time seen before the gap
	To   time.Time `json:"to"`   // the first time seen after it
	Line int       `json:"line"` // the line of the row after the gap
}

// Duration returns how long the gap lasts.
func (g Gap) Duration() time.Duration { return g.To.Sub(g.From) }

// String describes the gap for people.
func (g Gap) String() string {
	return fmt.Sprintf("%s from %s to %s (before line %d)", g.Duration().Round(time.Second), g.From.Format(time.DateTime), g.To.Format(time.DateTime), g.Line)
}

// Duration returns how long the trace lasts: intervals × step.
func (t *Trace) Duration() time.Duration { return time.Duration(len(t.Rates)) * t.Step }

// Peak returns the highest rate of the trace.
func (t *Trace) Peak() float64 {
	peak := 0.0
	for _, r := range t.Rates {
		peak = max(peak, r)
	}
	return peak
}

// Mean returns the mean rate of the trace.
func (t *Trace) Mean() float64 {
	if len(t.Rates) == 0 {
		return 0
	}
	return t.Requests / t.Duration().Seconds()
}

// Rebin returns the trace with rates averaged over intervals of step, a multiple of its own.
func (t *Trace) Rebin(step time.Duration) (*Trace, error) {
	if step <= 0 || step%t.Step != 0 {
		return nil, fmt.Errorf("rebin %s to %v: give a multiple of its %v intervals", t.Name, step, t.Step)
	}
	k := int(step / t.Step)
	out := *t
	out.Step = step
	out.Rates = make([]float64, (len(t.Rates)+k-1)/k)
	for i, r := range t.Rates {
		out.Rates[i/k] += r / float64(k)
	}
	return &out, nil
}

// timeLayouts are the timestamp forms a trace may use; fractional seconds of any length are
// accepted after the seconds. Times without a zone are UTC.
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05", "2006-01-02T15:04:05"}

// parseTime reads a timestamp: one of timeLayouts, or Unix seconds with a fraction.
func parseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), nil
		}
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f >= 0 && f < 1e11 && !math.IsNaN(f) {
		sec, frac := math.Modf(f)
		return time.Unix(int64(sec), int64(math.Round(frac*1e9))).UTC(), nil
	}
	return time.Time{}, fmt.Errorf("%q is not a timestamp: use 2023-11-16 18:17:03.97, RFC 3339 or Unix seconds", s)
}
