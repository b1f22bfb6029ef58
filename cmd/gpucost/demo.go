package main

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/demo"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/internal/storeopen"
	"github.com/gpucost/gpucost/present"
	"github.com/spf13/cobra"
)

// demoVersion names the demo fleet's definition (demo.Version).
const demoVersion = demo.Version

func newDemoCmd(e *env) *cobra.Command {
	var (
		days    int
		fresh   bool
		noServe bool
		listen  string
	)
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Load a 30-day demo fleet and its bill, print the headlines and serve the dashboard",
		Long: `demo builds a month of telemetry for a realistic GPU fleet — 88 GPUs in five teams: small
experiments on 4×V100 p3.8xlarge machines that use one GPU, a 40×A100 serving pool at about
20% utilisation, notebooks idle every night and weekend, a weekly evaluation job holding
8 A100s for 24 hours to work for 8, and a busy H100 training node — stores the samples
that "gpucost import telemetry" reads from its dcgm-exporter text, one scrape a minute, and
prints the headline: GPUs, GPU-hours, idle share, idle cost per month and the top idle
consumers. It also writes the fleet's AWS bill for the same hours as
a FOCUS file beside the store, imports it through "gpucost import billing", and prints the spend
by team with idle capacity apart and what the recommendations would save.

Then it serves the dashboard and API on --listen (http://127.0.0.1:8080/) as gpucost serve
does, with a new admin token to sign in with, until Ctrl-C; --no-serve prints and exits.

Without --db it uses demo.db beside the default store, so demo data never mixes with yours.
A store that already holds the demo fleet is reused unless --fresh.`,
		Example: `  gpucost demo
  gpucost demo --no-serve
  gpucost demo --db /tmp/demo.db --fresh --listen 127.0.0.1:9090
  gpucost report utilization --db /tmp/demo.db --by namespace --since 30d`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := e.validOutput(); err != nil {
				return err
			}
			if days < 1 || days > 90 {
				return gpucost.Errorf(gpucost.EInvalid, "--days %d: use 1 to 90", days)
			}
			if !cmd.Flags().Changed("db") && !cmd.Root().PersistentFlags().Changed("db") && e.getenv("GPUCOST_DB") == "" {
				e.dbPath = filepath.Join(filepath.Dir(e.dbPath), "demo.db")
			}
			ctx := cmd.Context()
			end := e.now().UTC().Truncate(time.Hour)
			if err := e.loadDemo(ctx, end, days, fresh); err != nil {
				return err
			}
			if err := e.printDemoHeadline(ctx, end, days); err != nil || noServe {
				return err
			}
			return e.serveDemo(ctx, listen)
		},
	}
	cmd.Flags().IntVar(&days, "days", 30, "days of telemetry to build")
	cmd.Flags().BoolVar(&fresh, "fresh", false, "delete the store file first and build the fleet again")
	cmd.Flags().BoolVar(&noServe, "no-serve", false, "print the headlines and exit, without serving the dashboard")
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8080", "address to serve the dashboard on")
	return cmd
}

// loadDemo writes the demo fleet's telemetry and bill for the days before end into the store,
// unless the store holds them already.
func (e *env) loadDemo(ctx context.Context, end time.Time, days int, fresh bool) error {
	if fresh {
		if err := storeopen.Remove(e.dbPath); err != nil {
			return err
		}
	}
	return e.withStore(ctx, func(db storeDB) error {
		load := demo.Load{End: end, Days: days}
		if done, err := load.Loaded(ctx, db); err != nil || done {
			if done {
				fmt.Fprintf(e.stderr, "The demo fleet is already in %s (gpucost demo --fresh rebuilds it).\n", e.dbPath)
			}
			return err
		}
		w, err := e.rollupWriter(ctx, db)
		if err != nil {
			return err
		}
		fleet := load.Applied(demo.Fleet())
		// The serving pool's files and the spot jobs' events need nothing from the store: they
		// are written while the telemetry is stored, and said once it is.
		sideFiles := make(chan demoSideFiles, 1)
		go func() { sideFiles <- e.writeDemoSideFiles(ctx, load, fleet) }()
		bar := e.progress(int64(days*24), "demo fleet → "+e.dbPath, false)
		// The import allocates batch after short-lived batch: collecting at five times the live
		// heap rather than twice spends some 15% less CPU on it (BenchmarkDemoBuild's cpu-s),
		// for a peak RSS of some 280 MB rather than 120.
		gc := debug.SetGCPercent(400)
		stats, err := load.ImportTelemetry(ctx, w, fleet, func() { bar.Add(1) })
		debug.SetGCPercent(gc)
		bar.Finish()
		side := <-sideFiles
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "Imported %d samples of %d GPUs over %d days, one a minute: %d rollups.\n",
			stats.Samples, demo.GPUs(fleet), days, stats.Rollups)
		if err := e.loadDemoBill(ctx, db, load, fleet); err != nil {
			return fmt.Errorf("load the demo bill: %w", err)
		}
		if side.err != nil {
			return side.err
		}
		fmt.Fprint(e.stderr, side.said)
		if err := e.applyDemoStep(ctx, db, load); err != nil {
			return fmt.Errorf("apply the demo's step: %w", err)
		}
		return load.MarkLoaded(ctx, db)
	})
}

// printDemoHeadline prints the demo fleet's headline and its spend by team, from one fleet
// snapshot of the days before end, so both say the same.
func (e *env) printDemoHeadline(ctx context.Context, end time.Time, days int) error {
	from := demo.Load{End: end, Days: days}.From()
	// Bills are stored by day: the snapshot starts at the midnight of the first day, before
	// which the demo has no data, so it holds the first day's bill line whole.
	p := fleet.Period{Start: from.Truncate(24 * time.Hour), End: end}
	rc, err := e.openReport(ctx, p, "aws")
	if err != nil {
		return err
	}
	defer rc.close()
	by, _ := analyze.ParseGroupBy("namespace")
	rep, snap, err := rc.Utilization(ctx, by, nil)
	if err != nil {
		return err
	}
	if err := e.print(present.DemoHeadline(rep, by, snap, days, e.dbPath)); err != nil {
		return err
	}
	if charged, bill, ok := snap.Reconcile(); !ok {
		return gpucost.Errorf(gpucost.EInternal, "pricing the demo's GPU-hours: the charges sum to %v, the bill lines to %v", charged, bill)
	}
	f := recommendFlags{costFlags: costFlags{period: period{at: snap.Period}, policy: gpucost.PolicyUsed, weight: 0.5}, minSaving: "100"}
	saving, err := e.savings(ctx, &f)
	if err != nil {
		return err
	}
	if err := e.print(present.DemoSpend(snap, filepath.Base(e.demoFiles().Bill), present.SavingsSentence(saving), e.dbPath, e.demoFiles().Serving)); err != nil {
		return err
	}
	return e.printDemoRealized(ctx, end)
}
