package notify

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost/notify/internal/smtptest"
)

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"https://hooks.slack.com/services/T0/B0/XXXX": "https://hooks.slack.com/[redacted]",
		"https://ops.example/hook?token=abc":          "https://ops.example/[redacted]",
		"https://user:pw@ops.example/":                "https://ops.example/[redacted]",
		"https://ops.example":                         "https://ops.example",
		"https://ops.example/":                        "https://ops.example",
		"http://127.0.0.1:8065/hooks/xyz#frag":        "http://127.0.0.1:8065/[redacted]",
		"not a url with secret":                       "[redacted URL]",
		"https://ops.example/%zz":                     "[redacted URL]",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNoSecretInLogsOrErrors fails every kind of target in every way it can and scans all that
// a person could see: log lines, returned errors and the delivery log.
func TestNoSecretInLogsOrErrors(t *testing.T) {
	const (
		hookSecret = "hmac-secret-AAAA"
		slackToken = "T0123/B0456/slacktokenBBBB"
		urlToken   = "querytokenCCCC"
		smtpPass   = "smtp-password-DDDD"
	)
	secrets := []string{hookSecret, slackToken, "slacktokenBBBB", urlToken, smtpPass}
	rcv := newReceiver(t, "", testAt, func(_ int, w http.ResponseWriter) { w.WriteHeader(500) })
	dead := deadAddr(t)
	srv := smtptest.Start(t, map[string]string{"gpucost": "other"})
	targets := map[string]Target{
		"hook-500":    &Webhook{URL: rcv.URL + "/hook?token=" + urlToken, Secret: hookSecret},
		"hook-dead":   &Webhook{URL: "http://" + dead + "/hook?token=" + urlToken, Secret: hookSecret},
		"slack-500":   &Slack{URL: rcv.URL + "/services/" + slackToken},
		"slack-dead":  &Slack{URL: "http://" + dead + "/services/" + slackToken},
		"mail-auth":   &Email{Addr: srv.Addr, From: "a@example.com", To: []string{"b@example.com"}, Username: "gpucost", Password: smtpPass},
		"mail-dead":   &Email{Addr: dead, From: "a@example.com", To: []string{"b@example.com"}, Username: "gpucost", Password: smtpPass},
		"hook-badurl": &Webhook{URL: "http://[::1/%zz" + urlToken, Secret: hookSecret},
	}
	var logs bytes.Buffer
	clock := &fakeClock{now: testAt}
	d, log := newDispatcher(targets, clock, &logs)
	d.MaxAttempts = 2
	names := make([]string, 0, len(targets))
	for n := range targets {
		names = append(names, n)
	}
	err := d.Notify(context.Background(), testMessage(), names...)
	if err == nil {
		t.Fatal("Notify() = nil, want every target to fail")
	}
	seen := logs.String() + "\n" + err.Error()
	for _, del := range log.Deliveries() {
		seen += "\n" + del.Error
	}
	for _, s := range secrets {
		if strings.Contains(seen, s) {
			t.Errorf("secret %q appears in what people see:\n%s", s, seen)
		}
	}
	if !strings.Contains(seen, "[redacted]") {
		t.Errorf("want the redacted URL form in the output:\n%s", seen)
	}
}

// deadAddr returns a loopback address nothing listens on.
func deadAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func TestLogsDoNotShowSecretsAtDebug(t *testing.T) {
	var logs bytes.Buffer
	h := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	d := &Dispatcher{Targets: map[string]Target{"s": &Slack{URL: "http://" + deadAddr(t) + "/services/tok-EEEE"}},
		Logger: h, MaxAttempts: 3, Sleep: func(context.Context, time.Duration) error { return nil }}
	_ = d.Notify(context.Background(), testMessage(), "s")
	if strings.Contains(logs.String(), "tok-EEEE") || !strings.Contains(logs.String(), "will retry") {
		t.Errorf("logs = %s, want retries logged without the token", logs.String())
	}
}
