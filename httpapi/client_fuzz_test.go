package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// cannedAnswer is what the fuzzed server answers next.
type cannedAnswer struct {
	status     int
	retryAfter string
	body       []byte
	pad        int // spaces written after body, to make the answer long
}

// countingTransport counts the bytes the client reads from answer bodies.
type countingTransport struct {
	base http.RoundTripper
	read atomic.Int64
}

func (t *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if resp != nil {
		resp.Body = countingBody{resp.Body, &t.read}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// maxAnswer is how much of an answer the client reads.
const maxAnswer = 1 << 20

// FuzzClientAnswer serves the client arbitrary answers to PostSamples: status, Retry-After and
// body are outside input to the agent. The client must never panic, must read at most 1 MiB,
// must decode a 2xx whose (first MiB of) body is a SamplesResponse, and must classify the rest:
// EUnavailable for 5xx, 408 and 429, with a *RetryAfterError of the asked wait, capped, when
// Retry-After is a whole number of seconds; a *RefusedError for any other status.
func FuzzClientAnswer(f *testing.F) {
	var mu sync.Mutex
	var next cannedAnswer
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		a := next
		mu.Unlock()
		if a.retryAfter != "" {
			w.Header().Set("Retry-After", a.retryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.status)
		_, _ = w.Write(a.body)
		for pad := bytes.Repeat([]byte{' '}, 64<<10); a.pad > 0; a.pad -= len(pad) {
			if _, err := w.Write(pad[:min(a.pad, len(pad))]); err != nil {
				return
			}
		}
	}))
	f.Cleanup(srv.Close)
	tr := &countingTransport{base: srv.Client().Transport}
	c := &Client{URL: srv.URL, Token: "t", HTTP: &http.Client{Transport: tr, Timeout: 10 * time.Second}}

	f.Add(uint16(0), "", []byte(`{"accepted":3,"skipped":1,"skips":[{"index":2,"reason":"stale"}]}`), uint8(0))
	f.Add(uint16(229), "7", []byte(`{"error":{"code":"unavailable","message":"slow down"}}`), uint8(0))
	f.Add(uint16(303), " 120 ", []byte("bad gateway"), uint8(0))
	f.Add(uint16(200), "", []byte(`not json`), uint8(250))
	f.Fuzz(func(t *testing.T, code uint16, retry string, body []byte, padK uint8) {
		if len(body) > 64<<10 || len(retry) > 1<<10 || !validHeaderValue(retry) {
			return
		}
		a := cannedAnswer{status: 200 + int(code)%400, retryAfter: retry, body: body}
		if padK >= 240 { // now and then an answer over the 1 MiB the client reads
			a.pad = int(padK-240) * 128 << 10
		}
		mu.Lock()
		next = a
		mu.Unlock()
		tr.read.Store(0)

		resp, err := c.PostSamples(context.Background(), nil)
		if n := tr.read.Load(); n > maxAnswer {
			t.Fatalf("PostSamples read %d bytes of the answer, want at most %d", n, maxAnswer)
		}
		checkAnswer(t, a, resp, err)
	})
}

// checkAnswer checks what PostSamples returned for the server's answer a.
func checkAnswer(t *testing.T, a cannedAnswer, resp SamplesResponse, err error) {
	t.Helper()
	served := a.body
	if a.status == http.StatusNoContent || a.status == http.StatusNotModified {
		served = nil // no body allowed
	}
	served = append(bytes.Clone(served), bytes.Repeat([]byte{' '}, a.pad)...)
	served = served[:min(len(served), maxAnswer)]
	var refused *RefusedError
	var later *RetryAfterError
	switch s := a.status; {
	case s/100 == 2:
		var want SamplesResponse
		if jerr := json.Unmarshal(served, &want); jerr != nil {
			if gpucost.ErrorCode(err) != gpucost.EUnavailable {
				t.Fatalf("PostSamples(%d %q) = %v, want an unavailable error: the answer is not a SamplesResponse (%v)", s, served, err, jerr)
			}
			return
		}
		if err != nil || !reflect.DeepEqual(resp, want) {
			t.Fatalf("PostSamples(%d %q) = %+v, %v; want %+v", s, served, resp, err, want)
		}
	case s >= 500 || s == http.StatusRequestTimeout || s == http.StatusTooManyRequests:
		if gpucost.ErrorCode(err) != gpucost.EUnavailable || errors.As(err, &refused) {
			t.Fatalf("PostSamples(%d) = %v, want an unavailable error", s, err)
		}
		n, perr := strconv.Atoi(strings.TrimSpace(a.retryAfter))
		if perr != nil || n < 0 {
			if errors.As(err, &later) {
				t.Fatalf("PostSamples(%d, Retry-After %q) = %v, want no retry-after error", s, a.retryAfter, err)
			}
			return
		}
		want := maxRetryAfter
		if n < int(maxRetryAfter/time.Second) {
			want = time.Duration(n) * time.Second
		}
		if !errors.As(err, &later) || later.After != want || later.After < 0 || later.After > maxRetryAfter {
			t.Fatalf("PostSamples(%d, Retry-After %q) = %v, want a *RetryAfterError after %s", s, a.retryAfter, err, want)
		}
	default:
		if !errors.As(err, &refused) || refused.Status != s {
			t.Fatalf("PostSamples(%d %q) = %v, want a *RefusedError with status %d", s, served, err, s)
		}
	}
}

// validHeaderValue reports whether v can travel as a header value: no control bytes but tab.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if b := v[i]; b < ' ' && b != '\t' || b == 0x7f {
			return false
		}
	}
	return true
}
