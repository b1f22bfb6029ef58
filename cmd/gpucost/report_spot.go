package main

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/internal/storeopen"
	"github.com/gpucost/gpucost/notify"
	"github.com/gpucost/gpucost/plan"
	"github.com/gpucost/gpucost/present"
	"github.com/gpucost/gpucost/spot"
	"github.com/gpucost/gpucost/spotrisk"
	"github.com/gpucost/gpucost/spotrisk/alert"
	"github.com/spf13/cobra"
)

// reportSpotHelp is the command's --help text.
var reportSpotHelp = `spot reads the events "gpucost run" stored for every job (--store) and the spot lines of the bill
in the --db store (--bill-since, 90 days by default), and shows, per pool (provider, instance
type, region, zone) its spot instances used: where its figures come from (runs, bill or both),
the instance-hours, the interruptions, the rate per instance-hour with its exact 95% Poisson
(Garwood) interval, the Spot Instance Advisor's bucket for the pool's region and type (after
catalog import --format aws-spot-advisor), the spot price trend over 30 days (the first week's
mean price against the last week's, from the prices catalog refresh keeps), the measured
checkpoint overhead (billable time beyond the training kept in stored checkpoints), and the
saving against on-demand after it. These rates are what --interruption-rate auto of plan
checkpoint, plan autoscale and plan fleet use (docs/architecture.md "Spot risk").

Runs count a terminate notice, or a run that vanished without an exit, as an interruption. The
bill shows when each spot instance ran, not why it ended: it counts an end as an interruption
only where another instance of the same workload (provider, region, instance type and tags)
started within the hour after it, and says how many ends it saw in all, the most the
interruptions can be. An instance whose ID a run recorded is counted by its run alone. --zones
takes the output of aws ec2 describe-availability-zones --output json, to match zone names
(us-east-1a) with zone IDs (use1-az4) where the runner did not record both.

The interruption alert: a pool whose spot runs were interrupted, over the --alert-window before
now, at least twice at a rate whose expected interruptions per instance over the window reach
--alert-threshold (25% in 6 h by default) is listed under the table with the jobs it hit and
pools of its instance type to move to (measured lower, or in the advisor's two lowest buckets).
--rules FILE sets the rule as its spot_interruptions entry does (threshold, window,
min_interruptions, disabled); the two flags win over it. --targets sends each such alert to the
notification targets, once per pool and episode (interruptions no more than the window apart),
recorded in the store's delivery log like the budget alerts.`

func newReportSpotCmd(e *env) *cobra.Command {
	var (
		storeURL, targets string
		billSince, zones  string
		rule              = spotrisk.DefaultInterruptionRule
		threshold         string
		rulesFile         string // --rules: spot_interruptions of an alert rules file
	)
	cmd := &cobra.Command{
		Use:   "spot [--store URL]",
		Short: "Spot interruptions per pool, measured from gpucost run's events and the bill, against the Spot Instance Advisor",
		Long:  reportSpotHelp,
		Example: `  gpucost report spot --store s3://my-bucket/jobs
  gpucost report spot --store file:///mnt/nfs/jobs --output json
  gpucost report spot --store s3://my-bucket/jobs --bill-since 30d --zones zones.json
  gpucost report spot --store s3://my-bucket/jobs --targets targets.yaml`,
		Args: usageArgs(cobra.NoArgs),
		RunE: e.printing(func(cmd *cobra.Command, args []string) (result, error) {
			if err := firstError(durAtLeast("alert-window", rule.Window, 1), parseOptional(&rule.Threshold, "alert-threshold", threshold, plan.ParseShare)); err != nil {
				return result{}, err
			}
			alertOn, err := spotRuleFromFile(cmd, rulesFile, &rule)
			if err != nil {
				return result{}, err
			}
			ctx := cmd.Context()
			m, err := e.measureSpot(ctx, storeURL, billSince, zones)
			if err != nil {
				return result{}, err
			}
			if len(m.rates) == 0 {
				return result{}, gpucost.Errorf(gpucost.ENotFound, "no spot instance to measure: %s; jobs run on spot with \"gpucost run --store URL\" record their runs (report spot --store URL reads them), and bills imported with gpucost import billing show spot instances' hours",
					spotNothing(storeURL, billSince, m.bill))
			}
			adv, err := spotAdvisor(ctx, e)
			if err != nil {
				return result{}, err
			}
			history, err := spotPriceHistory(ctx, e)
			if err != nil {
				return result{}, err
			}
			out := present.SpotPools(present.SpotReport{Rates: m.rates, Advisor: adv, Zones: m.zones, History: history, Now: e.now(),
				Skipped: m.skipped, BillFrom: m.bill.From, BillLines: m.bill.Lines, BillSkipped: m.bill.Skipped, BillCounted: m.bill.Counted})
			var alerts []spotrisk.InterruptionAlert
			if alertOn {
				alerts = spotrisk.CheckInterruptions(m.jobs, e.now(), rule, adv)
			}
			out.Notes = append(out.Notes, present.SpotAlertNotes(alerts, rule, alertOn, rulesFile, len(m.jobs) > 0, e.now())...)
			if targets != "" {
				return out, e.sendSpotAlerts(ctx, targets, alerts)
			}
			return out, nil
		}),
	}
	cmd.Flags().StringVar(&storeURL, "store", "", "the store gpucost run wrote to: s3://BUCKET/PREFIX, file://PATH or a directory")
	cmd.Flags().StringVar(&billSince, "bill-since", defaultBillSince, "read the --db store's bill lines charged since then (90d, 2025-10-01), or none")
	cmd.Flags().StringVar(&zones, "zones", "", "aws ec2 describe-availability-zones --output json: matches zone names with zone IDs")
	cmd.Flags().DurationVar(&rule.Window, "alert-window", rule.Window, "the interruption alert's window before now")
	cmd.Flags().StringVar(&threshold, "alert-threshold", "", "the interruption alert's threshold: expected interruptions per instance over the window (default 25%)")
	cmd.Flags().StringVar(&rulesFile, "rules", "", "alert rules YAML file whose spot_interruptions sets the interruption alert (as report alerts --rules takes)")
	cmd.Flags().StringVar(&targets, "targets", "", "notification targets YAML file: send the interruption alerts there")
	return cmd
}

// spotNothing says where report spot looked and found no spot instance.
func spotNothing(storeURL, billSince string, b spotBillRead) string {
	runs := "no --store given"
	if storeURL != "" {
		runs = "store " + storeURL + " has no spot runs"
	}
	switch {
	case billSince == "none":
		return runs + ", and --bill-since none leaves the bill out"
	case b.From.IsZero():
		return runs + ", and there is no --db store with a bill"
	}
	return fmt.Sprintf("%s, and the bill has no spot instance-hours charged since %s", runs, b.From.UTC().Format(time.DateOnly))
}

// spotJobEvents reads the events of every job in the object store storeURL names, by job. It
// returns an ENotFound error when no job ran on spot.
func spotJobEvents(ctx context.Context, e *env, storeURL string) (map[string][]spot.Event, int, error) {
	store, err := openObjectStore(ctx, e, storeURL)
	if err != nil {
		return nil, 0, err
	}
	jobs, skipped, err := spot.AllEvents(ctx, store, storeURL, slog.New(slog.NewTextHandler(e.stderr, nil)))
	if err != nil {
		return nil, 0, err
	}
	if spotrisk.SpotRuns(jobs) == 0 {
		return nil, skipped, gpucost.Errorf(gpucost.ENotFound, "store %s has no spot runs; jobs run on spot with \"gpucost run --store %s\" record them", storeURL, storeURL)
	}
	return jobs, skipped, nil
}

// sendSpotAlerts sends each alert to every target in the targets file, once per target as the
// --db store's delivery log records.
func (e *env) sendSpotAlerts(ctx context.Context, path string, alerts []spotrisk.InterruptionAlert) error {
	targets, err := e.loadTargets(path)
	if err != nil || len(alerts) == 0 {
		return err
	}
	names := slices.Sorted(maps.Keys(targets))
	return e.withStore(ctx, func(db storeDB) error {
		d := &notify.Dispatcher{Targets: targets, Log: db, Logger: slog.New(slog.NewTextHandler(e.stderr, nil)), Now: e.now}
		return alert.Send(ctx, d, alerts, names...)
	})
}

// spotAdvisor returns the Spot Instance Advisor data kept in the --db store, nil when there is
// none (or no store yet).
func spotAdvisor(ctx context.Context, e *env) (*catalog.SpotAdvisor, error) {
	if storeopen.Missing(e.dbPath) {
		return nil, nil
	}
	return fromStore(ctx, e, func(db storeDB) (*catalog.SpotAdvisor, error) { return catalog.StoredSpotAdvisor(ctx, db) })
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
	if err := e.withStore(ctx, func(db storeDB) error { return catalog.KeepSpotAdvisor(ctx, db, adv) }); err != nil {
		return result{}, err
	}
	return present.SpotAdvisorImport(adv), nil
}
