package notify

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"testing"

	"github.com/gpucost/gpucost/notify/internal/smtptest"
)

func BenchmarkEnqueueFull(b *testing.B) {
	d := &Dispatcher{QueueSize: 1}
	d.Enqueue(testMessage()) // fill the queue: every further call takes the drop path
	b.ReportAllocs()
	for b.Loop() {
		d.Enqueue(testMessage(), "ops")
	}
}

func BenchmarkWebhookSend(b *testing.B) {
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.Copy(io.Discard, r.Body) }))
	defer rcv.Close()
	w := &Webhook{URL: rcv.URL + "/hook", Secret: "k"}
	b.ReportAllocs()
	for b.Loop() {
		if err := w.Send(context.Background(), testMessage()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSlackPayload(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := SlackPayload(testMessage()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompose(b *testing.B) {
	from, to := &mail.Address{Address: "a@example.com"}, []*mail.Address{{Address: "b@example.com"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compose(testMessage(), from, to, testAt); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEmailSend(b *testing.B) {
	srv := smtptest.Start(b, map[string]string{"u": "p"})
	e := &Email{Addr: srv.Addr, From: "a@example.com", To: []string{"b@example.com"}, Username: "u", Password: "p"}
	for b.Loop() {
		if err := e.Send(context.Background(), testMessage()); err != nil {
			b.Fatal(err)
		}
	}
}
