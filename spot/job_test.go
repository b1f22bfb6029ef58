package spot_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/file"
	"github.com/gpucost/gpucost/spot"
)

// TestNewJob: the job is named after its directory, its signal parsed, its machine described
// from the options with no cloud to ask; a bad name or signal is refused before the store is
// opened.
func TestNewJob(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "llama-ft")
	opened := 0
	o := spot.JobOptions{Dir: dir, Command: []string{"true"}, Stdout: &strings.Builder{}, Stderr: &strings.Builder{},
		OpenStore: func(context.Context) (gpucost.ObjectStore, error) {
			opened++
			return file.New(t.TempDir())
		},
		NoticeSignal: "usr1", Cloud: "none", Offers: func(context.Context) ([]gpucost.Offer, error) { return nil, nil }, InstanceType: "g5.xlarge", Price: "0.40", Spot: true, SpotGiven: true}
	r, err := spot.NewJob(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if r.Job != "llama-ft" || r.NoticeSignal != syscall.SIGUSR1 || r.Machine.InstanceType != "g5.xlarge" || !r.Machine.Spot || r.Syncer == nil || opened != 1 {
		t.Errorf("NewJob = job %q, signal %v, machine %+v, %d stores opened; want llama-ft, SIGUSR1, the spot g5.xlarge, 1", r.Job, r.NoticeSignal, r.Machine, opened)
	}
	for _, bad := range []spot.JobOptions{{Name: "bad name!", Dir: dir, NoticeSignal: "TERM"}, {Dir: dir, NoticeSignal: "SIGKILLME"}} {
		bad.OpenStore = o.OpenStore
		if _, err := spot.NewJob(ctx, bad); err == nil || opened != 1 {
			t.Errorf("NewJob(name %q, signal %q) = %v, %d stores opened; want it refused before the store opens", bad.Name, bad.NoticeSignal, err, opened)
		}
	}
	o.OpenStore = func(context.Context) (gpucost.ObjectStore, error) { return nil, errors.New("no store") }
	if _, err := spot.NewJob(ctx, o); err == nil || err.Error() != "no store" {
		t.Errorf("NewJob(store fails) = %v; want the store's error", err)
	}
}
