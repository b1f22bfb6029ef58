package notice

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// DefaultGrace is how long the runner gives itself after a signal when Grace is zero: the
// issue's --grace default, most of the 2 min an AWS spot notice gives.
const DefaultGrace = 90 * time.Second

// Signal reports a Terminate notice, Deadline = Seen + Grace, each time the runner receives one
// of Signals. Schedulers such as Kubernetes, Slurm and SkyPilot say "you are being reclaimed"
// with SIGTERM, not through a metadata endpoint.
type Signal struct {
	Signals []os.Signal   // SIGTERM when empty
	Grace   time.Duration // DefaultGrace when zero
	Now     func() time.Time
}

var _ Watcher = (*Signal)(nil)

// Watch catches Signals until ctx ends, then restores their default handling.
func (s *Signal) Watch(ctx context.Context, out chan<- Notice) error {
	sigs := s.Signals
	if len(sigs) == 0 {
		sigs = []os.Signal{syscall.SIGTERM}
	}
	grace := s.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	now := s.Now
	if now == nil {
		now = time.Now
	}
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, sigs...)
	defer signal.Stop(ch)
	for {
		select {
		case <-ctx.Done():
			return nil
		case sig := <-ch:
			seen := now()
			n := Notice{Kind: Terminate, Source: SourceSignal, Seen: seen, Deadline: seen.Add(grace),
				Detail: "received " + sig.String()}
			if !send(ctx, out, n) {
				return nil
			}
		}
	}
}
