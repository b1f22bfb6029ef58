package queue

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
)

// Queues returns the names of the queues on the server, sorted: those with an items stream
// (GPUCOST_Q_<name>, queueNames).
func (c *Client) Queues(ctx context.Context) ([]string, error) {
	lister := c.js.StreamNames(ctx, jetstream.WithStreamListSubject("gpucost.q.*.items"))
	var names []string
	for name := range lister.Name() {
		if q, ok := strings.CutPrefix(name, "GPUCOST_Q_"); ok {
			names = append(names, q)
		}
	}
	if err := lister.Err(); err != nil && !errors.Is(err, jetstream.ErrEndOfData) {
		return nil, err
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}
