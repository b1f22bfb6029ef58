package main

import (
	"fmt"
	"log/slog"
	"os/exec"
	"strings"
	"time"

	"github.com/gpucost/gpucost/profile"
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
It exits with CMD's exit code.`,
		Example: `  gpucost profile -- python train.py --epochs 1
  gpucost profile --interval 500ms --output json -- ./bench.sh`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := e.validOutput(); err != nil {
				return err
			}
			ctx := cmd.Context()
			log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
			s, err := e.openSource(src, interval, log)
			if err != nil {
				return err
			}
			defer s.Close()
			child := exec.Command(args[0], args[1:]...)
			child.Stdin, child.Stdout, child.Stderr = e.stdin, e.stdout, e.stderr
			p := &profile.Profiler{Source: s, Interval: interval, Processes: s.processes}
			res, err := p.Run(ctx, child)
			if err != nil {
				return err
			}
			if err := e.print(e.profileResult(res)); err != nil {
				return err
			}
			if res.ExitCode != 0 {
				return exitError{res.ExitCode}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&src, "source", "auto", sourceHelp)
	cmd.Flags().DurationVar(&interval, "interval", time.Second, "time between samples")
	return cmd
}

// profileResult shows a profiled run, with the cheapest GPU that fits its VRAM peak.
func (e *env) profileResult(res profile.Result) result {
	fit := profile.CheapestFit(res)
	r := result{
		Title:   "gpucost profile: " + strings.Join(res.Command, " "),
		Columns: []string{"Measure", "Value"},
		JSON: struct {
			profile.Result
			Fit *profile.Fit `json:"cheapest_fit,omitempty"`
		}{res, fit},
	}
	add := func(k, v string) { r.Rows = append(r.Rows, []string{k, v}) }
	add("exit code", fmt.Sprint(res.ExitCode))
	add("duration", res.Duration.Round(time.Millisecond).String())
	add("GPUs", fmt.Sprintf("%d %s", len(res.GPUs), strings.Join(res.Models, ", ")))
	add("samples", fmt.Sprint(res.Samples))
	if res.Samples == 0 {
		add("verdict", res.Verdict)
		if res.SourceErr != "" {
			r.Notes = append(r.Notes, "GPU source failed: "+res.SourceErr)
		}
		return r
	}
	add("util mean / p50 / p95", fmt.Sprintf("%.1f%% / %.0f%% / %.0f%%", res.UtilMean, res.UtilP50, res.UtilP95))
	add("VRAM peak / p95", fmt.Sprintf("%s / %s of %s", gib(res.MemPeakMiB), gib(res.MemP95MiB), gib(res.MemTotal)))
	add("power mean", fmt.Sprintf("%.0f W", res.PowerMeanW))
	add("verdict", res.Verdict)
	if fit != nil {
		add("cheapest fit (peak + 20%)", fmt.Sprintf("%s %s/GPU-h (%s %s %s)", fit.GPU, fit.PerGPUHour, fit.Provider, fit.InstanceType, fit.Region))
	}
	if res.AllGPUs {
		r.Notes = append(r.Notes, "The source could not tell which GPUs the command used; every GPU on the host was sampled.")
	}
	return r
}

func gib(mib float64) string { return fmt.Sprintf("%.1f GiB", mib/1024) }
