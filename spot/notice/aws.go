package notice

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// AWS paths of the instance metadata service (IMDSv2). docs/architecture.md reference facts, spot notice:
// AWS gives 2 min of notice through spot/instance-action, and a rebalance recommendation earlier.
const (
	awsTokenPath     = "/latest/api/token"
	awsActionPath    = "/latest/meta-data/spot/instance-action"
	awsRebalancePath = "/latest/meta-data/events/recommendations/rebalance"
	awsTTLHeader     = "X-aws-ec2-metadata-token-ttl-seconds"
	awsTokenHeader   = "X-aws-ec2-metadata-token"
)

// DefaultAWSEndpoint is the instance metadata service's address; the cmd layer overrides it
// from AWS_EC2_METADATA_SERVICE_ENDPOINT like the AWS SDKs do.
const DefaultAWSEndpoint = "http://169.254.169.254"

// AWS watches EC2's instance metadata service for a spot interruption (terminate, stop or
// hibernate, reported as Terminate with the announced time as Deadline) and for a rebalance
// recommendation (reported as Rebalance). It speaks IMDSv2: a session token from
// PUT /latest/api/token sent with every request, refreshed before it expires and after a 401.
type AWS struct {
	Endpoint string        // base URL; DefaultAWSEndpoint when empty
	Client   *http.Client  // http.DefaultClient when nil
	Poll     time.Duration // DefaultPoll when zero
	TokenTTL time.Duration // session token lifetime, 1 s to 6 h; 6 h when zero
	Now      func() time.Time
	Log      *slog.Logger
}

// awsMaxTTL is the longest token lifetime IMDSv2 grants (21,600 s).
const awsMaxTTL = 6 * time.Hour

var _ Watcher = (*AWS)(nil)

// awsWatch is one Watch call's state.
type awsWatch struct {
	settings
	base     string
	ttl      time.Duration
	token    string
	expires  time.Time
	tokens   int    // tokens fetched, for the log
	action   string // the last instance-action reported, to report each once
	rebal    string // the last rebalance recommendation reported
	problems complaint
}

// Watch polls the two notice paths every Poll until ctx ends. An unreachable or misbehaving
// endpoint is logged once and polled again; only a bad Endpoint or TokenTTL is an error.
func (a *AWS) Watch(ctx context.Context, out chan<- Notice) error {
	w, err := a.start()
	if err != nil {
		return err
	}
	for {
		w.check(ctx, out)
		if !sleep(ctx, w.poll) {
			return nil
		}
	}
}

func (a *AWS) start() (*awsWatch, error) {
	base, err := baseURL(a.Endpoint, DefaultAWSEndpoint)
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "aws metadata endpoint %q: %v; give a URL such as %s", a.Endpoint, err, DefaultAWSEndpoint)
	}
	ttl := a.TokenTTL
	if ttl == 0 {
		ttl = awsMaxTTL
	}
	if ttl < time.Second || ttl > awsMaxTTL {
		return nil, gpucost.Errorf(gpucost.EInvalid, "aws metadata token TTL %v: IMDSv2 accepts 1 s to 6 h", ttl)
	}
	return &awsWatch{settings: newSettings(a.Client, a.Poll, a.Now, a.Log), base: base, ttl: ttl}, nil
}

// baseURL checks an endpoint URL and returns it without a trailing slash.
func baseURL(s, def string) (string, error) {
	if s == "" {
		s = def
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("not an http(s) URL with a host")
	}
	return strings.TrimRight(s, "/"), nil
}

// check reads both paths once: the rebalance recommendation first, so that when both are up the
// early warning arrives before the interruption.
func (w *awsWatch) check(ctx context.Context, out chan<- Notice) {
	if err := w.ensureToken(ctx); err != nil {
		if ctx.Err() == nil {
			w.problems.warn(w.log, awsTokenPath, fmt.Sprintf("aws metadata: %v; polling again every %v", err, w.poll))
		}
		return
	}
	w.problems.clear(awsTokenPath)
	if n, ok := w.poll1(ctx, awsRebalancePath, w.rebalance); ok {
		send(ctx, out, n)
	}
	if n, ok := w.poll1(ctx, awsActionPath, w.instanceAction); ok {
		send(ctx, out, n)
	}
}

// poll1 GETs path and turns a 200 answer into a notice with parse; 404 means no notice yet.
func (w *awsWatch) poll1(ctx context.Context, path string, parse func([]byte) (Notice, bool, error)) (Notice, bool) {
	status, body, err := w.get(ctx, path)
	switch {
	case err != nil:
		if ctx.Err() == nil {
			w.problems.warn(w.log, path, fmt.Sprintf("aws metadata %s: %v; polling again every %v", path, err, w.poll))
		}
		return Notice{}, false
	case status == http.StatusNotFound:
		w.problems.clear(path)
		return Notice{}, false
	case status != http.StatusOK:
		w.problems.warn(w.log, path, fmt.Sprintf("aws metadata %s: HTTP %d %q; polling again every %v", path, status, snippet(body), w.poll))
		return Notice{}, false
	}
	n, fresh, err := parse(body)
	if err != nil {
		w.problems.warn(w.log, path, fmt.Sprintf("aws metadata %s: %v in %q; ignoring it and watching on", path, err, snippet(body)))
		return Notice{}, false
	}
	w.problems.clear(path)
	return n, fresh
}

// instanceAction turns spot/instance-action into a Terminate notice, once per distinct action.
func (w *awsWatch) instanceAction(body []byte) (Notice, bool, error) {
	a, err := ParseInstanceAction(body)
	if err != nil {
		return Notice{}, false, err
	}
	key := a.Action + " " + a.Time.Format(time.RFC3339)
	if key == w.action {
		return Notice{}, false, nil
	}
	w.action = key
	return Notice{Kind: Terminate, Source: CloudAWS, Seen: w.now(), Deadline: a.Time,
		Detail: "spot instance-action: " + a.Action + " at " + a.Time.Format(time.RFC3339)}, true, nil
}

// rebalance turns events/recommendations/rebalance into a Rebalance notice, once per noticeTime.
func (w *awsWatch) rebalance(body []byte) (Notice, bool, error) {
	t, err := ParseRebalance(body)
	if err != nil {
		return Notice{}, false, err
	}
	key := t.Format(time.RFC3339)
	if key == w.rebal {
		return Notice{}, false, nil
	}
	w.rebal = key
	return Notice{Kind: Rebalance, Source: CloudAWS, Seen: w.now(),
		Detail: "rebalance recommendation at " + key}, true, nil
}

// get GETs path with the session token, fetching a new token first if it is missing or near its
// end, and once more after a 401 (the token expired or the service restarted).
func (w *awsWatch) get(ctx context.Context, path string) (int, []byte, error) {
	for attempt := 0; ; attempt++ {
		if err := w.ensureToken(ctx); err != nil {
			return 0, nil, err
		}
		req, err := http.NewRequest(http.MethodGet, w.base+path, nil)
		if err != nil {
			return 0, nil, fmt.Errorf("build request: %w", err)
		}
		req.Header.Set(awsTokenHeader, w.token)
		status, _, body, err := do(ctx, w.client, req, requestTimeout)
		if status == http.StatusUnauthorized && attempt == 0 {
			w.token = ""
			continue
		}
		return status, body, err
	}
}

// ensureToken fetches a session token when there is none or 90% of its lifetime has passed.
func (w *awsWatch) ensureToken(ctx context.Context) error {
	if w.token != "" && w.now().Before(w.expires.Add(-w.ttl/10)) {
		return nil
	}
	req, err := http.NewRequest(http.MethodPut, w.base+awsTokenPath, nil)
	if err != nil {
		return fmt.Errorf("build token request: %w", err)
	}
	req.Header.Set(awsTTLHeader, strconv.Itoa(int(w.ttl/time.Second)))
	issued := w.now()
	status, _, body, err := do(ctx, w.client, req, requestTimeout)
	if err != nil {
		return fmt.Errorf("get IMDSv2 token: %w", err)
	}
	if status != http.StatusOK || len(body) == 0 {
		return fmt.Errorf("get IMDSv2 token: HTTP %d %q (is the metadata service enabled, with a hop limit that reaches this process?)", status, snippet(body))
	}
	w.token, w.expires = strings.TrimSpace(string(body)), issued.Add(w.ttl)
	w.tokens++
	w.log.Debug("aws metadata token fetched", "ttl", w.ttl, "count", w.tokens)
	return nil
}

// InstanceAction is the document at spot/instance-action:
// {"action": "terminate", "time": "2017-09-18T08:22:00Z"}.
type InstanceAction struct {
	Action string    // terminate, stop or hibernate
	Time   time.Time // when EC2 will act, in UTC
}

// ParseInstanceAction reads the spot/instance-action document. The action must be one EC2
// documents and the time RFC 3339.
func ParseInstanceAction(b []byte) (InstanceAction, error) {
	var doc struct {
		Action string `json:"action"`
		Time   string `json:"time"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return InstanceAction{}, fmt.Errorf("malformed instance-action JSON: %w", err)
	}
	switch doc.Action {
	case "terminate", "stop", "hibernate":
	default:
		return InstanceAction{}, fmt.Errorf("instance-action field action %q is not terminate, stop or hibernate", doc.Action)
	}
	t, err := time.Parse(time.RFC3339, doc.Time)
	if err != nil {
		return InstanceAction{}, fmt.Errorf("instance-action field time %q is not an RFC 3339 time", doc.Time)
	}
	return InstanceAction{Action: doc.Action, Time: t.UTC()}, nil
}

// ParseRebalance reads the events/recommendations/rebalance document,
// {"noticeTime": "2020-10-27T08:22:00Z"}, and returns its time.
func ParseRebalance(b []byte) (time.Time, error) {
	var doc struct {
		NoticeTime string `json:"noticeTime"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return time.Time{}, fmt.Errorf("malformed rebalance JSON: %w", err)
	}
	t, err := time.Parse(time.RFC3339, doc.NoticeTime)
	if err != nil {
		return time.Time{}, fmt.Errorf("rebalance field noticeTime %q is not an RFC 3339 time", doc.NoticeTime)
	}
	return t.UTC(), nil
}
