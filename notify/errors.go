package notify

import (
	"errors"
	"fmt"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// StatusError reports an HTTP response that was not a 2xx.
type StatusError struct {
	Target     string        // the redacted URL
	Code       int           // the HTTP status
	RetryAfter time.Duration // the response's Retry-After, 0 if none
	Body       string        // the start of the response body, for people
}

// Error says which (redacted) URL answered what.
func (e *StatusError) Error() string {
	msg := fmt.Sprintf("post %s: HTTP %d %s", e.Target, e.Code, http.StatusText(e.Code))
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// Temporary reports whether the same request may succeed later: 408, 429 and 5xx.
func (e *StatusError) Temporary() bool {
	return e.Code == http.StatusRequestTimeout || e.Code == http.StatusTooManyRequests || e.Code >= 500
}

// permanentError marks an error that retrying cannot fix.
type permanentError struct{ err error }

func (e permanentError) Error() string { return e.err.Error() }
func (e permanentError) Unwrap() error { return e.err }

// Permanent marks err as one that retrying cannot fix, such as a malformed address.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return permanentError{err}
}

// retryable says whether a failed attempt is worth repeating and how long the other side asked
// us to wait first.
func retryable(err error) (bool, time.Duration) {
	var pe permanentError
	if errors.As(err, &pe) {
		return false, 0
	}
	var se *StatusError
	if errors.As(err, &se) {
		return se.Temporary(), se.RetryAfter
	}
	var te *textproto.Error
	if errors.As(err, &te) {
		return te.Code < 500, 0 // SMTP: 4xx transient, 5xx permanent (RFC 5321 §4.2.1)
	}
	return true, 0
}

// statusOf returns the HTTP or SMTP status code carried by err, or 0.
func statusOf(err error) int {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Code
	}
	var te *textproto.Error
	if errors.As(err, &te) {
		return te.Code
	}
	return 0
}

// parseRetryAfter reads a Retry-After header: delay-seconds or an HTTP-date (RFC 9110 §10.2.3).
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		if s < 0 {
			return 0
		}
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// Redact returns u with its user info, path, query and fragment hidden, for logs and errors:
// a Slack or Mattermost hook URL carries its token in the path. What cannot be parsed is
// hidden whole.
func Redact(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" {
		return "[redacted URL]"
	}
	out := p.Scheme + "://" + p.Host
	if (p.Path != "" && p.Path != "/") || p.RawQuery != "" || p.Fragment != "" || p.User != nil {
		out += "/[redacted]"
	}
	return out
}

// redactedError hides secrets in an error's text while keeping its chain for errors.As.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// scrub returns err with every non-empty secret in its text replaced. A *url.Error from the
// HTTP client names the full URL, so rawURL is replaced by its Redact form first.
func scrub(err error, rawURL string, secrets ...string) error {
	if err == nil {
		return nil
	}
	var ue *url.Error
	if errors.As(err, &ue) && ue.URL == rawURL {
		ue.URL = Redact(rawURL)
	}
	msg := err.Error()
	if rawURL != "" {
		msg = strings.ReplaceAll(msg, rawURL, Redact(rawURL))
	}
	for _, s := range secrets {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, "[redacted]")
		}
	}
	return &redactedError{msg: msg, err: err}
}
