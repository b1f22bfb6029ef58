package main

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/agent"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/telemetry"
	"github.com/spf13/cobra"
)

// agentSink returns where the agent writes: the store named by --db, or with server the
// gpucost server at that URL. With a server and no --flush given, the agent pushes on every
// sample.
func (e *env) agentSink(cmd *cobra.Command, server, tokenFile string, keepMinutes time.Duration,
	flush *time.Duration, interval time.Duration, log *slog.Logger) (agent.Sink, func(), string, error) {
	ctx := cmd.Context()
	if server == "" {
		if tokenFile != "" {
			return nil, nil, "", usageError{fmt.Errorf("--token-file needs --server")}
		}
		db, err := e.openDB(ctx)
		if err != nil {
			return nil, nil, "", err
		}
		w, err := e.rollupWriter(ctx, db)
		if err != nil {
			db.Close()
			return nil, nil, "", err
		}
		sink := &agent.PruningSink{Writer: w, Store: db, Retention: telemetry.Retention{Minutes: keepMinutes}, Now: e.now, Log: log}
		return sink, func() { db.Close() }, e.dbPath, nil
	}
	u, err := url.Parse(server)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, nil, "", usageError{fmt.Errorf("--server %q: use a URL such as http://gpucost:8080", server)}
	}
	token, err := e.agentToken(tokenFile)
	if err != nil {
		return nil, nil, "", err
	}
	if !cmd.Flags().Changed("flush") {
		*flush = interval
	}
	client := &httpapi.Client{URL: server, Token: token, HTTP: &http.Client{Timeout: 30 * time.Second}}
	sink := &httpapi.RemoteSink{Client: client, Log: log, Now: e.now}
	logStats := func() {
		st := sink.Stats()
		log.Info("pushed to server", "sent", st.Sent, "skipped_by_server", st.Skipped, "dropped_buffer_full", st.Dropped,
			"rejected", st.Rejected, "failed_posts", st.Failures, "undelivered", sink.Held())
	}
	return sink, logStats, u.Redacted(), nil
}

// agentToken reads the ingest token from tokenFile, else $GPUCOST_TOKEN.
func (e *env) agentToken(tokenFile string) (string, error) {
	if tokenFile != "" {
		b, err := os.ReadFile(tokenFile)
		if err != nil {
			return "", gpucost.Errorf(gpucost.EInvalid, "--token-file: %w", err)
		}
		if t := strings.TrimSpace(string(b)); t != "" {
			return t, nil
		}
		return "", gpucost.Errorf(gpucost.EInvalid, "--token-file %s is empty: put the secret gpucost token create printed in it", tokenFile)
	}
	if t := strings.TrimSpace(e.getenv("GPUCOST_TOKEN")); t != "" {
		return t, nil
	}
	return "", gpucost.Errorf(gpucost.EInvalid, "--server needs a token: set $GPUCOST_TOKEN or --token-file (gpucost token create --role ingest)")
}
