package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/fleet"
	"github.com/spf13/cobra"
)

func newReportCostCmd(e *env) *cobra.Command {
	var (
		f  costFlags
		by string
	)
	cmd := &cobra.Command{
		Use:   "cost",
		Short: "Spend by team, project, namespace, job, GPU model, pricing or provider, idle apart",
		Long: `cost reports the imported bills' spend over a period, grouped by --by. GPU usage lines
whose machines report telemetry are split across the pods, namespaces, jobs and teams that used
their GPUs (--policy used: held time × utilisation; requested: held time, MIG slices and
time-sliced shares included; weighted: a blend), and the capacity nobody used is kept apart as
Idle — never smeared into the users. Every other line is charged whole to the owner its tags
name (--tag-keys; team, Team, user:team, … by default). Cost and Idle are EffectiveCost
(amortised: commitments spread over the usage they cover); the notes give the BilledCost
(invoice) totals too, and --output json each group's billed amounts.
The totals reconcile with the stored bill to the cent, and the report says so.`,
		Example: `  gpucost report cost --by team --since 30d
  gpucost report cost --by namespace --gpu-only --policy requested
  gpucost report cost --by gpu-model --since 90d --output csv
  gpucost report cost --by tag:cost-center`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.policy != gpucost.PolicyUsed {
				return e.costByPolicy(cmd.Context(), &f, by)
			}
			d, err := fleet.ParseDimension(by)
			if err != nil {
				return gpucost.Errorf(gpucost.EInvalid, "--by: %w", err)
			}
			s, err := f.snapshot(cmd.Context(), e)
			if err != nil {
				return err
			}
			return e.print(fleetCostResult(d, s, f.gpuOnly))
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&by, "by", "team", "group by team, project, namespace, pod, job, gpu-model, pricing, provider, service, resource, region, account, sku, charge or tag:KEY")
	return cmd
}

// costByPolicy is report cost under --policy requested or weighted: the bill split by the
// allocator, with the idle capacity of each line in one group.
func (e *env) costByPolicy(ctx context.Context, f *costFlags, by string) error {
	d, err := fleet.ParseDimension(by)
	if err != nil {
		return gpucost.Errorf(gpucost.EInvalid, "--by: %w", err)
	}
	s, err := f.open(ctx, e)
	if err != nil {
		return err
	}
	defer s.Close()
	t := fleet.NewTally(d, s.Period)
	if err := s.Each(ctx, t.Add); err != nil {
		return err
	}
	r := costTable(d, s.Period, t.Figures(), s.Stats, s.Stats.Totals.Sorted())
	r.Title += fmt.Sprintf("\n--policy %s splits the money differently from the default (used): its users are charged %s, the rest is \"(idle capacity)\"; idle, GPU-hours and $/GPU-h as every other report defines them come from --policy used.",
		f.policy, map[string]string{gpucost.PolicyRequested: "the time they held the GPUs", gpucost.PolicyWeighted: "a blend of held and used time"}[f.policy])
	r.Notes = append(r.Notes, splitNotes(s.Split)...)
	return e.print(r)
}

// costKeep is what report cost counts of a snapshot: every line, or with --gpu-only the GPU
// time and the other lines of the resources that have GPU lines.
func costKeep(s *fleet.Snapshot, gpuOnly bool) func(*fleet.Charge) bool {
	if gpuOnly {
		return s.GPUResources()
	}
	return nil
}

// fleetCostResult is report cost over a snapshot: each group's spend, the idle time of the GPUs
// it held apart.
func fleetCostResult(d fleet.Dimension, s *fleet.Snapshot, gpuOnly bool) result {
	keep := costKeep(s, gpuOnly)
	r := costTable(d, s.Period, s.Group(d, keep), s.Stats, s.Stats.Totals.Sorted())
	r.Notes = append(r.Notes, fleetCostNotes(s, keep)...)
	return r
}

// costTable is the table of report cost: each group's spend, its idle apart.
func costTable(d fleet.Dimension, p fleet.Period, groups []fleet.Figures, scan any, totals []gpucost.CostTotal) result {
	by := d.String()
	r := result{
		Title:     fmt.Sprintf("Spend by %s, %s – %s", by, p.Start.Format(time.DateOnly), p.End.Format(time.DateOnly)),
		Columns:   []string{strings.ToUpper(by[:1]) + by[1:], "Currency", "Cost", "Idle", "Total", "Idle %", "GPU-h", "Used GPU-h", "$/used GPU-h", "Price", "Share", "Daily"},
		Right:     []int{2, 3, 4, 5, 6, 7, 8, 10},
		TableOnly: []int{11},
		JSON:      map[string]any{"by": by, "from": p.Start, "to": p.End, "groups": groups, "scan": scan, "totals": totals},
	}
	share := map[string]int64{}
	for _, g := range groups {
		share[g.Currency] += g.TotalCost().Nanos
	}
	for _, g := range groups {
		daily := make([]int64, len(g.Daily))
		for i, m := range g.Daily {
			daily[i] = m.Nanos
		}
		idlePct, perUsed := "", ""
		if g.GPUCost().Nanos != 0 {
			idlePct = fmt.Sprintf("%.1f%%", g.IdlePercent())
		}
		if g.UsedGPUHours() > 0 {
			perUsed = g.PerUsedGPUHour().Fixed(2)
		}
		r.Rows = append(r.Rows, []string{g.Group, g.Currency, g.TotalCost().Sub(g.IdleCost).Fixed(2), g.IdleCost.Fixed(2),
			g.TotalCost().Fixed(2), idlePct, fmt.Sprintf("%.1f", g.GPUHours()), fmt.Sprintf("%.1f", g.UsedGPUHours()), perUsed,
			string(g.Source), percentOf(g.TotalCost().Nanos, share[g.Currency]), sparkline(dailyShares(daily), 30)})
	}
	return r
}

// fleetCostNotes say what a snapshot's cost figures cover and that they reconcile with the
// stored bill.
func fleetCostNotes(s *fleet.Snapshot, keep func(*fleet.Charge) bool) []string {
	st := s.Stats
	var notes []string
	for _, t := range st.Totals.Sorted() {
		notes = append(notes, fmt.Sprintf("Total %s: billed %s, effective %s.", t.Currency, t.BilledCost.Fixed(2), t.EffectiveCost.Fixed(2)))
	}
	notes = append(notes, fmt.Sprintf("%d stored lines from %d imports; the bill-priced costs reconcile with them to the cent in every currency.", st.Lines, st.Imports))
	for _, m := range s.CatalogCost() {
		notes = append(notes, fmt.Sprintf("GPU time no bill line covers is priced at catalog on-demand prices: %s %s, not in the bill.", m.Currency, m.Fixed(2)))
	}
	if st.GPULines > 0 {
		notes = append(notes, fmt.Sprintf("GPU usage lines: %d, %d with telemetry. Idle is GPU-hours − used GPU-hours (held × utilisation) at each GPU-hour's price, on the row of the group that held the GPU; Idle %% is idle cost ÷ GPU cost.",
			st.GPULines, st.Matched))
	}
	if n := len(st.Unmatched); n > 0 {
		ids := slices.Clone(st.Unmatched)
		if len(ids) > 5 {
			ids = append(ids[:5], fmt.Sprintf("… %d more", n-5))
		}
		notes = append(notes, fmt.Sprintf("%d GPU resources have no telemetry: their GPU time is \"(no telemetry)\", neither used nor idle, charged to their tag owner: %s (tie them to hosts with gpucost import inventory).",
			n, strings.Join(ids, ", ")))
	}
	return append(notes, priceNotes(s, fleetSource(s, fleetGPU(keep)))...)
}

// dailyShares returns each day's cost as a percentage of the group's most expensive day, the
// scale sparkline draws.
func dailyShares(days []int64) []float64 {
	peak := int64(0)
	for _, n := range days {
		peak = max(peak, n)
	}
	out := make([]float64, len(days))
	for i, n := range days {
		if peak > 0 && n > 0 {
			out[i] = 100 * float64(n) / float64(peak)
		}
	}
	return out
}

func percentOf(n, total int64) string {
	if total == 0 {
		return ""
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(total))
}

// splitNotes say what a split covers and that it reconciles with the stored bill.
func splitNotes(s *fleet.Split) []string {
	st := s.Stats
	var notes []string
	for _, t := range st.Totals.Sorted() {
		notes = append(notes, fmt.Sprintf("Total %s: billed %s, effective %s.", t.Currency, t.BilledCost.Fixed(2), t.EffectiveCost.Fixed(2)))
	}
	notes = append(notes, fmt.Sprintf("%d stored lines from %d imports; Cost + Idle reconcile with them to the cent in every currency.", st.Lines, st.Imports))
	if st.GPULines > 0 && !s.Telemetry {
		notes = append(notes, fmt.Sprintf("GPU usage lines: %d; the store has no GPU telemetry for the period, so each is charged whole to the owner its tags name (run gpucost agent, or import telemetry, to split GPUs by use).", st.GPULines))
	} else if st.GPULines > 0 {
		notes = append(notes, fmt.Sprintf("GPU usage lines: %d, %d split by telemetry (policy %s); idle GPU capacity is in Idle, apart from the users.",
			st.GPULines, st.Matched, s.Policy))
	}
	if n := len(st.Unmatched); n > 0 {
		ids := make([]string, 0, n)
		for id := range st.Unmatched {
			ids = append(ids, cmp.Or(id, "(no resource id)"))
		}
		slices.Sort(ids)
		if len(ids) > 5 {
			ids = append(ids[:5], fmt.Sprintf("… %d more", n-5))
		}
		notes = append(notes, fmt.Sprintf("%d GPU resources have no telemetry and are charged whole to their tag owner: %s (tie them to hosts with gpucost import inventory).",
			n, strings.Join(ids, ", ")))
	}
	return notes
}
