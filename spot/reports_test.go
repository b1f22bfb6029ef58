package spot_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/file"
	"github.com/gpucost/gpucost/spot"
)

// TestReports: every job of the store, or one, summed up with the unreadable objects counted;
// a job without events and an empty store are ENotFound.
func TestReports(t *testing.T) {
	ctx := context.Background()
	log := slog.New(slog.DiscardHandler)
	s, err := file.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := spot.Reports(ctx, s, "S", "", log); gpucost.ErrorCode(err) != gpucost.ENotFound {
		t.Errorf("Reports(empty store) = %v; want ENotFound", err)
	}
	for _, ev := range twoMachineJob() {
		if err := spot.PutEvent(ctx, s, ev); err != nil {
			t.Fatal(err)
		}
	}
	objectPut(t, s, "j/events/0000000000000000001-bad.json", []byte(`{"job":"j"`))
	objectPut(t, s, "other/events/0000000000000000001-h.json", []byte(`{"job":"other","kind":"start","time":"2025-03-01T00:00:00Z"}`))
	for _, c := range []struct {
		job     string
		jobs    []string
		skipped int
		code    string
	}{
		{"", []string{"j", "other"}, 1, ""},
		{"other", []string{"other"}, 0, ""},
		{"missing", nil, 0, gpucost.ENotFound},
	} {
		reps, skipped, err := spot.Reports(ctx, s, "S", c.job, log)
		var jobs []string
		for _, r := range reps {
			jobs = append(jobs, r.Job)
		}
		if gpucost.ErrorCode(err) != c.code || skipped != c.skipped || len(jobs) != len(c.jobs) || (len(jobs) > 0 && jobs[0] != c.jobs[0]) {
			t.Errorf("Reports(job %q) = %q, %d skipped, %v; want %q, %d skipped, code %q", c.job, jobs, skipped, err, c.jobs, c.skipped, c.code)
		}
	}
}
