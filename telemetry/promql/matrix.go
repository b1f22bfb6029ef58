package promql

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"time"

	"github.com/gpucost/gpucost"
)

// Point is one value of a range query's series.
type Point struct {
	Time  time.Time
	Value float64
}

// Series is one series of a range query's matrix: its labels and its points, oldest first.
type Series struct {
	Labels map[string]string
	Points []Point
}

// Matrix evaluates a range query, such as
// sum(rate(vllm:request_success_total{namespace="serving"}[1h])), at every step from from to
// to with /api/v1/query_range, in chunks of at most MaxPoints points, and returns its series
// with their points joined across the chunks. A query whose result is not a matrix is an error,
// as is a value that is not a number; NaN and infinite values (a rate over a counter reset at
// the edge of the data) are left out.
func (c *Collector) Matrix(ctx context.Context, query string, from, to time.Time, step time.Duration) ([]Series, error) {
	if step <= 0 || !from.Before(to) {
		return nil, gpucost.Errorf(gpucost.EInvalid, "Prometheus range query %q: want a step above 0 and from before to, got step %v from %v to %v", query, step, from, to)
	}
	byKey := map[string]int{}
	var out []Series
	chunk := time.Duration(c.maxPoints()-1) * step
	for start := from; !start.After(to); start = start.Add(chunk + step) {
		end := start.Add(chunk)
		if end.After(to) {
			end = to
		}
		res, _, err := c.get(ctx, "query_range", url.Values{"query": {query}, "start": {unixParam(start)},
			"end": {unixParam(end)}, "step": {strconv.FormatFloat(step.Seconds(), 'f', -1, 64)}})
		if err != nil {
			return nil, err
		}
		if res.ResultType != "matrix" {
			return nil, gpucost.Errorf(gpucost.EInvalid, "Prometheus range query %q gave a %s, not a matrix", query, res.ResultType)
		}
		for _, s := range res.Result {
			key := labelKey(s.Metric)
			i, ok := byKey[key]
			if !ok {
				i = len(out)
				byKey[key] = i
				out = append(out, Series{Labels: s.Metric})
			}
			for _, p := range s.Values {
				v, err := strconv.ParseFloat(p.v, 64)
				if err != nil {
					return nil, gpucost.Errorf(gpucost.EInvalid, "Prometheus range query %q: value %q of %v at %s is not a number", query, p.v, s.Metric, at(p.ms))
				}
				if v != v || v > 1e300 || v < -1e300 {
					continue
				}
				out[i].Points = append(out[i].Points, Point{Time: time.UnixMilli(p.ms).UTC(), Value: v})
			}
		}
	}
	return out, nil
}

// labelKey is a series' labels as one comparable string.
func labelKey(m map[string]string) string {
	b, _ := json.Marshal(m) // map keys come out sorted
	return string(b)
}
