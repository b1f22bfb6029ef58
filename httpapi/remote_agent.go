package httpapi

import (
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/gpucost/gpucost"
)

// NewAgentSink returns the sink gpucost agent --server pushes its samples through: to the
// gpucost server at serverURL, each post timing out after 30 s, once the caller has set the
// ingest token (Client.Token); and the server's URL for people, any password redacted. It
// returns an EInvalid error for a URL that is not http:// or https:// with a host.
func NewAgentSink(serverURL string, log *slog.Logger, now func() time.Time) (*RemoteSink, string, error) {
	u, err := url.Parse(serverURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, "", gpucost.Errorf(gpucost.EInvalid, "--server %q: use a URL such as http://gpucost:8080", serverURL)
	}
	client := &Client{URL: serverURL, HTTP: &http.Client{Timeout: 30 * time.Second}}
	return &RemoteSink{Client: client, Log: log, Now: now}, u.Redacted(), nil
}

// LogStats logs what the sink pushed and what it still holds, as the agent stops.
func (r *RemoteSink) LogStats() {
	if r.Log == nil {
		return
	}
	st := r.Stats()
	r.Log.Info("pushed to server", "sent", st.Sent, "skipped_by_server", st.Skipped, "dropped_buffer_full", st.Dropped,
		"rejected", st.Rejected, "failed_posts", st.Failures, "undelivered", r.Held())
}
