package spot_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/gpucost/gpucost/file"
	"github.com/gpucost/gpucost/spot"
)

// TestAllEvents: every job's events by job, the unreadable objects counted; an empty store
// has none.
func TestAllEvents(t *testing.T) {
	ctx := context.Background()
	log := slog.New(slog.DiscardHandler)
	s, err := file.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if jobs, skipped, err := spot.AllEvents(ctx, s, "S", log); len(jobs) != 0 || skipped != 0 || err != nil {
		t.Errorf("AllEvents(empty store) = %v, %d, %v; want none", jobs, skipped, err)
	}
	want := twoMachineJob()
	for _, ev := range want {
		if err := spot.PutEvent(ctx, s, ev); err != nil {
			t.Fatal(err)
		}
	}
	objectPut(t, s, "j/events/0000000000000000001-bad.json", []byte(`{"job":"j"`))
	objectPut(t, s, "other/events/0000000000000000001-h.json", []byte(`{"job":"other","kind":"start","time":"2025-03-01T00:00:00Z"}`))
	jobs, skipped, err := spot.AllEvents(ctx, s, "S", log)
	if err != nil || skipped != 1 || len(jobs) != 2 || len(jobs["j"]) != len(want) || len(jobs["other"]) != 1 {
		t.Errorf("AllEvents = %d jobs (j %d events, other %d), %d skipped, %v; want j's %d events, other's 1, 1 skipped",
			len(jobs), len(jobs["j"]), len(jobs["other"]), skipped, err, len(want))
	}
}
