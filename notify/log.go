package notify

import (
	"context"
	"sync"

	"github.com/gpucost/gpucost"
)

// DeliveryLog records attempts and answers whether a Message's Key already reached a target,
// so an alert is sent once even across restarts: a store's gpucost.DeliveryLog, or a
// MemoryLog. Implementations must be safe for concurrent use.
type DeliveryLog interface {
	// RecordDelivery stores one attempt.
	RecordDelivery(ctx context.Context, d gpucost.Delivery) error
	// Delivered reports whether an attempt with this key to this target succeeded.
	Delivered(ctx context.Context, key, target string) (bool, error)
}

// MemoryLog is a DeliveryLog held in memory, for tests and single-run commands.
type MemoryLog struct {
	mu   sync.Mutex
	all  []gpucost.Delivery
	sent map[[2]string]bool
}

var _ DeliveryLog = (*MemoryLog)(nil)

// RecordDelivery stores d.
func (l *MemoryLog) RecordDelivery(_ context.Context, d gpucost.Delivery) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all = append(l.all, d)
	if d.OK && d.Key != "" {
		if l.sent == nil {
			l.sent = map[[2]string]bool{}
		}
		l.sent[[2]string{d.Key, d.Target}] = true
	}
	return nil
}

// Delivered reports whether key reached target.
func (l *MemoryLog) Delivered(_ context.Context, key, target string) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sent[[2]string{key, target}], nil
}

// Deliveries returns every recorded attempt, oldest first.
func (l *MemoryLog) Deliveries() []gpucost.Delivery {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]gpucost.Delivery(nil), l.all...)
}
