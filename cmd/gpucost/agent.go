package main

import (
	"log/slog"
	"time"

	"github.com/gpucost/gpucost/agent"
	"github.com/gpucost/gpucost/telemetry"
	"github.com/spf13/cobra"
)

func newAgentCmd(e *env) *cobra.Command {
	var (
		src         string
		interval    time.Duration
		flush       time.Duration
		keepMinutes time.Duration
	)
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Sample GPUs on an interval and store minute and hourly rollups",
		Long: `agent reads a GPU source every --interval, rolls the samples up into minute and hourly
rollups and writes them to the store in batches every --flush. A failing source is retried
with backoff and logged once a minute; a GPU that vanishes is logged. SIGTERM or Ctrl-C
flushes what is buffered and exits 0.`,
		Example: `  gpucost agent                                   # NVML, else nvidia-smi, every 10 s
  gpucost agent --source dcgm=http://localhost:9400/metrics --interval 15s
  gpucost agent --source prometheus=http://prometheus:9090 --interval 1m
  gpucost agent --source demo:8 --interval 1s --db /tmp/try.db   # no GPU needed`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			log := slog.New(slog.NewTextHandler(e.stderr, nil))
			s, err := e.openSource(src, interval, log)
			if err != nil {
				return err
			}
			defer s.Close()
			db, err := e.openDB(ctx)
			if err != nil {
				return err
			}
			defer db.Close()
			w, err := e.rollupWriter(ctx, db)
			if err != nil {
				return err
			}
			sink := &pruningSink{Writer: w, db: db, retention: telemetry.Retention{Minutes: keepMinutes}, now: e.now, log: log}
			a := &agent.Agent{Source: s, Sink: sink, Interval: interval, FlushEvery: flush, Log: log}
			log.Info("agent started", "source", s.name, "interval", interval.String(), "db", e.dbPath)
			err = a.Run(ctx)
			log.Info("agent stopped", "polls", a.Stats.Polls, "samples", a.Stats.Samples, "source_failures", a.Stats.Failures)
			return err
		},
	}
	cmd.Flags().StringVar(&src, "source", "auto", sourceHelp)
	cmd.Flags().DurationVar(&interval, "interval", 10*time.Second, "time between samples")
	cmd.Flags().DurationVar(&flush, "flush", time.Minute, "time between writes to the store")
	cmd.Flags().DurationVar(&keepMinutes, "keep-minutes", telemetry.DefaultMinuteRetention, "how long to keep minute rollups (hourly rollups are kept)")
	return cmd
}
