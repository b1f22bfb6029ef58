package httpapi

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// TestNewAgentSink checks the agent's sink: the server's URL with its password redacted, the
// URLs refused, and the line LogStats logs.
func TestNewAgentSink(t *testing.T) {
	var logged bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	sink, shown, err := NewAgentSink("https://agent:s3cret@gpucost.example:8443", log, time.Now)
	if err != nil || shown != "https://agent:xxxxx@gpucost.example:8443" || sink.Client.URL != "https://agent:s3cret@gpucost.example:8443" || sink.Client.HTTP.Timeout != 30*time.Second {
		t.Fatalf("NewAgentSink(https URL with a password) = %+v, %q, %v", sink, shown, err)
	}
	sink.LogStats()
	if !strings.Contains(logged.String(), "pushed to server") || !strings.Contains(logged.String(), "sent=0") || !strings.Contains(logged.String(), "undelivered=0") {
		t.Errorf("LogStats logged %q; want what was sent and what is held", logged.String())
	}
	for _, bad := range []string{"gpucost:8080", "ftp://gpucost", "http://", "://x"} {
		if _, _, err := NewAgentSink(bad, log, time.Now); gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "use a URL such as http://gpucost:8080") {
			t.Errorf("NewAgentSink(%q) = %v; want %s asking for a URL", bad, err, gpucost.EInvalid)
		}
	}
	(&RemoteSink{}).LogStats() // no log: nothing to do, no panic
}
