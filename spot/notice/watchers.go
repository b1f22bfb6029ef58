package notice

import (
	"context"
	"log/slog"
	"os"
	"syscall"
	"time"

	"github.com/gpucost/gpucost"
)

// WatchOptions say which notices a job watches for.
type WatchOptions struct {
	Cloud string        // CloudAWS, CloudGCP, CloudAzure, CloudNone, or "auto" to detect it
	Probe Probe         // the metadata endpoints
	Grace time.Duration // the deadline a SIGTERM or SIGINT to the runner gives
	Poll  time.Duration // how often to ask the metadata service
	Now   func() time.Time
	Log   *slog.Logger
}

// Watchers returns the notice watchers for o.Cloud, detected when "auto", and the cloud's
// name. SIGTERM and SIGINT to the runner are always watched.
func Watchers(ctx context.Context, o WatchOptions) ([]Watcher, string, error) {
	cloud := o.Cloud
	if cloud == "auto" {
		cloud = Detect(ctx, o.Probe)
		o.Log.Info("cloud detected", "cloud", cloud)
	}
	ws := []Watcher{&Signal{Signals: []os.Signal{syscall.SIGTERM, syscall.SIGINT}, Grace: o.Grace, Now: o.Now}}
	switch cloud {
	case CloudAWS:
		ws = append(ws, &AWS{Endpoint: o.Probe.AWS, Poll: o.Poll, Now: o.Now, Log: o.Log})
	case CloudGCP:
		ws = append(ws, &GCP{Host: o.Probe.GCPHost, Poll: o.Poll, Now: o.Now, Log: o.Log})
	case CloudAzure:
		ws = append(ws, &Azure{URL: o.Probe.AzureURL, Poll: o.Poll, Now: o.Now, Log: o.Log})
	case CloudNone:
	default:
		return nil, "", gpucost.Errorf(gpucost.EInvalid, "--cloud %q: use auto, aws, gcp, azure or none", o.Cloud)
	}
	return ws, cloud, nil
}
