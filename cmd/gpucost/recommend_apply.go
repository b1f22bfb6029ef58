package main

import (
	"context"
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/present"
	"github.com/gpucost/gpucost/query"
	"github.com/gpucost/gpucost/recommend"
	"github.com/spf13/cobra"
)

func newRecommendApplyCmd(e *env) *cobra.Command {
	var (
		f        recommendFlags
		at, note string
	)
	cmd := &cobra.Command{
		Use:   "apply ID",
		Short: "Record that a step of the plan was made, so its saving is measured on the bill",
		Long: `apply records that the plan step ID (as gpucost recommend lists it: group/lever/target) was
made at --at (default now), with what the plan predicted for it and the workload it changes.
gpucost report savings --realized then measures on later bills what it saved. The plan is the
one over the 30 days before --at (from the bill's first day, where it starts later), or over
--since and --until where given. The record is kept in the audit log.`,
		Example: `  gpucost recommend apply research-p3.8xlarge/spot/spot-g6e.2xlarge
  gpucost recommend apply eval-p4d.24xlarge/right-sizing/release-on-exit --at 2026-11-10 --note "launcher ends the machine"`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			now := e.now().UTC().Truncate(time.Minute)
			when := now
			if at != "" {
				t, err := fleet.ParseSince(at, now)
				if err != nil {
					return gpucost.Errorf(gpucost.EInvalid, "--at %q: %w", at, err)
				}
				when = t
			}
			if when.After(now) {
				return gpucost.Errorf(gpucost.EInvalid, "--at %s is in the future: record a step once it is made", when.Format(time.RFC3339))
			}
			if f.since == "" && f.until == "" && f.month == "" && f.quarter == "" {
				p, err := fromStore(cmd.Context(), e, func(db storeDB) (fleet.Period, error) { return query.PlanBefore(cmd.Context(), db, when) })
				if err != nil {
					return err
				}
				f.at = p
			}
			s, err := e.applyStep(cmd.Context(), &f, args[0], when, gpucost.AppliedManual, note)
			if err != nil {
				return err
			}
			return e.print(present.AppliedSteps([]gpucost.AppliedStep{s}))
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&at, "at", "", "when the step was made: a date (2026-11-10), an RFC 3339 time or a look-back (3d); default now")
	cmd.Flags().StringVar(&note, "note", "", "what to keep with the record: who made the change, its ticket")
	return cmd
}

// applyStep finds step id in the plan of rf's period and records it applied at when.
func (e *env) applyStep(ctx context.Context, rf *recommendFlags, id string, when time.Time, how, note string) (gpucost.AppliedStep, error) {
	opts, err := recommend.NewOptions(rf.minSaving, rf.otherProviders, rf.moveDataGB)
	if err != nil {
		return gpucost.AppliedStep{}, err
	}
	s, err := rf.costFlags.open(ctx, e)
	if err != nil {
		return gpucost.AppliedStep{}, err
	}
	defer s.Close()
	v, prices, err := s.Recommendable(ctx)
	if err != nil {
		return gpucost.AppliedStep{}, err
	}
	plan, err := recommend.NewPlan(v, prices, opts)
	if err != nil {
		return gpucost.AppliedStep{}, err
	}
	a, err := recommend.Applied(plan, v, id, when, how, cliActor(), note)
	if err != nil {
		return a, err
	}
	a.Recorded = e.now().UTC()
	if err := s.db.PutAppliedStep(ctx, a); err != nil {
		return a, err
	}
	detail := fmt.Sprintf("applied %s (%s), predicted %s a month", a.At.Format(time.RFC3339), a.How, a.Predicted.Dollars())
	return a, e.audit(ctx, s.db, gpucost.AuditStepApply, "step "+a.ID, detail)
}

func newRecommendAppliedCmd(e *env) *cobra.Command {
	var (
		f              recommendFlags
		remove         string
		detect, record bool
	)
	cmd := &cobra.Command{
		Use:   "applied",
		Short: "List the steps recorded applied; --detect finds the changes the bill shows",
		Long: `applied lists the plan steps recorded applied (gpucost recommend apply, the API, the
dashboard), with what the plan predicted when they were. --remove ID forgets one record (kept
in the audit log). --detect reads the bill of the period (--since, default 30d) for changes of
a namespace's instance type, moves to spot, commitments that appear and falls in its billed
GPU-hours, and names the step of the plan over the 30 days before each change that made it;
--record records those not recorded yet as applied, "detected".`,
		Example: `  gpucost recommend applied
  gpucost recommend applied --detect --record
  gpucost recommend applied --remove research-p3.8xlarge/spot/spot-g6e.2xlarge`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if err := f.checkFlags(e); err != nil {
				return err
			}
			switch {
			case remove != "" && detect:
				return usageError{fmt.Errorf("--remove and --detect go apart")}
			case record && !detect:
				return usageError{fmt.Errorf("--record records what --detect finds: give both")}
			case remove != "":
				return e.withStore(ctx, func(db storeDB) error {
					s, err := db.RemoveAppliedStep(ctx, remove)
					if err != nil {
						return err
					}
					if err := e.audit(ctx, db, gpucost.AuditStepRemove, "step "+s.ID, "applied "+s.At.Format(time.RFC3339)+" ("+s.How+")"); err != nil {
						return err
					}
					fmt.Fprintf(e.stderr, "Removed the record of step %s, applied %s.\n", s.ID, s.At.Format(time.RFC3339))
					return nil
				})
			case detect:
				changes, err := e.detectChanges(ctx, &f, record)
				if err != nil {
					return err
				}
				return e.print(present.DetectedChanges(changes, record))
			}
			steps, err := fromStore(ctx, e, func(db storeDB) ([]gpucost.AppliedStep, error) { return db.AppliedSteps(ctx) })
			if err != nil {
				return err
			}
			return e.print(present.AppliedSteps(steps))
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&remove, "remove", "", "forget the record of the step with this ID")
	cmd.Flags().BoolVar(&detect, "detect", false, "find the changes the period's bill shows: instance type, spot, a commitment, fewer GPUs")
	cmd.Flags().BoolVar(&record, "record", false, "with --detect: record the changes that name a step as applied")
	return cmd
}

// detectChanges finds the changes rf's period's bill shows and names the step of the plan
// before each (query.DetectedSteps, the API's and the dashboard's computation too), and
// records those not recorded yet when record is set.
func (e *env) detectChanges(ctx context.Context, rf *recommendFlags, record bool) ([]present.DetectedChange, error) {
	p, _, err := rf.billPeriod(e)
	if err != nil {
		return nil, err
	}
	found, err := fromStore(ctx, e, func(db storeDB) ([]query.DetectedStep, error) {
		cat, err := catalog.Load(ctx, db)
		if err != nil {
			return nil, err
		}
		applied, err := db.AppliedSteps(ctx)
		if err != nil {
			return nil, err
		}
		return query.DetectedSteps(ctx, db, cat, p, "aws", applied, e.planOver(rf))
	})
	if err != nil || !record {
		return found, err
	}
	for _, i := range query.ToRecord(found) {
		d := found[i]
		before, err := e.flagsBefore(ctx, rf, d.At)
		if err != nil {
			return nil, err
		}
		if _, err := e.applyStep(ctx, before, d.Step, d.At, d.How, ""); err != nil {
			return nil, err
		}
		found[i].Recorded = true
	}
	return found, nil
}

// planOver returns the plan over a period with rf's options: rf with that period.
func (e *env) planOver(rf *recommendFlags) query.PlanOver {
	return func(ctx context.Context, p fleet.Period) (plan recommend.Plan, view recommend.FleetView, err error) {
		at := *rf
		at.period = period{at: p}
		err = e.withFleet(ctx, &at, func(v recommend.FleetView, pr recommend.Prices, o recommend.Options) error {
			view = v
			plan, err = recommend.NewPlan(v, pr, o)
			return err
		})
		return plan, view, err
	}
}

// flagsBefore is rf over the period whose plan names the step of a change made at at.
func (e *env) flagsBefore(ctx context.Context, rf *recommendFlags, at time.Time) (*recommendFlags, error) {
	p, err := fromStore(ctx, e, func(db storeDB) (fleet.Period, error) { return query.PlanBefore(ctx, db, at) })
	if err != nil {
		return nil, err
	}
	before := *rf
	before.period = period{at: p}
	return &before, nil
}

// realized measures the applied steps on the bill up to the end of rf's period
// (query.StoredRealized, as the API's realized view does).
func (e *env) realized(ctx context.Context, rf *recommendFlags) (fleet.RealizedReport, error) {
	p, _, err := rf.billPeriod(e)
	if err != nil {
		return fleet.RealizedReport{}, err
	}
	return fromStore(ctx, e, func(db storeDB) (fleet.RealizedReport, error) { return query.StoredRealized(ctx, db, p.End, "aws") })
}
