// Package notice watches for the signs that this machine is about to be taken away: the cloud's
// spot termination notice (AWS IMDSv2, GCP metadata, Azure Scheduled Events), AWS's earlier
// rebalance recommendation, and a SIGTERM sent to the runner itself.
package notice

import (
	"context"
	"time"
)

// Kinds of notice.
const (
	Terminate = "terminate" // the machine will be reclaimed at Deadline
	Rebalance = "rebalance" // an early warning: reclaim is likely soon, no deadline yet
)

// Notice is one warning from a Watcher.
type Notice struct {
	Kind     string    // Terminate or Rebalance
	Source   string    // "aws", "gcp", "azure" or "signal"
	Seen     time.Time // when the watcher saw it
	Deadline time.Time // when the machine goes away; zero for Rebalance
	Detail   string    // what the endpoint said, for the job's event log
	ID       string    // the provider's id for the notice (Azure's EventId), for Acker.Ack; may be empty
}

// Watcher reports notices on out until ctx ends. It returns nil when ctx is cancelled and an
// error only when it cannot watch at all.
type Watcher interface {
	Watch(ctx context.Context, out chan<- Notice) error
}

// Acker is a Watcher whose provider wants to hear that the machine is ready to go: Azure starts a
// Preempt event early once it is acknowledged, so the runner calls Ack with the Notice's ID only
// after its checkpoint upload has finished.
type Acker interface {
	Ack(ctx context.Context, id string) error
}
