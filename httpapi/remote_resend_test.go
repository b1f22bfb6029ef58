package httpapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// answerLost wraps the server's handler: the first request it sees on its turn is served in
// full (the samples are taken) but its answer is lost in the way named by how; every other
// request is served as usual.
type answerLost struct {
	next     http.Handler
	how      string
	turn     int32 // the request (1, 2, …) whose answer is lost
	requests atomic.Int32
}

func (a *answerLost) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if a.requests.Add(1) != a.turn {
		a.next.ServeHTTP(w, r)
		return
	}
	rec := httptest.NewRecorder()
	if a.how != "404 from a proxy" {
		a.next.ServeHTTP(rec, r) // the server takes the samples
	}
	switch a.how {
	case "connection reset before the answer":
		conn, _, _ := http.NewResponseController(w).Hijack()
		conn.Close()
	case "connection reset in the middle of the answer":
		conn, bw, _ := http.NewResponseController(w).Hijack()
		body := rec.Body.Bytes()
		bw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n")
		bw.Write(body[:len(body)/2])
		bw.Flush()
		conn.Close()
	case "answer after the client's timeout":
		<-r.Context().Done() // the client gave up and closed the connection
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	case "502 from a proxy after the server took it":
		http.Error(w, "bad gateway", http.StatusBadGateway)
	case "404 from a proxy":
		http.NotFound(w, r)
	case "200 with an answer that is not JSON":
		w.WriteHeader(http.StatusOK)
		w.Write([]byte("<html>proxy</html>"))
	}
}

// TestRemoteSinkResendsWhatTheServerMayNotHave loses the answer to one post in every way an
// answer can go missing: the sink must keep that batch and send it again, and the store must
// hold each sample once, though the server took the batch twice and wrote part of its minutes
// in between.
func TestRemoteSinkResendsWhatTheServerMayNotHave(t *testing.T) {
	for _, how := range []string{
		"connection reset before the answer",
		"connection reset in the middle of the answer",
		"answer after the client's timeout",
		"502 from a proxy after the server took it",
		"404 from a proxy",
		"200 with an answer that is not JSON",
	} {
		t.Run(how, func(t *testing.T) {
			f := newFixture(t)
			f.writer.DropStored = true
			lost := &answerLost{next: f.srv.Handler(), how: how, turn: 2}
			f.ts.Config.Handler = lost
			now := testNow
			timeout := time.Minute
			if how == "answer after the client's timeout" {
				timeout = time.Second
			}
			sink := &RemoteSink{BatchSize: 8, MinBackoff: time.Second, Now: func() time.Time { return now },
				Client: &Client{URL: f.ts.URL, Token: f.secrets[gpucost.RoleIngest], HTTP: &http.Client{Timeout: timeout}}}
			ctx := context.Background()
			all := testSamples(1, 4, 10, testNow.Add(-time.Hour)) // 40 samples, 5 posts of 8
			sink.Add(ctx, all...)
			if err := sink.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			if st := sink.Stats(); sink.Held() != 32 || st.Failures != 1 || st.Sent != 8 {
				t.Fatalf("after the lost answer: %d held, %+v; want the first batch sent and the other 32 samples held", sink.Held(), st)
			}
			// The server writes the minutes it holds as the series go quiet, so the resent batch
			// overlaps minutes written in part.
			f.writer.Flush(ctx)
			f.writer.Flush(ctx)
			now = now.Add(2 * time.Second)
			if err := sink.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			if st := sink.Stats(); sink.Held() != 0 || st.Sent != 40 || lost.requests.Load() != 6 {
				t.Errorf("after the retry: %d held, %+v, %d requests; want all 40 sent, the lost batch twice (6 posts)", sink.Held(), st, lost.requests.Load())
			}
			if n := f.storedSamples(t); n != len(all) {
				t.Errorf("the store holds %d samples; want %d, each once", n, len(all))
			}
		})
	}
}
