package notice

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// DefaultAzureURL is Azure's Scheduled Events endpoint (docs/architecture.md reference facts, spot notice:
// Azure gives 30 s through a Preempt event); the cmd layer's --azure-metadata-url overrides it.
const DefaultAzureURL = "http://169.254.169.254/metadata/scheduledevents?api-version=2020-07-01"

// azureNamePath is where the instance metadata service tells the VM its own name, the name the
// Resources of a scheduled event list.
const azureNamePath = "/metadata/instance/compute/name?api-version=2021-02-01&format=text"

// Azure polls Scheduled Events and reports a Preempt or Terminate event that names this VM as a
// Terminate notice with Deadline = NotBefore (Seen + 30 s when NotBefore is empty) and ID = the
// EventId. Events for other VMs of the availability set or scale set are ignored. Ack starts the
// event early; the runner calls it once its checkpoint is safe.
type Azure struct {
	URL    string        // Scheduled Events URL with its api-version; DefaultAzureURL when empty
	VMName string        // this VM's name; read from the instance metadata service when empty
	Client *http.Client  // http.DefaultClient when nil
	Poll   time.Duration // DefaultPoll when zero
	Now    func() time.Time
	Log    *slog.Logger
}

var (
	_ Watcher = (*Azure)(nil)
	_ Acker   = (*Azure)(nil)
)

// ScheduledEvents is the Scheduled Events document.
type ScheduledEvents struct {
	DocumentIncarnation int
	Events              []ScheduledEvent
}

// ScheduledEvent is one event of the document, with the fields Azure documents.
type ScheduledEvent struct {
	EventId           string   // a GUID; Azure's spelling, kept for JSON
	EventType         string   // Reboot, Redeploy, Freeze, Preempt or Terminate
	ResourceType      string   // VirtualMachine
	Resources         []string // names of the VMs the event affects
	EventStatus       string   // Scheduled or Started
	NotBefore         string   // RFC 1123 time, or empty once the event has started
	Description       string
	EventSource       string // Platform or User
	DurationInSeconds int
}

// azureWatch is one Watch call's state.
type azureWatch struct {
	settings
	url, nameURL string
	vm           string
	reported     map[string]bool // EventIds already reported
	problems     complaint
}

// Watch polls Scheduled Events every Poll until ctx ends. It asks for the VM's name first when
// VMName is empty, retrying with the polls until it gets it. Only a bad URL is an error.
func (a *Azure) Watch(ctx context.Context, out chan<- Notice) error {
	u, nameURL, err := azureURLs(a.URL)
	if err != nil {
		return err
	}
	w := &azureWatch{settings: newSettings(a.Client, a.Poll, a.Now, a.Log), url: u, nameURL: nameURL,
		vm: a.VMName, reported: map[string]bool{}}
	for {
		w.check(ctx, out)
		if !sleep(ctx, w.poll) {
			return nil
		}
	}
}

// azureURLs checks the Scheduled Events URL and derives the VM-name URL on the same host.
func azureURLs(s string) (events, name string, err error) {
	if s == "" {
		s = DefaultAzureURL
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", "", gpucost.Errorf(gpucost.EInvalid, "azure scheduled events URL %q: not an http(s) URL with a host; give one such as %s", s, DefaultAzureURL)
	}
	return s, u.Scheme + "://" + u.Host + azureNamePath, nil
}

// check reads the document once and reports new Preempt or Terminate events for this VM.
func (w *azureWatch) check(ctx context.Context, out chan<- Notice) {
	if w.vm == "" && !w.lookupName(ctx) {
		return
	}
	status, body, err := w.request(ctx, http.MethodGet, w.url, nil)
	if err != nil || status != http.StatusOK {
		if ctx.Err() == nil {
			w.problems.warn(w.log, "scheduledevents", fmt.Sprintf("azure scheduled events: %s; polling again every %v", failure(err, status, body), w.poll))
		}
		return
	}
	doc, err := ParseScheduledEvents(body)
	if err != nil {
		w.problems.warn(w.log, "scheduledevents", fmt.Sprintf("azure scheduled events: %v in %q; ignoring it and watching on", err, snippet(body)))
		return
	}
	w.problems.clear("scheduledevents")
	for _, ev := range doc.Events {
		if n, ok := w.notice(ev); ok {
			w.reported[ev.EventId] = true
			if !send(ctx, out, n) {
				return
			}
		}
	}
}

// notice turns ev into a notice if it is a new Preempt or Terminate event naming this VM.
func (w *azureWatch) notice(ev ScheduledEvent) (Notice, bool) {
	if ev.EventType != "Preempt" && ev.EventType != "Terminate" {
		return Notice{}, false
	}
	if w.reported[ev.EventId] || !slices.ContainsFunc(ev.Resources, func(r string) bool { return strings.EqualFold(r, w.vm) }) {
		return Notice{}, false
	}
	seen := w.now()
	deadline := seen.Add(GCPNotice) // Azure's Preempt notice is 30 s too
	if ev.NotBefore != "" {
		t, err := time.Parse(time.RFC1123, ev.NotBefore)
		if err != nil {
			w.log.Warn(fmt.Sprintf("azure scheduled event %s: NotBefore %q is not an RFC 1123 time; assuming 30 s", ev.EventId, ev.NotBefore))
		} else {
			deadline = t
		}
	}
	detail := fmt.Sprintf("%s event %s (%s, %s): %s", ev.EventType, ev.EventId, ev.EventSource, ev.EventStatus, ev.Description)
	return Notice{Kind: Terminate, Source: CloudAzure, Seen: seen, Deadline: deadline, Detail: detail, ID: ev.EventId}, true
}

// lookupName asks the instance metadata service for the VM's name.
func (w *azureWatch) lookupName(ctx context.Context) bool {
	status, body, err := w.request(ctx, http.MethodGet, w.nameURL, nil)
	name := strings.TrimSpace(string(body))
	if err != nil || status != http.StatusOK || name == "" {
		if ctx.Err() == nil {
			w.problems.warn(w.log, "compute/name", fmt.Sprintf("azure instance metadata compute/name: %s; set the VM name explicitly or check the endpoint", failure(err, status, body)))
		}
		return false
	}
	w.problems.clear("compute/name")
	w.vm = name
	w.log.Debug("azure vm name", "name", name)
	return true
}

func (w *azureWatch) request(ctx context.Context, method, target string, body []byte) (int, []byte, error) {
	return azureRequest(ctx, w.client, method, target, body)
}

// azureRequest sends a request with the Metadata: true header the service requires.
func azureRequest(ctx context.Context, c *http.Client, method, target string, body []byte) (int, []byte, error) {
	req, err := http.NewRequest(method, target, bytes.NewReader(body))
	if err != nil {
		return 0, nil, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Metadata", "true")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	status, _, b, err := do(ctx, c, req, requestTimeout)
	return status, b, err
}

// Ack acknowledges the event with this id, which lets Azure start it at once instead of at
// NotBefore: POST {"StartRequests":[{"EventId":"…"}]} to the Scheduled Events URL.
func (a *Azure) Ack(ctx context.Context, id string) error {
	if id == "" {
		return gpucost.Errorf(gpucost.EInvalid, "acknowledge azure scheduled event: empty EventId")
	}
	u, _, err := azureURLs(a.URL)
	if err != nil {
		return err
	}
	type start struct {
		EventId string
	}
	body, err := json.Marshal(struct{ StartRequests []start }{[]start{{id}}})
	if err != nil {
		return fmt.Errorf("acknowledge azure scheduled event %s: %w", id, err)
	}
	c := a.Client
	if c == nil {
		c = http.DefaultClient
	}
	status, resp, err := azureRequest(ctx, c, http.MethodPost, u, body)
	if err != nil {
		return gpucost.Errorf(gpucost.EUnavailable, "acknowledge azure scheduled event %s: %w", id, err)
	}
	if status < 200 || status > 299 {
		return gpucost.Errorf(gpucost.EUnavailable, "acknowledge azure scheduled event %s: HTTP %d %q", id, status, snippet(resp))
	}
	return nil
}

// ParseScheduledEvents reads a Scheduled Events document. Every event needs an EventId and an
// EventType; unknown fields are allowed, as the service adds them over api-versions.
func ParseScheduledEvents(b []byte) (ScheduledEvents, error) {
	var doc ScheduledEvents
	if err := json.Unmarshal(b, &doc); err != nil {
		return ScheduledEvents{}, fmt.Errorf("malformed scheduled events JSON: %w", err)
	}
	for i, ev := range doc.Events {
		if ev.EventId == "" || ev.EventType == "" {
			return ScheduledEvents{}, fmt.Errorf("scheduled events Events[%d]: EventId and EventType are required", i)
		}
	}
	return doc, nil
}
