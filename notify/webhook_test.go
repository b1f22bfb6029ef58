package notify

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"
)

var testAt = time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)

func testMessage() Message {
	return Message{
		Kind:     "budget.threshold",
		Severity: SeverityWarning,
		Subject:  "Budget team-a at 80% of $10,000 for 2026-11",
		Text:     "team-a has spent $8,012.40 of its $10,000.00 November budget <with 10 days left> & counting.",
		Fields: []Field{
			{Name: "Budget", Value: "team-a"},
			{Name: "Spent", Value: "$8,012.40"},
			{Name: "Forecast", Value: "$11,250.00 (112%)"},
		},
		Link: "https://gpucost.example/budgets/team-a",
		At:   testAt,
		Key:  "budget:team-a:2026-11:80%",
	}
}

// receiver is an httptest server that verifies signatures and answers as told.
type receiver struct {
	*httptest.Server
	mu      sync.Mutex
	bodies  [][]byte
	headers []http.Header
	errs    []error
}

func newReceiver(t *testing.T, secret string, now time.Time, answer func(n int, w http.ResponseWriter)) *receiver {
	t.Helper()
	r := &receiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.bodies = append(r.bodies, body)
		r.headers = append(r.headers, req.Header.Clone())
		if secret != "" {
			r.errs = append(r.errs, Verify(secret, req.Header, body, now, 5*time.Minute))
		}
		n := len(r.bodies)
		r.mu.Unlock()
		answer(n, w)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.bodies)
}

func TestWebhookSignedPayload(t *testing.T) {
	const secret = "s3cr3t-hmac-key"
	rcv := newReceiver(t, secret, testAt.Add(time.Minute), func(int, http.ResponseWriter) {})
	w := &Webhook{URL: rcv.URL + "/hooks/gpucost", Secret: secret, Now: func() time.Time { return testAt }}
	if err := w.Send(context.Background(), testMessage()); err != nil {
		t.Fatalf("Send() = %v", err)
	}
	if rcv.errs[0] != nil {
		t.Fatalf("Verify() at receiver = %v", rcv.errs[0])
	}
	var got WebhookPayload
	if err := json.Unmarshal(rcv.bodies[0], &got); err != nil {
		t.Fatalf("decode body: %v", err)
	}
	m := testMessage()
	if got.Key != m.Key || got.Kind != m.Kind || got.Subject != m.Subject || got.Text != m.Text ||
		got.Link != m.Link || !got.At.Equal(m.At) || len(got.Fields) != 3 || got.Fields[2] != m.Fields[2] ||
		got.Severity != SeverityWarning {
		t.Errorf("payload = %+v, want the fields of %+v", got, m)
	}
	h := rcv.headers[0]
	if h.Get(HeaderKey) != m.Key || h.Get("Content-Type") != "application/json" ||
		h.Get(HeaderTimestamp) != strconv.FormatInt(testAt.Unix(), 10) {
		t.Errorf("headers = %v", h)
	}
}

func TestVerify(t *testing.T) {
	body := []byte(`{"key":"k"}`)
	ts := strconv.FormatInt(testAt.Unix(), 10)
	good := http.Header{}
	good.Set(HeaderTimestamp, ts)
	good.Set(HeaderSignature, "sha256="+hex.EncodeToString(sign("k1", ts, body)))
	cases := []struct {
		name   string
		secret string
		hdr    http.Header
		body   []byte
		now    time.Time
		want   error
	}{
		{"good", "k1", good, body, testAt, nil},
		{"wrong secret", "k2", good, body, testAt, ErrBadSignature},
		{"tampered body", "k1", good, []byte(`{"key":"K"}`), testAt, ErrBadSignature},
		{"replayed late", "k1", good, body, testAt.Add(6 * time.Minute), ErrStale},
		{"from the future", "k1", good, body, testAt.Add(-6 * time.Minute), ErrStale},
		{"no headers", "k1", http.Header{}, body, testAt, ErrNoSignature},
		{"no prefix", "k1", http.Header{HeaderTimestamp: {ts},
			HeaderSignature: {hex.EncodeToString(sign("k1", ts, body))}}, body, testAt, ErrBadSignature},
		{"timestamp moved", "k1", http.Header{HeaderTimestamp: {strconv.FormatInt(testAt.Unix()+1, 10)},
			HeaderSignature: good[HeaderSignature]}, body, testAt, ErrBadSignature},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Verify(c.secret, c.hdr, c.body, c.now, 5*time.Minute)
			if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
				t.Errorf("Verify() = %v, want %v", err, c.want)
			}
		})
	}
}

func TestWebhookNoSecretIsPermanent(t *testing.T) {
	err := (&Webhook{URL: "https://example.invalid/x"}).Send(context.Background(), testMessage())
	if retry, _ := retryable(err); err == nil || retry {
		t.Errorf("Send() without secret = %v (retryable %v), want a permanent error", err, retry)
	}
}

func TestWebhookRedirectNotFollowed(t *testing.T) {
	rcv := newReceiver(t, "", testAt, func(_ int, w http.ResponseWriter) {
		w.Header().Set("Location", "https://elsewhere.example/")
		w.WriteHeader(http.StatusFound)
	})
	err := (&Webhook{URL: rcv.URL, Secret: "x"}).Send(context.Background(), testMessage())
	var se *StatusError
	if !errors.As(err, &se) || se.Code != http.StatusFound {
		t.Errorf("Send() to a redirect = %v, want StatusError 302", err)
	}
}
