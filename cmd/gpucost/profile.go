package main

import (
	"log/slog"
	"os/exec"
	"time"

	"github.com/gpucost/gpucost/present"
	"github.com/gpucost/gpucost/profile"
	"github.com/gpucost/gpucost/telemetry/nvml"
	"github.com/gpucost/gpucost/telemetry/source"
	"github.com/spf13/cobra"
)

func newProfileCmd(e *env) *cobra.Command {
	var (
		src      string
		interval time.Duration
	)
	cmd := &cobra.Command{
		Use:   "profile [flags] -- CMD [ARGS...]",
		Short: "Run a command and report how well it used its GPUs",
		Long: `profile runs CMD, samples the GPUs its processes use every --interval (every GPU on the
host when the source cannot tell processes apart), and prints utilisation p50/p95/mean, VRAM
peak and p95, mean power, the verdict (mean < 25% overprovisioned, < 60% underutilized, else
well utilized) and the cheapest catalog GPU that holds the VRAM peak with 20% headroom.
With NVML the utilisation and VRAM are CMD's own process tree's (its share of SM time from
NVML's per-process samples, its processes' memory; on MIG, its instance's), and the other
processes on its GPUs are named with their share ("shared with pid 434 (88% SM)"). Other
sources see only whole GPUs, and the output says so ("attribution: the whole GPU").
It exits with CMD's exit code.`,
		Example: `  gpucost profile -- python train.py --epochs 1
  gpucost profile --interval 500ms --output json -- ./bench.sh`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := firstError(e.validOutput(), durAtLeast("interval", interval, 1)); err != nil {
				return err
			}
			ctx := cmd.Context()
			log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
			s, err := source.Open(src, source.Options{Interval: interval, Now: e.now, Log: log})
			if err != nil {
				return err
			}
			defer s.Close()
			child := exec.Command(args[0], args[1:]...)
			child.Stdin, child.Stdout, child.Stderr = e.stdin, e.stdout, e.stderr
			p := &profile.Profiler{Source: s, Interval: interval, Processes: s.Processes}
			if c, ok := s.Collector.(*nvml.Collector); ok {
				p.Read = profile.NVML(c) // the command's own share, from NVML's per-process samples
			}
			res, err := p.Run(ctx, child)
			if err != nil {
				return err
			}
			if err := e.print(present.Profile(res, profile.CheapestFit(res))); err != nil {
				return err
			}
			if res.ExitCode != 0 {
				return exitError{res.ExitCode}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&src, "source", "auto", source.Help)
	cmd.Flags().DurationVar(&interval, "interval", time.Second, "time between samples")
	return cmd
}
