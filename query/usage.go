package query

import (
	"context"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/plan"
)

// UsageByHour returns what the GPU time of r's period costs at the catalog's on-demand price,
// hour by hour from the hour holding its start (plan.UsageByHour): the usage gpucost plan
// commit sizes a commitment against. The hours of a GPU the catalog does not price count
// nothing.
func (r *Report) UsageByHour(ctx context.Context) (*plan.UsageByHour, error) {
	price := r.Pricer()
	u := plan.NewUsageByHour(r.Period.Start, r.Period.End)
	err := r.Scan(ctx, time.Hour, func(ru *gpucost.Rollup) {
		if p, ok := price(ru.Series); ok {
			u.Add(ru, p)
		}
	})
	return u, err
}
