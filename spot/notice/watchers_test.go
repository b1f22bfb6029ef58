package notice

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

// TestWatchers: every cloud gets the signal watcher, and its own metadata watcher beside it.
func TestWatchers(t *testing.T) {
	o := WatchOptions{Probe: Probe{AWS: "http://127.0.0.1:1", GCPHost: "127.0.0.1:1", AzureURL: DefaultAzureURL}, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for cloud, n := range map[string]int{CloudNone: 1, CloudAWS: 2, CloudGCP: 2, CloudAzure: 2} {
		o.Cloud = cloud
		ws, got, err := Watchers(context.Background(), o)
		if err != nil || got != cloud || len(ws) != n {
			t.Errorf("Watchers(%s) = %d watchers, %q, %v; want %d", cloud, len(ws), got, err, n)
			continue
		}
		if _, ok := ws[0].(*Signal); !ok {
			t.Errorf("Watchers(%s) first watcher is %T; want *Signal", cloud, ws[0])
		}
	}
	o.Cloud = "oracle"
	if _, _, err := Watchers(context.Background(), o); gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), `--cloud "oracle"`) {
		t.Errorf("Watchers(oracle) = %v; want an EInvalid error naming --cloud", err)
	}
}
