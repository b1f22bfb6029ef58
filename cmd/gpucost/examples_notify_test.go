package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// exampleTargets writes the examples' targets.yaml: the targets budgets.yaml and policies.yaml name, each a
// loopback receiver of the test's, and returns the secrets it reads from the environment and
// the receivers' count of alerts received.
func exampleTargets(t *testing.T) (map[string]string, func() int) {
	t.Helper()
	var mu sync.Mutex
	received := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		received++
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	mails := startSMTPSink(t, func() {
		mu.Lock()
		received++
		mu.Unlock()
	})
	targets := fmt.Sprintf(`targets:
  finops-slack: {slack: {url_env: FINOPS_SLACK_URL}}
  ops-slack: {slack: {url_env: FINOPS_SLACK_URL}}
  finops-webhook: {webhook: {url: "%[1]s/hooks/finops", secret_env: HOOK_SECRET}}
  research-leads: {webhook: {url: "%[1]s/hooks/research", secret_env: HOOK_SECRET}}
  cto-email:
    email: {to: [cto@example.com], smtp: "%[2]s", from: "gpucost <alerts@example.com>"}
`, srv.URL, mails)
	if err := os.WriteFile("targets.yaml", []byte(targets), 0o644); err != nil {
		t.Fatal(err)
	}
	environ := map[string]string{"FINOPS_SLACK_URL": srv.URL + "/slack", "HOOK_SECRET": "example-hook-secret"}
	return environ, func() int {
		mu.Lock()
		defer mu.Unlock()
		return received
	}
}

// startSMTPSink accepts mail on a loopback port, without TLS or AUTH, calling got for each
// message, and returns its address.
func startSMTPSink(t *testing.T, got func()) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go serveSMTP(conn, got)
		}
	}()
	return l.Addr().String()
}

// serveSMTP answers one SMTP session: every command is accepted, and DATA is read to its dot.
func serveSMTP(conn net.Conn, got func()) {
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	tp := textproto.NewConn(conn)
	tp.PrintfLine("220 localhost gpucost example sink")
	for {
		line, err := tp.ReadLine()
		if err != nil {
			return
		}
		switch verb := strings.ToUpper(strings.SplitN(line, " ", 2)[0]); verb {
		case "EHLO", "HELO":
			tp.PrintfLine("250 localhost")
		case "DATA":
			tp.PrintfLine("354 end with a dot")
			if _, err := tp.ReadDotBytes(); err != nil {
				return
			}
			got()
			tp.PrintfLine("250 queued")
		case "QUIT":
			tp.PrintfLine("221 bye")
			return
		default:
			tp.PrintfLine("250 ok")
		}
	}
}
