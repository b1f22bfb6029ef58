package pricing

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

func TestGetRedactsKeyAndHonoursRetryAfter(t *testing.T) {
	var waits []time.Duration
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "7")
		http.Error(w, "busy", http.StatusTooManyRequests)
	}))
	defer srv.Close()
	r := Retry{Attempts: 3, Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
	_, err := Get(context.Background(), nil, "Test API", srv.URL+"/x?key=s3cret&pageToken=a", r)
	if gpucost.ErrorCode(err) != gpucost.EUnavailable || strings.Contains(err.Error(), "s3cret") ||
		!strings.Contains(err.Error(), "key=REDACTED") || !strings.Contains(err.Error(), "HTTP 429: busy") {
		t.Errorf("Get against HTTP 429 = %v, want EUnavailable with the key redacted", err)
	}
	if len(waits) != 2 || waits[0] != 7*time.Second || waits[1] != 7*time.Second {
		t.Errorf("Get waited %v, want Retry-After's 7s twice", waits)
	}
}

func TestGetOfflineFailsAtOnce(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	r := Retry{Sleep: func(context.Context, time.Duration) error {
		t.Error("Get waited to retry an unreachable host")
		return nil
	}}
	_, err := Get(context.Background(), nil, "Test API", down.URL+"/?key=s3cret", r)
	if gpucost.ErrorCode(err) != gpucost.EUnavailable || !strings.Contains(err.Error(), "offline?") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("Get from a closed port = %v, want EUnavailable at once, key hidden", err)
	}
}
