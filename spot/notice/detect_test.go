package notice_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost/spot/notice"
	"github.com/gpucost/gpucost/spot/notice/noticetest"
)

// closedURL returns the URL of a server that has stopped: connections to it are refused.
func closedURL(t *testing.T) string {
	s := httptest.NewServer(http.NotFoundHandler())
	s.Close()
	return s.URL
}

func TestDetect(t *testing.T) {
	refused := closedURL(t)
	// A web server that answers everything with 200 must not pass for any cloud.
	anything := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(anything.Close)
	aws, gcp, az := noticetest.NewAWS(t), noticetest.NewGCP(t), noticetest.NewAzure(t, "vm")
	for _, tc := range []struct {
		name string
		p    notice.Probe
		want string
	}{
		{"aws", notice.Probe{AWS: aws.URL, GCPHost: hostOf(refused), AzureURL: refused}, "aws"},
		{"gcp", notice.Probe{AWS: refused, GCPHost: gcp.Host, AzureURL: refused}, "gcp"},
		{"azure", notice.Probe{AWS: refused, GCPHost: hostOf(refused), AzureURL: az.URL}, "azure"},
		// Each fake refuses the others' protocols, as the real services do.
		{"azure among others", notice.Probe{AWS: az.URL, GCPHost: hostOf(az.URL), AzureURL: az.URL}, "azure"},
		{"gcp among others", notice.Probe{AWS: "http://" + gcp.Host, GCPHost: gcp.Host, AzureURL: "http://" + gcp.Host}, "gcp"},
		{"none: refused", notice.Probe{AWS: refused, GCPHost: hostOf(refused), AzureURL: refused}, "none"},
		{"none: a plain web server", notice.Probe{AWS: anything.URL, GCPHost: hostOf(anything.URL), AzureURL: anything.URL}, "none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := notice.Detect(t.Context(), tc.p); got != tc.want {
				t.Errorf("Detect(%+v) = %q, want %q", tc.p, got, tc.want)
			}
		})
	}
}

func TestDetectTimesOut(t *testing.T) {
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	t.Cleanup(hang.Close)
	start := time.Now()
	got := notice.Detect(t.Context(), notice.Probe{AWS: hang.URL, GCPHost: hostOf(hang.URL), AzureURL: hang.URL, Timeout: 50 * time.Millisecond})
	if got != "none" {
		t.Errorf("Detect against hanging endpoints = %q, want none", got)
	}
	if time.Since(start) > 3*time.Second {
		t.Errorf("Detect took %v with a 50 ms timeout", time.Since(start))
	}
}

func hostOf(u string) string { return strings.TrimPrefix(u, "http://") }

func TestMerge(t *testing.T) {
	aws, gcp := noticetest.NewAWS(t), noticetest.NewGCP(t)
	out, _ := watching(t, notice.Merge(
		&notice.AWS{Endpoint: aws.URL, Poll: fastPoll},
		&notice.GCP{Host: gcp.Host, Poll: fastPoll, LongPoll: 30 * time.Second},
	))
	aws.IssueRebalance(t0)
	gcp.Preempt()
	got := map[string]string{}
	for range 2 {
		n := next(t, out)
		got[n.Source] = n.Kind
	}
	if got["aws"] != notice.Rebalance || got["gcp"] != notice.Terminate {
		t.Errorf("merged notices = %v, want aws rebalance and gcp terminate", got)
	}
}

type failing struct{ err error }

func (f failing) Watch(ctx context.Context, out chan<- notice.Notice) error { return f.err }

func TestMergeStopsOnError(t *testing.T) {
	boom := errors.New("boom")
	done := make(chan error, 1)
	go func() {
		done <- notice.Merge(&notice.AWS{Endpoint: closedURL(t), Poll: time.Hour}, failing{boom}).Watch(t.Context(), make(chan notice.Notice))
	}()
	select {
	case err := <-done:
		if !errors.Is(err, boom) {
			t.Errorf("Merge(…, failing).Watch = %v, want %v", err, boom)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Merge did not stop its other watchers when one failed")
	}
	if err := notice.Merge().Watch(t.Context(), nil); err != nil {
		t.Errorf("Merge().Watch = %v, want nil", err)
	}
}
