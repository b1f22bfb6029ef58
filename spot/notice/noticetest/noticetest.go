// Package noticetest runs fake cloud metadata servers on loopback that speak the spot-notice
// protocols notice's watchers read: AWS IMDSv2, the GCE metadata server and Azure Scheduled
// Events. Tests fire notices with methods such as IssueSpotAction, Preempt and ScheduleEvent,
// and read back what the watcher did (token requests, long polls, acknowledgements).
package noticetest

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// server is the part every fake shares: an httptest server, a lock and a close signal that
// releases held long-poll requests so Close does not wait for them.
type server struct {
	srv  *httptest.Server
	mu   sync.Mutex
	done chan struct{}
	once sync.Once
}

func (s *server) start(tb testing.TB, h http.HandlerFunc) {
	tb.Helper()
	s.done = make(chan struct{})
	s.srv = httptest.NewServer(h)
	tb.Cleanup(s.Close)
}

// Close stops the server; it is called at the end of the test too.
func (s *server) Close() {
	s.once.Do(func() {
		close(s.done)
		s.srv.Close()
	})
}
