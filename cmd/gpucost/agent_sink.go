package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry"
)

// pruningSink is the agent's sink: a rollup writer that also drops minute rollups past their
// retention once an hour, so a long-running agent's store stays small. Hourly rollups are kept.
type pruningSink struct {
	*telemetry.Writer
	db        gpucost.MinutePruner
	retention telemetry.Retention
	now       func() time.Time
	log       *slog.Logger
	last      time.Time
}

// Flush writes the buffered samples and, at most once an hour, prunes old minute rollups.
func (s *pruningSink) Flush(ctx context.Context) error {
	if err := s.Writer.Flush(ctx); err != nil {
		return err
	}
	now := s.now()
	if now.Sub(s.last) < time.Hour {
		return nil
	}
	s.last = now
	cutoff, ok := s.retention.Cutoff(time.Minute, now)
	if !ok {
		return nil
	}
	n, err := s.db.PruneMinutes(ctx, cutoff)
	if err != nil {
		return err
	}
	if n > 0 {
		s.log.Info("pruned minute rollups past retention", "rows", n, "before", cutoff.Format(time.RFC3339))
	}
	return nil
}
