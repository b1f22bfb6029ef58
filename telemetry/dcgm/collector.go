package dcgm

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/gpucost/gpucost"
)

// Collector scrapes a dcgm-exporter /metrics endpoint.
type Collector struct {
	URL    string       // such as http://node:9400/metrics
	Client *http.Client // nil: http.DefaultClient; the context bounds each scrape
	Host   string       // the host of series without a Hostname label
	Now    func() time.Time
	// OnStats, if set, is called after each scrape with what it held, so that skipped lines can
	// be logged.
	OnStats func(Stats)

	mu sync.Mutex
	p  *parser // kept between scrapes: label sets rarely change
}

var _ gpucost.Collector = (*Collector)(nil)

// Collect scrapes the endpoint once and returns one sample per GPU or MIG instance and pod.
// Lines without a timestamp take the time of the scrape.
func (c *Collector) Collect(ctx context.Context) ([]gpucost.Sample, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.URL, nil)
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "dcgm-exporter URL %q: %w", c.URL, err)
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	client := c.Client
	if client == nil {
		client = http.DefaultClient
	}
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	at := now()
	resp, err := client.Do(req)
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EUnavailable, "scrape dcgm-exporter: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, gpucost.Errorf(gpucost.EUnavailable, "scrape dcgm-exporter %s: %s: %q", c.URL, resp.Status, body)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.p == nil || c.p.host != c.Host {
		c.p = newParser(c.Host)
	}
	c.p.file, c.p.at = c.URL, at
	var stats Stats
	samples := make([]gpucost.Sample, 0, 8)
	err = c.p.run(resp.Body, 1, &stats, func(s gpucost.Sample) { samples = append(samples, s) })
	if c.OnStats != nil {
		c.OnStats(stats)
	}
	if err != nil {
		return nil, fmt.Errorf("scrape dcgm-exporter: %w", err)
	}
	return samples, nil
}
