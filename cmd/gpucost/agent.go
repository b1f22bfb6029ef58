package main

import (
	"log/slog"
	"time"

	"github.com/gpucost/gpucost/agent"
	"github.com/gpucost/gpucost/telemetry"
	"github.com/gpucost/gpucost/telemetry/source"
	"github.com/spf13/cobra"
)

func newAgentCmd(e *env) *cobra.Command {
	var (
		src         string
		interval    time.Duration
		flush       time.Duration
		keepMinutes time.Duration
		server      string
		tokenFile   string
	)
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Sample GPUs on an interval and store minute and hourly rollups",
		Long: `agent reads a GPU source every --interval, rolls the samples up into minute and hourly
rollups and writes them to the store in batches every --flush. A failing source is retried
with backoff and logged once a minute; a GPU that vanishes is logged. SIGTERM or Ctrl-C
flushes what is buffered and exits 0.

With --server the agent pushes its samples, gzip'd, to gpucost serve instead of writing a
store, with the ingest token in $GPUCOST_TOKEN or --token-file. While the server is away the
samples are held in memory (100,000 at most, the oldest dropped beyond that with a warning)
and sent when it is back.`,
		Example: `  gpucost agent                                   # NVML, else nvidia-smi, every 10 s
  gpucost agent --source dcgm=http://localhost:9400/metrics --interval 15s
  gpucost agent --source prometheus=http://prometheus:9090 --interval 1m
  gpucost agent --source demo:8 --interval 1s --db /tmp/try.db   # no GPU needed
  GPUCOST_TOKEN=gpc_… gpucost agent --server http://gpucost:8080  # push to gpucost serve`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if err := firstError(durAtLeast("interval", interval, 1), durAtLeast("flush", flush, 1), durAtLeast("keep-minutes", keepMinutes, 1)); err != nil {
				return err
			}
			log := slog.New(slog.NewTextHandler(e.stderr, nil))
			s, err := source.Open(src, source.Options{Interval: interval, Now: e.now, Log: log})
			if err != nil {
				return err
			}
			defer s.Close()
			sink, closeSink, where, err := e.agentSink(cmd, server, tokenFile, keepMinutes, &flush, interval, log)
			if err != nil {
				return err
			}
			defer closeSink()
			a := &agent.Agent{Source: s, Sink: sink, Interval: interval, FlushEvery: flush, Log: log}
			log.Info("agent started", "source", s.Name, "interval", interval.String(), "to", where)
			err = a.Run(ctx)
			log.Info("agent stopped", "polls", a.Stats.Polls, "samples", a.Stats.Samples, "source_failures", a.Stats.Failures)
			return err
		},
	}
	cmd.Flags().StringVar(&src, "source", "auto", source.Help)
	cmd.Flags().DurationVar(&interval, "interval", 10*time.Second, "time between samples")
	cmd.Flags().DurationVar(&flush, "flush", time.Minute, "time between writes to the store")
	cmd.Flags().StringVar(&server, "server", "", "push samples to this gpucost server (URL) instead of writing --db")
	cmd.Flags().StringVar(&tokenFile, "token-file", "", "file holding the ingest token for --server (default: $GPUCOST_TOKEN)")
	cmd.Flags().DurationVar(&keepMinutes, "keep-minutes", telemetry.DefaultMinuteRetention, "how long to keep minute rollups (hourly rollups are kept)")
	return cmd
}
