package promql

import (
	"context"
	"net/url"
	"strconv"
	"time"

	"github.com/gpucost/gpucost"
)

// Value is one series of an instant vector: its labels and its value.
type Value struct {
	Labels map[string]string
	Value  float64
}

// Vector evaluates an instant query at a time, such as
// sum by (namespace) (increase(http_requests_total[30d])), and returns its series. A query
// whose result is not an instant vector is an error.
func (c *Collector) Vector(ctx context.Context, query string, at time.Time) ([]Value, error) {
	res, _, err := c.get(ctx, "query", url.Values{"query": {query}, "time": {unixParam(at)}})
	if err != nil {
		return nil, err
	}
	if res.ResultType != "vector" {
		return nil, gpucost.Errorf(gpucost.EInvalid, "Prometheus query %q gave a %s, not an instant vector: aggregate it, such as sum by (namespace) (increase(requests_total[30d]))", query, res.ResultType)
	}
	out := make([]Value, 0, len(res.Result))
	for _, s := range res.Result {
		if s.Value == nil {
			continue
		}
		v, err := strconv.ParseFloat(s.Value.v, 64)
		if err != nil {
			return nil, gpucost.Errorf(gpucost.EInvalid, "Prometheus query %q: value %q of %v is not a number", query, s.Value.v, s.Metric)
		}
		out = append(out, Value{Labels: s.Metric, Value: v})
	}
	return out, nil
}
