package notify

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// noRedirectClient is the client a target uses when it is given none: following a redirect
// would turn the POST into a GET and could carry the body to another host.
var noRedirectClient = &http.Client{
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// post sends body to rawURL with the given headers under timeout, and turns a non-2xx answer
// into a *StatusError. Errors are scrubbed of rawURL and secrets.
func post(ctx context.Context, c *http.Client, rawURL string, timeout time.Duration, hdr http.Header, body []byte, now time.Time, secrets ...string) error {
	if c == nil {
		c = noRedirectClient
	}
	ctx, cancel := context.WithTimeout(ctx, timeoutOr(timeout))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rawURL, bytes.NewReader(body))
	if err != nil {
		return Permanent(scrub(fmt.Errorf("build request for %s: %w", Redact(rawURL), err), rawURL, secrets...))
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	resp, err := c.Do(req)
	if err != nil {
		return scrub(err, rawURL, secrets...)
	}
	defer resp.Body.Close()
	excerpt, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20)) // let the connection be reused
	if resp.StatusCode/100 == 2 {
		return nil
	}
	return scrub(&StatusError{
		Target:     Redact(rawURL),
		Code:       resp.StatusCode,
		RetryAfter: parseRetryAfter(resp.Header.Get("Retry-After"), now),
		Body:       bodyExcerpt(excerpt),
	}, rawURL, secrets...)
}

// bodyExcerpt makes the start of a response body fit for one log line.
func bodyExcerpt(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	for len(s) > 200 {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return strings.ToValidUTF8(s, "?")
}
