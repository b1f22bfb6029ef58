package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestSlackPayloadGolden(t *testing.T) {
	got, err := SlackPayload(testMessage())
	if err != nil {
		t.Fatalf("SlackPayload() = %v", err)
	}
	golden := filepath.Join("testdata", "slack.golden.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("read golden (run go test ./notify -run TestSlackPayloadGolden -update): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("SlackPayload() =\n%s\nwant (%s)\n%s", got, golden, want)
	}
}

func TestSlackSend(t *testing.T) {
	rcv := newReceiver(t, "", testAt, func(n int, w http.ResponseWriter) {
		if n == 2 {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte("no_service"))
			return
		}
		_, _ = w.Write([]byte("ok"))
	})
	s := &Slack{URL: rcv.URL + "/services/T000/B000/XXXXSECRETXXXX"}
	if err := s.Send(context.Background(), testMessage()); err != nil {
		t.Fatalf("Send() = %v", err)
	}
	var p slackPayload
	if err := json.Unmarshal(rcv.bodies[0], &p); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if p.Text == "" || len(p.Attachments) != 1 || len(p.Attachments[0].Fields) != 3 {
		t.Errorf("payload = %+v, want text and one attachment with 3 fields", p)
	}
	err := s.Send(context.Background(), testMessage())
	var se *StatusError
	if !errors.As(err, &se) || se.Code != 404 || se.Body != "no_service" || se.Temporary() {
		t.Fatalf("Send() to a deleted hook = %v, want permanent StatusError 404 no_service", err)
	}
	if bytes.Contains([]byte(err.Error()), []byte("XXXXSECRETXXXX")) {
		t.Errorf("error %q shows the hook token", err)
	}
}
