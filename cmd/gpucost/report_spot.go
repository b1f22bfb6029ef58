package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/internal/storeopen"
	"github.com/gpucost/gpucost/present"
	"github.com/gpucost/gpucost/spot"
	"github.com/gpucost/gpucost/spotrisk"
	"github.com/spf13/cobra"
)

func newReportSpotCmd(e *env) *cobra.Command {
	var storeURL string
	cmd := &cobra.Command{
		Use:   "spot --store URL",
		Short: "Spot interruptions per pool, measured from gpucost run's events, against the Spot Instance Advisor",
		Long: `spot reads the events "gpucost run" stored for every job and shows, per pool (provider, instance
type, region, zone) its spot runs used: the instance-hours they ran, their interruptions
(terminate notices, and runs that vanished without an exit), the rate per instance-hour with its
exact 95% Poisson (Garwood) interval, the Spot Instance Advisor's bucket for the pool's region
and type (after catalog import --format aws-spot-advisor), the spot price trend from the first
run to the last, the measured checkpoint overhead (billable time beyond the training kept in
stored checkpoints), and the saving against on-demand after it. These rates are what
--interruption-rate auto of plan checkpoint, plan autoscale and plan fleet use
(docs/architecture.md "Spot risk").`,
		Example: `  gpucost report spot --store s3://my-bucket/jobs
  gpucost report spot --store file:///mnt/nfs/jobs --output json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: e.printing(func(cmd *cobra.Command, args []string) (result, error) {
			rates, skipped, err := spotRates(cmd.Context(), e, storeURL)
			if err != nil {
				return result{}, err
			}
			adv, err := spotAdvisor(cmd.Context(), e)
			if err != nil {
				return result{}, err
			}
			return present.SpotPools(rates, adv, skipped), nil
		}),
	}
	cmd.Flags().StringVar(&storeURL, "store", "", "the store gpucost run wrote to: s3://BUCKET/PREFIX, file://PATH or a directory (required)")
	cmd.MarkFlagRequired("store")
	return cmd
}

// spotRates reads the events of every job in the object store storeURL names and measures each
// pool's interruption rate (spotrisk.Measure).
func spotRates(ctx context.Context, e *env, storeURL string) ([]spotrisk.Rate, int, error) {
	store, err := openObjectStore(ctx, e, storeURL)
	if err != nil {
		return nil, 0, err
	}
	jobs, err := spot.Jobs(ctx, store)
	if err != nil {
		return nil, 0, gpucost.Errorf(gpucost.EUnavailable, "store %s: %w", storeURL, err)
	}
	log := slog.New(slog.NewTextHandler(e.stderr, nil))
	var exps []spotrisk.Exposure
	skipped := 0
	for _, job := range jobs {
		events, n, err := spot.ReadEvents(ctx, store, job, log)
		if err != nil {
			return nil, 0, gpucost.Errorf(gpucost.EUnavailable, "store %s: %w", storeURL, err)
		}
		skipped += n
		exps = append(exps, spotrisk.FromEvents(job, events)...)
	}
	if len(exps) == 0 {
		return nil, skipped, gpucost.Errorf(gpucost.ENotFound, "store %s has no spot runs; jobs run on spot with \"gpucost run --store %s\" record them", storeURL, storeURL)
	}
	return spotrisk.Measure(exps, spotrisk.DefaultConfidence), skipped, nil
}

// spotAdvisor returns the Spot Instance Advisor data kept in the --db store, nil when there is
// none (or no store yet).
func spotAdvisor(ctx context.Context, e *env) (*catalog.SpotAdvisor, error) {
	if storeopen.Missing(e.dbPath) {
		return nil, nil
	}
	return fromStore(ctx, e, func(db storeDB) (*catalog.SpotAdvisor, error) {
		s, err := db.Setting(ctx, catalog.SettingSpotAdvisor, "")
		if err != nil {
			return nil, err
		}
		return catalog.DecodeSpotAdvisor(s)
	})
}

// importSpotAdvisor reads the Spot Instance Advisor's JSON at path and keeps it in the --db
// store for report spot and --interruption-rate auto.
func importSpotAdvisor(ctx context.Context, e *env, paths []string) (result, error) {
	if len(paths) != 1 {
		return result{}, gpucost.Errorf(gpucost.EInvalid, "--format %s takes one file, spot-advisor-data.json; got %d", catalog.FormatAWSSpotAdvisor, len(paths))
	}
	adv, err := catalog.ReadSpotAdvisorFile(paths[0])
	if err != nil {
		return result{}, err
	}
	return putSpotAdvisor(ctx, e, adv)
}

// putSpotAdvisor keeps adv in the --db store and says what it holds.
func putSpotAdvisor(ctx context.Context, e *env, adv *catalog.SpotAdvisor) (result, error) {
	doc, err := adv.Encode()
	if err != nil {
		return result{}, err
	}
	if err := e.withStore(ctx, func(db storeDB) error { return db.SetSetting(ctx, catalog.SettingSpotAdvisor, doc) }); err != nil {
		return result{}, err
	}
	t := result{Title: "Spot Instance Advisor data", Columns: []string{"Bucket", "Monthly interrupted", "Rate per instance-hour", "Pools"}, Right: []int{3}}
	counts := make([]int, len(adv.Buckets))
	for _, types := range adv.Regions {
		for _, en := range types {
			counts[en.Bucket]++
		}
	}
	for i, b := range adv.Buckets {
		lo, hi := b.RangePerHour()
		rng := spotrisk.FormatRate(lo) + "–" + spotrisk.FormatRate(hi)
		months := fmt.Sprintf("%g–%g%%", b.LowPct, b.HighPct)
		if b.Open {
			rng, months = "≥ "+spotrisk.FormatRate(lo), fmt.Sprintf("≥ %g%%", b.LowPct)
		}
		t.Rows = append(t.Rows, []string{b.Label, months, fmt.Sprintf("%s (used: %s)", rng, spotrisk.FormatRate(b.PerHour())), fmt.Sprint(counts[i])})
	}
	t.Notes = append(t.Notes, fmt.Sprintf("%d Linux pools in %d regions from %s kept for report spot and --interruption-rate auto.", adv.Pools(), len(adv.Regions), adv.Source))
	return t, nil
}
