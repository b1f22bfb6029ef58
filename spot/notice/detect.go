package notice

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Probe names the endpoints Detect tries; empty fields take the same defaults as the watchers.
type Probe struct {
	AWS      string        // IMDS base URL (DefaultAWSEndpoint)
	GCPHost  string        // metadata server host[:port] (DefaultGCPHost)
	AzureURL string        // Scheduled Events URL (DefaultAzureURL); the probe asks its host for the VM name
	Client   *http.Client  // http.DefaultClient when nil
	Timeout  time.Duration // for the whole probe; 1 s when zero
}

// Detect asks the three metadata services at once, briefly, which one this machine has, and
// returns CloudAWS, CloudGCP, CloudAzure or CloudNone. Each answer must be the protocol's own:
// an IMDSv2 token, a Metadata-Flavor: Google header, or an Azure VM name. If several answer
// (a test rig), the first of aws, gcp, azure wins.
func Detect(ctx context.Context, p Probe) string {
	timeout := p.Timeout
	if timeout <= 0 {
		timeout = time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c := p.Client
	if c == nil {
		c = http.DefaultClient
	}
	probes := []struct {
		cloud string
		try   func(context.Context, *http.Client) error
	}{
		{CloudAWS, p.aws},
		{CloudGCP, p.gcp},
		{CloudAzure, p.azure},
	}
	found := make([]bool, len(probes))
	var wg sync.WaitGroup
	for i, pr := range probes {
		wg.Go(func() { found[i] = pr.try(ctx, c) == nil })
	}
	wg.Wait()
	for i, pr := range probes {
		if found[i] {
			return pr.cloud
		}
	}
	return CloudNone
}

var errNotIt = errors.New("not this cloud's metadata service")

func (p Probe) aws(ctx context.Context, c *http.Client) error {
	base, err := baseURL(p.AWS, DefaultAWSEndpoint)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, base+awsTokenPath, nil)
	if err != nil {
		return err
	}
	req.Header.Set(awsTTLHeader, "60")
	return expect(c, req, func(_ http.Header, body []byte) bool { return len(body) > 0 })
}

func (p Probe) gcp(ctx context.Context, c *http.Client) error {
	host := p.GCPHost
	if host == "" {
		host = DefaultGCPHost
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+host+gcpPreemptedPath, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Metadata-Flavor", "Google")
	return expect(c, req, func(h http.Header, _ []byte) bool { return h.Get("Metadata-Flavor") == "Google" })
}

func (p Probe) azure(ctx context.Context, c *http.Client) error {
	_, nameURL, err := azureURLs(p.AzureURL)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, nameURL, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Metadata", "true")
	return expect(c, req, func(_ http.Header, body []byte) bool { return strings.TrimSpace(string(body)) != "" })
}

// expect sends req and checks for a 200 answer that ok accepts.
func expect(c *http.Client, req *http.Request, ok func(http.Header, []byte) bool) error {
	status, header, body, err := do(req.Context(), c, req, time.Hour) // the probe's own deadline bounds it
	if err != nil {
		return err
	}
	if status != http.StatusOK || !ok(header, body) {
		return fmt.Errorf("%s %s: HTTP %d: %w", req.Method, req.URL.Redacted(), status, errNotIt)
	}
	return nil
}

// Merge returns a Watcher that runs every w at once onto the same channel, for a runner that
// listens to its cloud and to SIGTERM together. If one watcher fails, Merge stops the others and
// returns that error. The result is an Acker that acknowledges through its Ackers.
func Merge(ws ...Watcher) Watcher { return merged(ws) }

type merged []Watcher

var _ Acker = merged(nil)

// Ack passes the acknowledgement to every merged watcher that takes one.
func (m merged) Ack(ctx context.Context, id string) error {
	var errs []error
	for _, w := range m {
		if a, ok := w.(Acker); ok {
			errs = append(errs, a.Ack(ctx, id))
		}
	}
	return errors.Join(errs...)
}

func (m merged) Watch(ctx context.Context, out chan<- Notice) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	for _, w := range m {
		wg.Go(func() {
			if err := w.Watch(ctx, out); err != nil {
				cancel(err)
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}
