package serving

import (
	"context"
	"time"

	"github.com/gpucost/gpucost/internal/csvin"
	"github.com/gpucost/gpucost/telemetry/promql"
)

// GroupRequests are where report kpi reads its request counts per group (the --by label's
// values) over a period: a CSV File, or a Prometheus server's Query.
type GroupRequests struct {
	File              string // a CSV of the group column and requests, with an optional date column
	Prometheus, Query string // a PromQL instant vector of request counts by the group label
}

// Read returns the request counts per value of by over [from, to), and where they came from;
// nil when no source is given. A CSV's rows with a date count when the date is in the period;
// the Prometheus vector is read at to and summed per value of the by label.
func (g GroupRequests) Read(ctx context.Context, by string, from, to time.Time) (map[string]float64, string, error) {
	switch {
	case g.File != "":
		m, err := ReadGroupRequestsCSV(g.File, by, from, to)
		return m, g.File, err
	case g.Prometheus != "":
		c := &promql.Collector{URL: g.Prometheus}
		vs, err := c.Vector(ctx, g.Query, to)
		if err != nil {
			return nil, "", err
		}
		m := map[string]float64{}
		for _, v := range vs {
			m[v.Labels[by]] += v.Value
		}
		return m, g.Prometheus, nil
	}
	return nil, "", nil
}

// ReadGroupRequestsCSV reads report kpi's --requests file: request counts per value of its by
// column, over the rows dated in [from, to) (from's day on) when it has a date column.
func ReadGroupRequestsCSV(name, by string, from, to time.Time) (map[string]float64, error) {
	c, err := csvin.Open("--requests", name, by, "requests")
	if err != nil {
		return nil, err
	}
	hasDate := c.Has("date")
	out := map[string]float64{}
	err = c.Each(func(rec []string) error {
		if hasDate {
			d, err := time.Parse(time.DateOnly, c.Get(rec, "date"))
			if err != nil {
				return c.Errorf("date", "date %q: use YYYY-MM-DD", c.Get(rec, "date"))
			}
			if d.Before(from.Truncate(24*time.Hour)) || !d.Before(to) {
				return nil
			}
		}
		n, err := c.Number(rec, "requests")
		out[c.Get(rec, by)] += n
		return err
	})
	return out, err
}
