package main

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/telemetry"
	"github.com/spf13/cobra"
)

// isPostgresURL reports whether --db names a PostgreSQL database rather than a SQLite file.
func isPostgresURL(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// serveOptions are gpucost serve's settings.
type serveOptions struct {
	listen      string
	flush       time.Duration // between writes of ingested samples to the store
	keepMinutes time.Duration
}

func newServeCmd(e *env) *cobra.Command {
	var o serveOptions
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the gpucost server: the API agents push samples to",
		Long: `serve runs gpucost's HTTP API over the store named by --db: a SQLite file, or a
postgres:// (or postgresql://) URL for a PostgreSQL database that several server replicas
share (pool size and timeouts as URL parameters, such as ?pool_max_conns=20). Agents push samples with
gpucost agent --server URL and an ingest token (gpucost token create --role ingest); the
samples are rolled up and written every --flush, and on shutdown. /healthz and /readyz need
no token; /api/openapi.json describes every endpoint. /metrics serves Prometheus metrics to a
viewer token: the server's health, and GPU-hours and idle per namespace over the last hour and
month-to-date cost per team, computed from the store at most once a minute. SIGTERM or
Ctrl-C finishes the requests in flight, writes what is held and exits 0.`,
		Example: `  gpucost serve --db /var/lib/gpucost/gpucost.db --listen 0.0.0.0:8080
  gpucost serve --db postgres://gpucost:PASSWORD@db.internal:5432/gpucost --listen 0.0.0.0:8080
  gpucost token create --name node-1 --role ingest   # then on the GPU host:
  GPUCOST_TOKEN=gpc_… gpucost agent --server http://gpucost:8080`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			db, err := e.openDB(ctx)
			if err != nil {
				return err
			}
			defer db.Close()
			ln, err := net.Listen("tcp", o.listen)
			if err != nil {
				return gpucost.Errorf(gpucost.EUnavailable, "--listen %s: %w", o.listen, err)
			}
			return e.serve(ctx, db, ln, o)
		},
	}
	cmd.Flags().StringVar(&o.listen, "listen", "127.0.0.1:8080", "address to serve on")
	cmd.Flags().DurationVar(&o.flush, "flush", 5*time.Second, "time between writes of pushed samples to the store")
	cmd.Flags().DurationVar(&o.keepMinutes, "keep-minutes", telemetry.DefaultMinuteRetention, "how long to keep minute rollups (hourly rollups are kept)")
	return cmd
}

// serve serves the API on ln over db until ctx is done, then writes every sample held. Tests
// call it with a listener on port 0.
func (e *env) serve(ctx context.Context, db storeDB, ln net.Listener, o serveOptions) error {
	log := slog.New(slog.NewTextHandler(e.stderr, nil))
	w, err := e.rollupWriter(ctx, db)
	if err != nil {
		ln.Close()
		return err
	}
	sink := &pruningSink{Writer: w, db: db, retention: telemetry.Retention{Minutes: o.keepMinutes}, now: e.now, log: log}
	queue := &httpapi.Queue{Next: w, Log: log}
	var flushErrors atomic.Int64
	srv := &httpapi.Server{Tokens: db, Ingest: queue, Ready: db.Ping, Log: log, Now: e.now,
		QueueDepth: queue.Held, FlushErrors: flushErrors.Load, Fleet: e.fleetMetrics}

	// Requests queue samples; one goroutine adds them to the writer, another flushes it. On
	// shutdown: the server first finishes its requests, then the queue empties, then the
	// writer writes everything.
	background, stopBackground := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(func() { queue.Run(background) })
	wg.Go(func() { flushEvery(background, sink, max(o.flush, 100*time.Millisecond), log, &flushErrors) })

	log.Info("serving", "addr", ln.Addr().String(), "db", storeName(db))
	serveErr := srv.Serve(ctx, ln)
	stopBackground()
	wg.Wait()

	final, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	closeErr := w.Close(final)
	st := w.Stats()
	log.Info("server stopped", "rollups_written", st.Written, "rollups_merged", st.Merged, "samples_skipped", w.Skipped())
	if serveErr != nil {
		return serveErr
	}
	return closeErr
}

// flushEvery writes the held samples on each tick until ctx is done. A failing store is
// counted in failed (for /metrics) and logged; the writer keeps the samples and tries again on
// the next tick.
func flushEvery(ctx context.Context, sink *pruningSink, every time.Duration, log *slog.Logger, failed *atomic.Int64) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := sink.Flush(ctx); err != nil && ctx.Err() == nil {
				failed.Add(1)
				log.Error("write pushed samples to the store; retrying on the next flush", "err", err)
			}
		}
	}
}
