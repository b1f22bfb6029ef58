package main

import (
	"context"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/query"
	"github.com/spf13/cobra"
)

// costFlags are the flags of the reports over stored bills.
type costFlags struct {
	period
	gpuOnly bool
	policy  string
	weight  float64
	tagKeys string

	lookback time.Duration // read this much before the period too (baselines)
}

func (f *costFlags) register(cmd *cobra.Command) {
	f.period.register(cmd, "30d")
	cmd.Flags().BoolVar(&f.gpuOnly, "gpu-only", false, "only GPU spend: GPU instances and GPU SKUs, and the other lines of the same resources")
	cmd.Flags().StringVar(&f.policy, "policy", gpucost.PolicyUsed, "how a GPU's cost is split between its users: used (held time × utilisation), requested (held time) or weighted")
	cmd.Flags().Float64Var(&f.weight, "weight", 0.5, "with --policy weighted: the share split by held time; the rest goes by used time")
	cmd.Flags().StringVar(&f.tagKeys, "tag-keys", "", `tag keys that name owners, tried in order: "team=team,Team,user:team;project=project,Project"`)
}

// costScan is the split of a period's bill (query.Bill) over the store it opened.
type costScan struct {
	*query.Bill
	db storeDB
}

func (s *costScan) Close() error { return s.db.Close() }

// billPeriod resolves the flags' period (query.BillWindow: from the midnight of its first day,
// lookback before it) and the owner tag keys.
func (f *costFlags) billPeriod(e *env) (fleet.Period, map[string][]string, error) {
	if err := firstError(e.validOutput(), f.checkSplit()); err != nil {
		return fleet.Period{}, nil, err
	}
	w, err := f.window(e.now())
	if err != nil {
		return fleet.Period{}, nil, err
	}
	p, err := query.BillWindow(w, f.lookback)
	if err != nil || f.tagKeys == "" {
		return p, nil, err
	}
	keys, err := analyze.ParseTagKeys(f.tagKeys)
	if err != nil {
		return p, nil, gpucost.Errorf(gpucost.EInvalid, "--tag-keys: %w", err)
	}
	return p, keys, nil
}

// open opens the store and the split of the flags' period.
func (f *costFlags) open(ctx context.Context, e *env) (*costScan, error) {
	p, keys, err := f.billPeriod(e)
	if err != nil {
		return nil, err
	}
	db, cat, err := e.openCatalog(ctx)
	if err != nil {
		return nil, err
	}
	b, err := query.OpenBill(ctx, db, cat, fleet.SplitOptions{Period: p, GPUOnly: f.gpuOnly, Policy: f.policy, Weight: f.weight, TagKeys: keys})
	if err != nil {
		db.Close()
		if gpucost.ErrorCode(err) == gpucost.EInvalid {
			return nil, gpucost.Errorf(gpucost.EInvalid, "--policy %s: %w", f.policy, err)
		}
		return nil, err
	}
	return &costScan{Bill: b, db: db}, nil
}

// snapshot builds the fleet snapshot of the flags' period (query.BillSnapshot). It returns an
// ENotFound error when the store holds no bill line in the period.
func (f *costFlags) snapshot(ctx context.Context, e *env) (*fleet.Snapshot, error) {
	p, keys, err := f.billPeriod(e)
	if err != nil {
		return nil, err
	}
	db, cat, err := e.openCatalog(ctx)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return query.BillSnapshot(ctx, db, cat, p, "aws", keys)
}
