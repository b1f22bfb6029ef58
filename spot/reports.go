package spot

import (
	"context"
	"log/slog"

	"github.com/gpucost/gpucost"
)

// Reports reads the events of job, or of every job in store where job is empty, and sums each
// job up (Summarize). name is how errors name the store. Unreadable event objects are skipped
// with a warning on log; skipped counts them. It returns an ENotFound error when job has no
// events, or the store none at all, and an EUnavailable one when the store cannot be read.
func Reports(ctx context.Context, store gpucost.ObjectStore, name, job string, log *slog.Logger) (reps []JobReport, skipped int, err error) {
	jobs := []string{job}
	if job == "" {
		if jobs, err = Jobs(ctx, store); err != nil {
			return nil, 0, gpucost.Errorf(gpucost.EUnavailable, "store %s: %w", name, err)
		}
	}
	for _, j := range jobs {
		events, n, err := ReadEvents(ctx, store, j, log)
		if err != nil {
			return nil, 0, gpucost.Errorf(gpucost.EUnavailable, "store %s: %w", name, err)
		}
		skipped += n
		if len(events) == 0 {
			if job != "" {
				return nil, 0, gpucost.Errorf(gpucost.ENotFound, "store %s has no events for job %q", name, job)
			}
			continue
		}
		reps = append(reps, Summarize(j, events))
	}
	if len(reps) == 0 {
		return nil, 0, gpucost.Errorf(gpucost.ENotFound, "store %s has no job events; jobs run with \"gpucost run --store %s\" record them", name, name)
	}
	return reps, skipped, nil
}

// AllEvents reads the events of every job in store, by job. name is how errors name the
// store. Unreadable event objects are skipped with a warning on log; skipped counts them. It
// returns an EUnavailable error when the store cannot be read.
func AllEvents(ctx context.Context, store gpucost.ObjectStore, name string, log *slog.Logger) (jobs map[string][]Event, skipped int, err error) {
	names, err := Jobs(ctx, store)
	if err != nil {
		return nil, 0, gpucost.Errorf(gpucost.EUnavailable, "store %s: %w", name, err)
	}
	jobs = map[string][]Event{}
	for _, job := range names {
		events, n, err := ReadEvents(ctx, store, job, log)
		if err != nil {
			return nil, 0, gpucost.Errorf(gpucost.EUnavailable, "store %s: %w", name, err)
		}
		skipped += n
		jobs[job] = events
	}
	return jobs, skipped, nil
}
