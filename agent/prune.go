package agent

import (
	"context"
	"log/slog"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry"
)

// PruningSink is the agent's sink when it writes a store: a rollup writer that also drops
// minute rollups past their retention once an hour, so a long-running agent's store stays
// small. Hourly rollups are kept.
type PruningSink struct {
	*telemetry.Writer
	Store     gpucost.MinutePruner
	Retention telemetry.Retention
	Now       func() time.Time
	Log       *slog.Logger
	last      time.Time
}

var _ Sink = (*PruningSink)(nil)

// Flush writes the buffered samples and, at most once an hour, prunes old minute rollups.
func (s *PruningSink) Flush(ctx context.Context) error {
	if err := s.Writer.Flush(ctx); err != nil {
		return err
	}
	now := s.Now()
	if now.Sub(s.last) < time.Hour {
		return nil
	}
	s.last = now
	cutoff, ok := s.Retention.Cutoff(time.Minute, now)
	if !ok {
		return nil
	}
	n, err := s.Store.PruneMinutes(ctx, cutoff)
	if err != nil {
		return err
	}
	if n > 0 {
		s.Log.Info("pruned minute rollups past retention", "rows", n, "before", cutoff.Format(time.RFC3339))
	}
	return nil
}
