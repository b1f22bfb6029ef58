package noticetest

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// GCP is a fake GCE metadata server serving instance/preempted, with wait_for_change long polls
// keyed by ETag.
type GCP struct {
	server
	Host string // host:port, for notice.GCP.Host (as GCE_METADATA_HOST gives it)

	value      string
	version    int
	changed    chan struct{} // closed and replaced at every change
	ignoreWait bool
	fail       int
	requests   int
	longPolls  int
	meta       map[string]string // other keys under /computeMetadata/v1/, such as instance/zone
}

// NewGCP starts a fake metadata server whose instance/preempted is FALSE.
func NewGCP(tb testing.TB) *GCP {
	s := &GCP{value: "FALSE", changed: make(chan struct{})}
	s.start(tb, s.serve)
	s.Host = strings.TrimPrefix(s.srv.URL, "http://")
	return s
}

// Preempt turns instance/preempted TRUE, waking held long polls.
func (s *GCP) Preempt() { s.SetPreempted("TRUE") }

// SetPreempted sets instance/preempted's body verbatim ("FALSE", "TRUE" or something malformed).
func (s *GCP) SetPreempted(body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.value = body
	s.version++
	close(s.changed)
	s.changed = make(chan struct{})
}

// SetMetadata serves value at /computeMetadata/v1/key (instance/machine-type, instance/zone,
// instance/scheduling/provisioning-model, instance/scheduling/preemptible, …); an empty value
// takes the key down again (404).
func (s *GCP) SetMetadata(key, value string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.meta == nil {
		s.meta = map[string]string{}
	}
	s.meta[key] = value
}

// SetInstance serves a VM's description as the metadata server words it: machine type and zone
// as projects/NUM/machineTypes/NAME and projects/NUM/zones/ZONE, and the provisioning model
// (SPOT or STANDARD) with preemptible TRUE or FALSE.
func (s *GCP) SetInstance(machineType, zone, provisioningModel, preemptible string) {
	s.SetMetadata("instance/machine-type", "projects/123456789012/machineTypes/"+machineType)
	s.SetMetadata("instance/zone", "projects/123456789012/zones/"+zone)
	s.SetMetadata("instance/scheduling/provisioning-model", provisioningModel)
	s.SetMetadata("instance/scheduling/preemptible", preemptible)
}

// SetIdentity serves the keys that name the VM: project/project-id, instance/name and
// instance/id (its number); an empty value takes its key down (404).
func (s *GCP) SetIdentity(projectID, name, id string) {
	s.SetMetadata("project/project-id", projectID)
	s.SetMetadata("instance/name", name)
	s.SetMetadata("instance/id", id)
}

// serveKey answers a plain GET of a key set with SetMetadata.
func (s *GCP) serveKey(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	value := s.meta[strings.TrimPrefix(r.URL.Path, "/computeMetadata/v1/")]
	s.mu.Unlock()
	w.Header().Set("Metadata-Flavor", "Google")
	if value == "" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/text")
	fmt.Fprint(w, value)
}

// IgnoreWait makes the server answer wait_for_change requests at once, like a server or proxy
// that does not hold requests, so the watcher must fall back to polling.
func (s *GCP) IgnoreWait(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ignoreWait = on
}

// Fail makes the next n requests fail with 503, as during a metadata server maintenance event.
func (s *GCP) Fail(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = n
}

// Requests returns how many instance/preempted requests arrived, and how many of them were
// wait_for_change long polls.
func (s *GCP) Requests() (all, longPolls int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests, s.longPolls
}

func (s *GCP) etag() string { return fmt.Sprintf("%016x", 0x9e3779b97f4a7c15*uint64(s.version+1)) }

func (s *GCP) serve(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Metadata-Flavor") != "Google" {
		http.Error(w, "Missing Metadata-Flavor:Google header.", http.StatusForbidden)
		return
	}
	if r.URL.Path != "/computeMetadata/v1/instance/preempted" {
		s.serveKey(w, r)
		return
	}
	q := r.URL.Query()
	wait := q.Get("wait_for_change") == "true"
	s.mu.Lock()
	s.requests++
	if wait {
		s.longPolls++
	}
	if s.fail > 0 {
		s.fail--
		s.mu.Unlock()
		http.Error(w, "service unavailable", http.StatusServiceUnavailable)
		return
	}
	if wait && !s.ignoreWait && q.Get("last_etag") == s.etag() {
		changed := s.changed
		s.mu.Unlock()
		s.hold(r, changed, q.Get("timeout_sec"))
		s.mu.Lock()
	}
	value, etag := s.value, s.etag()
	s.mu.Unlock()
	w.Header().Set("Metadata-Flavor", "Google")
	w.Header().Set("ETag", etag)
	w.Header().Set("Content-Type", "application/text")
	fmt.Fprint(w, value)
}

// hold waits for a change, timeout_sec, the client leaving or the server closing.
func (s *GCP) hold(r *http.Request, changed <-chan struct{}, timeoutSec string) {
	timeout := time.Hour
	if n, err := strconv.Atoi(timeoutSec); err == nil && n > 0 {
		timeout = time.Duration(n) * time.Second
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-changed:
	case <-t.C:
	case <-r.Context().Done():
	case <-s.done:
	}
}
