package main

import (
	"fmt"
	"log/slog"
	"time"

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
	sink, shown, err := httpapi.NewAgentSink(server, log, e.now)
	if err != nil {
		return nil, nil, "", err
	}
	if sink.Client.Token, err = httpapi.AgentToken(tokenFile, e.getenv("GPUCOST_TOKEN")); err != nil {
		return nil, nil, "", err
	}
	if !cmd.Flags().Changed("flush") {
		*flush = interval
	}
	return sink, sink.LogStats, shown, nil
}
