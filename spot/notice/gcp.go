package notice

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// DefaultGCPHost is the GCE metadata server; the cmd layer overrides it from GCE_METADATA_HOST
// (a host[:port], no scheme) like Google's client libraries do.
const DefaultGCPHost = "metadata.google.internal"

// GCPNotice is how long a preempted GCE VM has after instance/preempted turns TRUE (docs/architecture.md
// reference facts, spot notice: GCP 30 s). Azure's Preempt without a NotBefore uses it too.
const GCPNotice = 30 * time.Second

// gcpPreemptedPath is the metadata key that turns TRUE when the VM is preempted.
const gcpPreemptedPath = "/computeMetadata/v1/instance/preempted"

// DefaultGCPLongPoll is how long one wait_for_change request waits (timeout_sec).
const DefaultGCPLongPoll = 60 * time.Second

// GCP watches the GCE metadata server's instance/preempted key and reports a Terminate notice
// with Deadline = Seen + 30 s when it turns TRUE. It long-polls with wait_for_change and
// last_etag, so the change arrives as soon as the server has it, and falls back to polling every
// Poll when the server does not hold the request or a request fails.
type GCP struct {
	Host     string        // host[:port] of the metadata server; DefaultGCPHost when empty
	Client   *http.Client  // http.DefaultClient when nil
	Poll     time.Duration // polling interval when long-polling is off or failing; DefaultPoll when zero
	LongPoll time.Duration // timeout_sec of a wait_for_change request; DefaultGCPLongPoll when zero, negative to poll only
	Now      func() time.Time
	Log      *slog.Logger
}

var _ Watcher = (*GCP)(nil)

// gcpWatch is one Watch call's state.
type gcpWatch struct {
	settings
	url       string
	longPoll  time.Duration
	etag      string // last ETag seen; empty when the next request must not wait
	preempted bool   // the last value read, so a FALSE→TRUE change is reported once
	problems  complaint
}

// Watch follows instance/preempted until ctx ends. Request failures are logged once and retried
// after Poll; only a bad Host is an error.
func (g *GCP) Watch(ctx context.Context, out chan<- Notice) error {
	host := g.Host
	if host == "" {
		host = DefaultGCPHost
	}
	base, err := baseURL("http://"+host, "")
	if err != nil || strings.ContainsAny(host, "/?#") {
		return gpucost.Errorf(gpucost.EInvalid, "gcp metadata host %q: give host[:port] without a scheme, such as %s", g.Host, DefaultGCPHost)
	}
	w := &gcpWatch{settings: newSettings(g.Client, g.Poll, g.Now, g.Log), url: base + gcpPreemptedPath, longPoll: g.LongPoll}
	if w.longPoll == 0 {
		w.longPoll = DefaultGCPLongPoll
	}
	if w.longPoll > 0 && w.longPoll < time.Second {
		w.longPoll = time.Second // timeout_sec counts whole seconds
	}
	for {
		wait := w.check(ctx, out)
		if ctx.Err() != nil || (wait && !sleep(ctx, w.poll)) {
			return nil
		}
	}
}

// check makes one request, long-polling when it holds an ETag, and reports a change to TRUE.
// It returns whether the caller should wait Poll before the next request.
func (w *gcpWatch) check(ctx context.Context, out chan<- Notice) (wait bool) {
	waiting := w.etag != "" && w.longPoll > 0
	target, timeout := w.url, requestTimeout
	if waiting {
		target += "?wait_for_change=true&last_etag=" + url.QueryEscape(w.etag) + "&timeout_sec=" + strconv.Itoa(int(w.longPoll/time.Second))
		timeout = w.longPoll + requestTimeout
	}
	req, err := http.NewRequest(http.MethodGet, target, nil)
	if err != nil {
		w.problems.warn(w.log, gcpPreemptedPath, fmt.Sprintf("gcp metadata: build request: %v", err))
		return true
	}
	req.Header.Set("Metadata-Flavor", "Google")
	start := time.Now()
	status, header, body, err := do(ctx, w.client, req, timeout)
	if err != nil || status != http.StatusOK {
		if ctx.Err() == nil {
			w.problems.warn(w.log, gcpPreemptedPath, fmt.Sprintf("gcp metadata %s: %s; polling again every %v", gcpPreemptedPath, failure(err, status, body), w.poll))
		}
		w.etag = "" // ask plainly next time: the server may not know the old ETag any more
		return true
	}
	preempted, err := ParsePreempted(body)
	if err != nil {
		w.problems.warn(w.log, gcpPreemptedPath, fmt.Sprintf("gcp metadata %s: %v; ignoring it and watching on", gcpPreemptedPath, err))
		w.etag = ""
		return true
	}
	w.problems.clear(gcpPreemptedPath)
	if preempted && !w.preempted {
		seen := w.now()
		send(ctx, out, Notice{Kind: Terminate, Source: CloudGCP, Seen: seen, Deadline: seen.Add(GCPNotice),
			Detail: "instance/preempted is TRUE"})
	}
	w.preempted = preempted
	old := w.etag
	w.etag = header.Get("ETag")
	// A server that answers a wait_for_change at once with nothing changed does not hold
	// requests: poll instead of spinning.
	held := !waiting || w.etag != old || time.Since(start) >= w.longPoll/2
	return w.etag == "" || w.longPoll < 0 || !held
}

// failure describes a failed request for a log line.
func failure(err error, status int, body []byte) string {
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("HTTP %d %q", status, snippet(body))
}

// ParsePreempted reads instance/preempted: TRUE or FALSE (a trailing newline is allowed).
func ParsePreempted(b []byte) (bool, error) {
	switch strings.TrimSpace(string(b)) {
	case "TRUE":
		return true, nil
	case "FALSE":
		return false, nil
	}
	return false, fmt.Errorf("instance/preempted is %q, not TRUE or FALSE", snippet(b))
}
