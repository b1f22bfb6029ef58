package gpucost

import (
	"context"
	"time"
)

// Delivery is one attempt to send one alert to one target, as the alert delivery log keeps it.
type Delivery struct {
	Key      string // the alert's dedupe key; empty turns dedupe off
	Kind     string // the alert's kind, such as "budget.threshold"
	Target   string // the target's name in the dispatcher
	Attempt  int    // 1 for the first try
	At       time.Time
	Duration time.Duration
	OK       bool
	Status   int    // the HTTP or SMTP status, 0 when there was none
	Error    string // why it failed, secrets redacted; empty when OK
	Final    bool   // no further attempt follows: success, permanent failure or attempts spent
}

// Check refuses, as an EInvalid, a delivery a log cannot record: it needs its target and an
// attempt from 1 on.
func (d Delivery) Check() error {
	if d.Target == "" {
		return Errorf(EInvalid, "record delivery of %q: no target name", d.Key)
	}
	if d.Attempt < 1 {
		return Errorf(EInvalid, "record delivery of %q to %s: attempt %d, want 1 or more", d.Key, d.Target, d.Attempt)
	}
	return nil
}

// DeliveryFilter selects attempts from a delivery log. The zero value selects all.
type DeliveryFilter struct {
	Since     time.Time // attempts at or after; zero: from the start
	KeyPrefix string    // attempts whose key starts with it, such as "budget:team-a:"
	Target    string    // attempts to this target only
	Limit     int       // the latest Limit attempts; 0: all
}

// DeliveryLog is the alert delivery log: every attempt to send an alert is kept, so that an
// alert reaches each target once across runs, restarts and server replicas. Implementations
// are safe for concurrent use.
type DeliveryLog interface {
	// RecordDelivery stores one attempt. It refuses, as an EInvalid, one that fails Check.
	RecordDelivery(ctx context.Context, d Delivery) error

	// Delivered reports whether a final, successful attempt sent key to target. An empty key
	// is never delivered: it turns dedupe off.
	Delivered(ctx context.Context, key, target string) (bool, error)

	// Deliveries returns the attempts f selects, oldest first (by time, then by when recorded);
	// with a Limit, the latest Limit of them.
	Deliveries(ctx context.Context, f DeliveryFilter) ([]Delivery, error)
}
