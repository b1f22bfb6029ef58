package notify

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Delivery is one attempt to send one Message to one target.
type Delivery struct {
	Key      string // the Message's Key
	Kind     string
	Target   string // the target's name in the Dispatcher
	Attempt  int    // 1 for the first try
	At       time.Time
	Duration time.Duration
	OK       bool
	Status   int    // the HTTP or SMTP status, 0 when there was none
	Error    string // why it failed, secrets redacted; empty when OK
	Final    bool   // no further attempt follows: success, permanent failure or attempts spent
}

// DeliveryLog records attempts and answers whether a Message's Key already reached a target,
// so an alert is sent once even across restarts. Implementations must be safe for concurrent
// use.
type DeliveryLog interface {
	// Record stores one attempt.
	Record(ctx context.Context, d Delivery) error
	// Delivered reports whether an attempt with this key to this target succeeded.
	Delivered(ctx context.Context, key, target string) (bool, error)
}

// DeliveryFilter selects attempts from a stored delivery log. The zero value selects all.
type DeliveryFilter struct {
	Since     time.Time // attempts at or after; zero: from the start
	KeyPrefix string    // attempts whose key starts with it, such as "budget:team-a:"
	Target    string    // attempts to this target only
	Limit     int       // the latest Limit attempts; 0: all
}

// StoredLog is a DeliveryLog kept in a store, which also lists what it holds: the SQLite and
// the PostgreSQL stores' logs.
type StoredLog interface {
	DeliveryLog
	// Deliveries returns the attempts f selects, oldest first.
	Deliveries(ctx context.Context, f DeliveryFilter) ([]Delivery, error)
}

// Check reports why d cannot be recorded: a log needs its target and an attempt from 1 on.
func (d Delivery) Check() error {
	if d.Target == "" {
		return fmt.Errorf("record delivery of %q: no target name", d.Key)
	}
	if d.Attempt < 1 {
		return fmt.Errorf("record delivery of %q to %s: attempt %d, want 1 or more", d.Key, d.Target, d.Attempt)
	}
	return nil
}

// MemoryLog is a DeliveryLog held in memory, for tests and single-run commands.
type MemoryLog struct {
	mu   sync.Mutex
	all  []Delivery
	sent map[[2]string]bool
}

var _ DeliveryLog = (*MemoryLog)(nil)

// Record stores d.
func (l *MemoryLog) Record(_ context.Context, d Delivery) error {
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
func (l *MemoryLog) Deliveries() []Delivery {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Delivery(nil), l.all...)
}
