// Package pricing holds what the price-API adapters share: the result of one refresh, the way
// an adapter learns which GPUs an instance type has, and an HTTP GET that retries throttling
// and server errors before it reports the source unavailable.
//
// The adapters live in subpackages, one per API: azureprices (Azure Retail Prices API),
// gcpprices (Cloud Billing Catalog API) and awsprices (AWS Price List Query API and EC2 spot
// price history). Each turns the API's rows into gpucost.Offer values, with prices parsed
// exactly from the JSON text, and lists the rows it left out with the reason.
package pricing

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"strconv"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
)

// Result is what one refresh read from a provider's price API.
type Result struct {
	Provider string
	Source   string // the API and the day it was read: "Azure Retail Prices API 2026-11-22"
	AsOf     time.Time
	Offers   []gpucost.Offer
	Skipped  []gpucost.Skip // rows left out, with where they were (page URL, item) and why
	Pages    int            // responses read
}

// SkipCounts returns how many rows were skipped for each reason.
func (r *Result) SkipCounts() map[string]int {
	out := map[string]int{}
	for _, s := range r.Skipped {
		out[s.Reason]++
	}
	return out
}

// GPUs says which GPUs an instance type has: the canonical model and how many (a fraction for
// a VM with part of a GPU). catalog.(*Catalog).LineGPU answers it from the bundled catalog and
// the Azure N-series sizes; the adapters take it as a field so that they need no catalog.
type GPUs func(instanceType string) (model string, count float64, ok bool)

// SourceName returns the Source of offers read from api at t: "Azure Retail Prices API 2026-11-22".
func SourceName(api string, t time.Time) string { return api + " " + t.UTC().Format("2006-01-02") }

// NewResult starts the result of reading provider's prices from api now: the clock's time, or
// the wall clock when now is nil.
func NewResult(provider, api string, now func() time.Time) *Result {
	if now == nil {
		now = time.Now
	}
	asOf := now().UTC()
	return &Result{Provider: provider, Source: SourceName(api, asOf), AsOf: asOf}
}

// Retry says how often and how long Get waits before it gives up on a throttled or failing
// server. The zero value tries 4 times, waiting 1 s, 2 s, 4 s (or the server's Retry-After,
// at most 30 s).
type Retry struct {
	Attempts int
	Backoff  time.Duration
	// Sleep waits d or until ctx ends; tests pass one that returns at once.
	Sleep func(ctx context.Context, d time.Duration) error
}

func (r Retry) attempts() int {
	if r.Attempts <= 0 {
		return 4
	}
	return r.Attempts
}

func (r Retry) wait(ctx context.Context, attempt int, after string) error {
	d := r.Backoff
	if d <= 0 {
		d = time.Second
	}
	d <<= attempt
	if s, err := strconv.Atoi(after); err == nil && s >= 0 {
		d = time.Duration(s) * time.Second
	}
	d = min(d, 30*time.Second)
	if r.Sleep != nil {
		return r.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// maxBody is the largest response Get reads: a page of 5,000 GCP SKUs is a few MB.
const maxBody = 256 << 20

// Get fetches url and returns the body of a 200 response. It retries 429 and 5xx responses and
// network errors as r says; when they persist it returns an EUnavailable error naming api,
// the URL and the last status. Other 4xx responses are EInvalid (a bad filter, key or region).
func Get(ctx context.Context, client *http.Client, api, rawURL string, r Retry) ([]byte, error) {
	url := redact(rawURL) // what messages show: no API key
	if client == nil {
		client = http.DefaultClient
	}
	var last error
	for attempt := range r.attempts() {
		if attempt > 0 {
			if err := r.wait(ctx, attempt-1, retryAfter(last)); err != nil {
				return nil, gpucost.Errorf(gpucost.EUnavailable, "%s: %s: %w", api, url, err)
			}
		}
		body, err := get(ctx, client, rawURL)
		var st *statusError
		switch {
		case err == nil:
			return body, nil
		case errors.As(err, &st) && st.code != http.StatusTooManyRequests && st.code < 500:
			return nil, gpucost.Errorf(gpucost.EInvalid, "%s: GET %s: %w", api, url, err)
		case ctx.Err() != nil:
			return nil, gpucost.Errorf(gpucost.EUnavailable, "%s: GET %s: %w", api, url, ctx.Err())
		case offline(err):
			return nil, gpucost.Errorf(gpucost.EUnavailable, "%s cannot be reached (offline?): %w", api, err)
		}
		last = err
	}
	return nil, gpucost.Errorf(gpucost.EUnavailable, "%s cannot be reached: GET %s failed %d times, last: %w",
		api, url, r.attempts(), last)
}

// offline reports whether err says the host cannot be reached at all (no route, no name, a
// refused connection): retrying at once would not help, and an offline user should not wait.
func offline(err error) bool {
	var op *net.OpError
	var dns *net.DNSError
	return errors.As(err, &dns) || errors.As(err, &op) && op.Op == "dial"
}

// statusError is a response other than 200.
type statusError struct {
	code       int
	body       string
	retryAfter string
}

func (e *statusError) Error() string {
	if e.body == "" {
		return fmt.Sprintf("HTTP %d", e.code)
	}
	return fmt.Sprintf("HTTP %d: %s", e.code, e.body)
}

func retryAfter(err error) string {
	var st *statusError
	if errors.As(err, &st) {
		return st.retryAfter
	}
	return ""
}

func get(ctx context.Context, client *http.Client, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	var ue *neturl.Error
	if errors.As(err, &ue) {
		return nil, ue.Err // the URL, key included, is named by the caller, redacted
	}
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, fmt.Errorf("read response: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &statusError{code: resp.StatusCode, body: excerpt(body), retryAfter: resp.Header.Get("Retry-After")}
	}
	return body, nil
}

// redact hides the value of a "key" query parameter (a GCP API key) from messages.
func redact(raw string) string {
	u, err := neturl.Parse(raw)
	if err != nil || !u.Query().Has("key") {
		return raw
	}
	q := u.Query()
	q.Set("key", "REDACTED")
	u.RawQuery = q.Encode()
	return u.String()
}

// excerpt returns the start of an error body, enough for the API's message.
func excerpt(b []byte) string {
	const n = 300
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// CatalogGPUs returns the GPUs func that asks c: AWS, GCP, Lambda and Nebius instance types of
// its offers, and the Azure N-series VM sizes.
func CatalogGPUs(c *catalog.Catalog) GPUs {
	return func(instanceType string) (string, float64, bool) {
		g, ok := c.LineGPU(&gpucost.CostLine{InstanceType: instanceType})
		if !ok || g.GPUs <= 0 {
			return "", 0, false
		}
		return g.Model, g.GPUs, true
	}
}
