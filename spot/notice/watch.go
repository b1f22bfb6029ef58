package notice

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"
)

// Clouds a notice can come from, as Notice.Source and Detect name them.
const (
	CloudAWS     = "aws"
	CloudGCP     = "gcp"
	CloudAzure   = "azure"
	CloudNone    = "none"
	SourceSignal = "signal"
)

// DefaultPoll is how often a watcher asks its endpoint when Poll is zero. The runner's --poll
// flag can make it 1 s, so a notice is seen within a second of the endpoint reporting it.
const DefaultPoll = 5 * time.Second

// requestTimeout bounds one metadata request, so a hung endpoint delays the next poll only a
// little; metadata services answer in milliseconds.
const requestTimeout = 2 * time.Second

// maxBody bounds what is read from a metadata endpoint: notices are a few hundred bytes.
const maxBody = 1 << 20

// settings are the fields every HTTP watcher shares, with their defaults filled in.
type settings struct {
	client *http.Client
	poll   time.Duration
	now    func() time.Time
	log    *slog.Logger
}

func newSettings(c *http.Client, poll time.Duration, now func() time.Time, log *slog.Logger) settings {
	s := settings{client: c, poll: poll, now: now, log: log}
	if s.client == nil {
		s.client = http.DefaultClient
	}
	if s.poll <= 0 {
		s.poll = DefaultPoll
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
}

// send delivers n unless ctx ends first; it reports whether n was delivered.
func send(ctx context.Context, out chan<- Notice, n Notice) bool {
	select {
	case out <- n:
		return true
	case <-ctx.Done():
		return false
	}
}

// sleep waits d unless ctx ends first; it reports whether the whole wait passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// do sends req with a timeout and returns the status and (bounded) body.
func do(ctx context.Context, c *http.Client, req *http.Request, timeout time.Duration) (int, http.Header, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	resp, err := c.Do(req.WithContext(ctx))
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return resp.StatusCode, resp.Header, nil, fmt.Errorf("read %s %s: %w", req.Method, req.URL.Redacted(), err)
	}
	return resp.StatusCode, resp.Header, body, nil
}

// complaint logs a problem with an endpoint once, not at every poll: a malformed document or an
// unreachable endpoint is reported when it first appears or changes, and again after it cleared.
type complaint struct {
	last map[string]string // what → the message last logged for it
}

// warn logs msg about what unless it is the message already logged for what.
func (c *complaint) warn(log *slog.Logger, what, msg string) {
	if c.last == nil {
		c.last = map[string]string{}
	}
	if c.last[what] == msg {
		return
	}
	c.last[what] = msg
	log.Warn(msg, "endpoint", what)
}

// clear forgets the complaint about what, once the endpoint answers well again.
func (c *complaint) clear(what string) { delete(c.last, what) }

// snippet shortens an endpoint's body for a log line.
func snippet(b []byte) string {
	const n = 200
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
