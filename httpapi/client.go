package httpapi

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gpucost/gpucost"
)

// gzipWriters reuses compressors: each holds about a megabyte of state.
var gzipWriters = sync.Pool{New: func() any { return gzip.NewWriter(nil) }}

// Client calls a gpucost server with a token.
type Client struct {
	URL   string       // the server's base URL, such as http://gpucost:8080
	Token string       // the bearer secret
	HTTP  *http.Client // default: one with a 30 s timeout
}

// RefusedError is a request the server refused for good: retrying the same request cannot help.
type RefusedError struct {
	Status  int
	Message string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("server refused the request (%d %s): %s", e.Status, http.StatusText(e.Status), e.Message)
}

// RetryAfterError is a refusal worth retrying after the time the server named in its
// Retry-After header (a 429 from a rate limit or throttle, a 503). Its cause is an EUnavailable
// Error.
type RetryAfterError struct {
	After time.Duration
	Err   error
}

func (e *RetryAfterError) Error() string {
	return fmt.Sprintf("%v (retry after %s)", e.Err, e.After)
}

func (e *RetryAfterError) Unwrap() error { return e.Err }

// maxRetryAfter bounds the wait a server may ask for, so that a wrong header cannot stop an
// agent for long: a throttle's refill and a rate limit's wait are seconds.
const maxRetryAfter = 10 * time.Minute

// retryAfter reads a Retry-After header given in seconds, the form gpucost serve writes.
func retryAfter(h string) (time.Duration, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(h))
	if err != nil || n < 0 {
		return 0, false
	}
	if n >= int(maxRetryAfter/time.Second) { // and n seconds may not fit a Duration
		return maxRetryAfter, true
	}
	return time.Duration(n) * time.Second, true
}

// PostSamples sends samples, gzip'd, to POST /api/v1/samples. It returns a *RefusedError for a
// 4xx answer other than 408 and 429, and an EUnavailable Error when the server cannot be
// reached or answers that it is overloaded or failing, which is worth retrying.
func (c *Client) PostSamples(ctx context.Context, samples []gpucost.Sample) (SamplesResponse, error) {
	var body bytes.Buffer
	zw := gzipWriters.Get().(*gzip.Writer)
	defer gzipWriters.Put(zw)
	zw.Reset(&body)
	req := SamplesRequest{Samples: make([]SampleJSON, len(samples))}
	for i := range samples {
		req.Samples[i] = FromSample(samples[i])
	}
	if err := json.NewEncoder(zw).Encode(req); err != nil {
		return SamplesResponse{}, fmt.Errorf("encode %d samples: %w", len(samples), err)
	}
	if err := zw.Close(); err != nil {
		return SamplesResponse{}, fmt.Errorf("compress %d samples: %w", len(samples), err)
	}
	var resp SamplesResponse
	err := c.do(ctx, "POST", "/api/v1/samples", &body, map[string]string{
		"Content-Type": "application/json", "Content-Encoding": "gzip"}, &resp)
	return resp, err
}

// WhoAmI returns the token the client calls with.
func (c *Client) WhoAmI(ctx context.Context) (gpucost.Token, error) {
	var t gpucost.Token
	err := c.do(ctx, "GET", "/api/v1/whoami", nil, nil, &t)
	return t, err
}

func (c *Client) do(ctx context.Context, method, path string, body io.Reader, header map[string]string, out any) error {
	url := strings.TrimRight(c.URL, "/") + path
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return gpucost.Errorf(gpucost.EInvalid, "server URL %q: %w", c.URL, err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	req.Header.Set("Accept", "application/json")
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return gpucost.Errorf(gpucost.EUnavailable, "%s %s: %w", method, url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return gpucost.Errorf(gpucost.EUnavailable, "%s %s: read the answer: %w", method, url, err)
	}
	if resp.StatusCode/100 != 2 {
		var eb ErrorBody
		msg := strings.TrimSpace(string(data))
		if json.Unmarshal(data, &eb) == nil && eb.Error.Message != "" {
			msg = eb.Error.Message
		}
		if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusRequestTimeout {
			err := gpucost.Errorf(gpucost.EUnavailable, "%s %s: %d %s: %s", method, url, resp.StatusCode, http.StatusText(resp.StatusCode), msg)
			if after, ok := retryAfter(resp.Header.Get("Retry-After")); ok {
				return &RetryAfterError{After: after, Err: err}
			}
			return err
		}
		return &RefusedError{Status: resp.StatusCode, Message: msg}
	}
	if err := json.Unmarshal(data, out); err != nil {
		return gpucost.Errorf(gpucost.EUnavailable, "%s %s: the answer is not the JSON expected: %w", method, url, err)
	}
	return nil
}
