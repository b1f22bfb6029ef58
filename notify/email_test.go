package notify

import (
	"bytes"
	"context"
	"io"
	"mime"
	"mime/quotedprintable"
	"net/mail"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost/notify/internal/smtptest"
)

func TestEmailSend(t *testing.T) {
	srv := smtptest.Start(t, map[string]string{"gpucost": "smtp-pass-123"})
	e := &Email{Addr: srv.Addr, From: "gpucost <alerts@gpucost.example>",
		To:       []string{"finance@example.com", "Zoë Ops <ops@example.com>"},
		Username: "gpucost", Password: "smtp-pass-123", Now: func() time.Time { return testAt }}
	m := testMessage()
	m.Subject = "Budget team-a über 80% — $8,012.40"
	m.Text += "\n.leading dot line\n" + strings.Repeat("long line ", 12)
	if err := e.Send(context.Background(), m); err != nil {
		t.Fatalf("Send() = %v", err)
	}
	msgs := srv.Messages()
	if len(msgs) != 1 {
		t.Fatalf("server got %d messages, want 1", len(msgs))
	}
	got := msgs[0]
	if got.From != "alerts@gpucost.example" || strings.Join(got.To, ",") != "finance@example.com,ops@example.com" ||
		got.Username != "gpucost" || got.Password != "smtp-pass-123" {
		t.Errorf("envelope = from %q to %v auth %q, want alerts@ to finance,ops as gpucost", got.From, got.To, got.Username)
	}
	parsed, err := mail.ReadMessage(bytes.NewReader(got.Data))
	if err != nil {
		t.Fatalf("parse received mail: %v", err)
	}
	h := parsed.Header
	subject, err := new(mime.WordDecoder).DecodeHeader(h.Get("Subject"))
	if err != nil || subject != m.Subject {
		t.Errorf("Subject = %q (%v), want %q", subject, err, m.Subject)
	}
	if d, err := h.Date(); err != nil || !d.Equal(testAt) {
		t.Errorf("Date = %v (%v), want %v", d, err, testAt)
	}
	for k, want := range map[string]string{"MIME-Version": "1.0", "Content-Type": "text/plain; charset=UTF-8",
		"Content-Transfer-Encoding": "quoted-printable", "Auto-Submitted": "auto-generated"} {
		if h.Get(k) != want {
			t.Errorf("%s = %q, want %q", k, h.Get(k), want)
		}
	}
	if id := h.Get("Message-ID"); !strings.HasPrefix(id, "<") || !strings.HasSuffix(id, "@gpucost.example>") {
		t.Errorf("Message-ID = %q, want <...@gpucost.example>", id)
	}
	if to, err := h.AddressList("To"); err != nil || len(to) != 2 || to[1].Name != "Zoë Ops" {
		t.Errorf("To = %v (%v), want two addresses, the second named Zoë Ops", to, err)
	}
	body, err := io.ReadAll(quotedprintable.NewReader(parsed.Body))
	if err != nil {
		t.Fatalf("decode body: %v", err)
	}
	for _, want := range []string{m.Text, "Spent: $8,012.40\r\n", "Forecast: $11,250.00 (112%)\r\n", m.Link} {
		if !strings.Contains(strings.ReplaceAll(string(body), "\r\n", "\n"), strings.ReplaceAll(want, "\r\n", "\n")) {
			t.Errorf("body = %q, want it to contain %q", body, want)
		}
	}
}

func TestEmailFailures(t *testing.T) {
	cases := []struct {
		name      string
		users     map[string]string
		reply     func(string) string
		password  string
		retryable bool
	}{
		{"wrong password", map[string]string{"gpucost": "right"}, nil, "wrong-pw-777", false},
		{"mailbox busy", nil, func(v string) string { return map[string]string{"RCPT": "451 4.2.1 try later"}[v] }, "", true},
		{"no such mailbox", nil, func(v string) string { return map[string]string{"RCPT": "550 5.1.1 no such user"}[v] }, "", false},
		{"auth not offered", nil, nil, "pw-without-auth", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := smtptest.Start(t, c.users)
			srv.Reply = c.reply
			e := &Email{Addr: srv.Addr, From: "alerts@gpucost.example", To: []string{"a@example.com"}}
			if c.password != "" {
				e.Username, e.Password = "gpucost", c.password
			}
			err := e.Send(context.Background(), testMessage())
			if err == nil {
				t.Fatal("Send() = nil, want an error")
			}
			if retry, _ := retryable(err); retry != c.retryable {
				t.Errorf("Send() = %v, retryable %v, want %v", err, retry, c.retryable)
			}
			if c.password != "" && strings.Contains(err.Error(), c.password) {
				t.Errorf("error %q shows the password", err)
			}
			if len(srv.Messages()) != 0 {
				t.Errorf("server accepted a message")
			}
		})
	}
}

func TestEmailBadAddressIsPermanent(t *testing.T) {
	e := &Email{Addr: "127.0.0.1:1", From: "not an address", To: []string{"a@example.com"}}
	if err := e.Send(context.Background(), testMessage()); err == nil {
		t.Error("Send() with bad From = nil")
	} else if retry, _ := retryable(err); retry {
		t.Errorf("Send() = %v, want permanent", err)
	}
}

func TestComposeHeaderInjection(t *testing.T) {
	m := testMessage()
	m.Subject = "hi\r\nBcc: victim@example.com"
	b, err := Compose(m, &mail.Address{Address: "a@example.com"}, []*mail.Address{{Address: "b@example.com"}}, testAt)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := mail.ReadMessage(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if parsed.Header.Get("Bcc") != "" {
		t.Errorf("Compose() let a subject add a header:\n%s", b)
	}
}
