package noticetest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// AWS is a fake EC2 instance metadata service that requires IMDSv2 session tokens.
type AWS struct {
	server
	URL string // base URL, for notice.AWS.Endpoint

	tokens        map[string]bool // issued tokens; false once expired
	tokenRequests int
	unauthorized  int // GETs answered 401
	action        string
	rebalance     string
	next          int
	meta          map[string]string // other meta-data keys, such as instance-type
}

// NewAWS starts a fake IMDS with no notice up; it stops at the end of the test.
func NewAWS(tb testing.TB) *AWS {
	s := &AWS{tokens: map[string]bool{}}
	s.start(tb, s.serve)
	s.URL = s.srv.URL
	return s
}

// IssueSpotAction puts up spot/instance-action: {"action": action, "time": at}.
func (s *AWS) IssueSpotAction(action string, at time.Time) {
	b, _ := json.Marshal(map[string]string{"action": action, "time": at.UTC().Format(time.RFC3339)})
	s.SetInstanceAction(string(b))
}

// SetInstanceAction puts up body verbatim at spot/instance-action (malformed documents for
// tests); an empty body takes it down again (404).
func (s *AWS) SetInstanceAction(body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.action = body
}

// IssueRebalance puts up events/recommendations/rebalance: {"noticeTime": at}.
func (s *AWS) IssueRebalance(at time.Time) {
	b, _ := json.Marshal(map[string]string{"noticeTime": at.UTC().Format(time.RFC3339)})
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rebalance = string(b)
}

// SetMetaData serves value at /latest/meta-data/key (instance-type, placement/region,
// placement/availability-zone, placement/availability-zone-id, instance-life-cycle, …); an empty
// value takes the key down again (404).
func (s *AWS) SetMetaData(key, value string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.meta == nil {
		s.meta = map[string]string{}
	}
	s.meta[key] = value
}

// SetInstance serves a whole machine description: the instance type, its availability zone with
// the zone's id and region, and instance-life-cycle (spot or on-demand).
func (s *AWS) SetInstance(instanceType, region, zone, zoneID, lifecycle string) {
	for k, v := range map[string]string{"instance-type": instanceType, "placement/region": region,
		"placement/availability-zone": zone, "placement/availability-zone-id": zoneID, "instance-life-cycle": lifecycle} {
		s.SetMetaData(k, v)
	}
}

// ExpireTokens makes every token issued so far invalid, as when its TTL runs out: requests
// carrying one get 401 until the client fetches a new token.
func (s *AWS) ExpireTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for t := range s.tokens {
		s.tokens[t] = false
	}
}

// TokenRequests returns how many tokens were issued.
func (s *AWS) TokenRequests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tokenRequests
}

// Unauthorized returns how many GETs were refused with 401.
func (s *AWS) Unauthorized() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.unauthorized
}

func (s *AWS) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.URL.Path == "/latest/api/token" {
		s.issueToken(w, r)
		return
	}
	if r.Method != http.MethodGet {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if !s.tokens[r.Header.Get("X-aws-ec2-metadata-token")] {
		s.unauthorized++
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	var body string
	switch r.URL.Path {
	case "/latest/meta-data/spot/instance-action":
		body = s.action
	case "/latest/meta-data/events/recommendations/rebalance":
		body = s.rebalance
	default:
		body = s.meta[strings.TrimPrefix(r.URL.Path, "/latest/meta-data/")]
	}
	if body == "" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/plain")
	fmt.Fprint(w, body)
}

// issueToken answers PUT /latest/api/token; the TTL header (1 to 21,600 s) is required.
func (s *AWS) issueToken(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPut {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	ttl, err := strconv.Atoi(r.Header.Get("X-aws-ec2-metadata-token-ttl-seconds"))
	if err != nil || ttl < 1 || ttl > 21600 {
		http.Error(w, "bad X-aws-ec2-metadata-token-ttl-seconds", http.StatusBadRequest)
		return
	}
	s.next++
	s.tokenRequests++
	tok := fmt.Sprintf("token-%d", s.next)
	s.tokens[tok] = true
	w.Header().Set("X-aws-ec2-metadata-token-ttl-seconds", strconv.Itoa(ttl))
	fmt.Fprint(w, tok)
}
