package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/fleet"
	"github.com/spf13/cobra"
)

// costDimensions are the --by values of the cost reports, with how each names an allocation's
// group; tag:KEY groups by any tag.
var costDimensions = map[string]func(a *gpucost.Allocation, gpu catalog.LineGPU) string{
	"team":      func(a *gpucost.Allocation, _ catalog.LineGPU) string { return a.Owner.Team },
	"project":   func(a *gpucost.Allocation, _ catalog.LineGPU) string { return a.Owner.Project },
	"namespace": func(a *gpucost.Allocation, _ catalog.LineGPU) string { return a.Owner.Namespace },
	"pod":       func(a *gpucost.Allocation, _ catalog.LineGPU) string { return a.Owner.Pod },
	"job":       func(a *gpucost.Allocation, _ catalog.LineGPU) string { return a.Owner.Job },
	"gpu-model": func(_ *gpucost.Allocation, gpu catalog.LineGPU) string { return gpu.Model },
	"pricing":   func(a *gpucost.Allocation, _ catalog.LineGPU) string { return a.Line.PricingCategory },
	"provider":  func(a *gpucost.Allocation, _ catalog.LineGPU) string { return a.Line.Provider },
	"service":   func(a *gpucost.Allocation, _ catalog.LineGPU) string { return a.Line.ServiceName },
	"resource":  func(a *gpucost.Allocation, _ catalog.LineGPU) string { return a.ResourceID },
	"region":    func(a *gpucost.Allocation, _ catalog.LineGPU) string { return a.Line.RegionID },
	"account":   func(a *gpucost.Allocation, _ catalog.LineGPU) string { return a.Line.SubAccountID },
	"sku":       func(a *gpucost.Allocation, _ catalog.LineGPU) string { return a.Line.SkuID },
	"charge":    func(a *gpucost.Allocation, _ catalog.LineGPU) string { return a.Line.ChargeCategory },
}

// costKey returns the function that names the group of an allocation for --by.
func costKey(by string) (func(a *gpucost.Allocation, gpu catalog.LineGPU) string, error) {
	if key, ok := strings.CutPrefix(by, "tag:"); ok && key != "" {
		return func(a *gpucost.Allocation, _ catalog.LineGPU) string { return a.Line.Tags[key] }, nil
	}
	if f, ok := costDimensions[by]; ok {
		return f, nil
	}
	names := make([]string, 0, len(costDimensions))
	for k := range costDimensions {
		names = append(names, k)
	}
	slices.Sort(names)
	return nil, gpucost.Errorf(gpucost.EInvalid, "--by %q: use %s or tag:KEY", by, strings.Join(names, ", "))
}

// costGroup is the spend of one group in one currency.
type costGroup struct {
	Group         string        `json:"group"`
	Currency      string        `json:"currency"`
	EffectiveCost gpucost.Money `json:"effective_cost"` // charged to the group's use (amortised)
	BilledCost    gpucost.Money `json:"billed_cost"`
	IdleCost      gpucost.Money `json:"idle_cost"` // idle capacity of the group's GPUs, kept apart
	IdleBilled    gpucost.Money `json:"idle_billed_cost"`
	UsedGPUHours  float64       `json:"used_gpu_hours"`
	IdleGPUHours  float64       `json:"idle_gpu_hours"`
	Daily         []int64       `json:"-"` // effective cost + idle per day, nanos
}

func (g *costGroup) total() int64 { return g.EffectiveCost.Nanos + g.IdleCost.Nanos }

// groupName names the group of allocation a when it has no value for the --by dimension: for
// a telemetry label (namespace, pod, job), "(idle capacity)" for time nobody used, "(no
// telemetry)" where no telemetry covers the cost (it went by tags), and "(no job label)" where
// telemetry covers it but carries no such label.
func groupName(by, key string, a *gpucost.Allocation) string {
	switch {
	case key != "":
		return key
	case by == "team" || by == "project" || strings.HasPrefix(by, "tag:"):
		return "(untagged)"
	case a.Idle && (by == "namespace" || by == "pod" || by == "job"):
		return "(idle capacity)"
	case (by == "namespace" || by == "pod" || by == "job") && a.Policy == gpucost.PolicyTags:
		return "(no telemetry)"
	case by == "namespace" || by == "pod" || by == "job":
		return "(no " + by + " label)"
	}
	return "(none)"
}

// costGroups sums allocations by group and currency.
type costGroups struct {
	by     string
	from   time.Time
	days   int
	groups map[[2]string]*costGroup
	recent [8]*costGroup // the groups added to last, looked at before the map
	next   int
}

func (c *costGroups) remember(g *costGroup) {
	c.recent[c.next] = g
	c.next = (c.next + 1) % len(c.recent)
}

func newCostGroups(by string, from, to time.Time) *costGroups {
	return &costGroups{by: by, from: from, days: max(1, int(to.Sub(from).Hours()/24+0.999)), groups: map[[2]string]*costGroup{}}
}

func (c *costGroups) add(key string, a *gpucost.Allocation) {
	key = groupName(c.by, key, a)
	cur := a.EffectiveCost.Currency
	var g *costGroup
	for _, r := range c.recent {
		if r != nil && r.Group == key && r.Currency == cur {
			g = r
			break
		}
	}
	if g == nil {
		g = c.groups[[2]string{key, cur}]
		if g != nil {
			c.remember(g)
		}
	}
	if g == nil {
		m := gpucost.Money{Currency: cur}
		g = &costGroup{Group: key, Currency: cur, EffectiveCost: m, BilledCost: m, IdleCost: m, IdleBilled: m, Daily: make([]int64, c.days)}
		c.groups[[2]string{key, cur}] = g
		c.remember(g)
	}
	if a.Idle {
		g.IdleCost.Nanos += a.EffectiveCost.Nanos
		g.IdleBilled.Nanos += a.BilledCost.Nanos
		g.IdleGPUHours += a.GPUHours
	} else {
		g.EffectiveCost.Nanos += a.EffectiveCost.Nanos
		g.BilledCost.Nanos += a.BilledCost.Nanos
		g.UsedGPUHours += a.UsedGPUHours
	}
	if d := int((a.Start.Unix() - c.from.Unix()) / 86400); d >= 0 && d < c.days {
		g.Daily[d] += a.EffectiveCost.Nanos
	}
}

// sorted returns the groups, largest spend first within each currency.
func (c *costGroups) sorted() []*costGroup {
	out := make([]*costGroup, 0, len(c.groups))
	for _, g := range c.groups {
		out = append(out, g)
	}
	slices.SortFunc(out, func(a, b *costGroup) int {
		return cmp.Or(cmp.Compare(a.Currency, b.Currency), cmp.Compare(b.total(), a.total()), cmp.Compare(a.Group, b.Group))
	})
	return out
}

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
	key, err := costKey(by)
	if err != nil {
		return err
	}
	s, err := f.open(ctx, e)
	if err != nil {
		return err
	}
	defer s.Close()
	groups := newCostGroups(by, s.from, s.to)
	err = s.Each(ctx, func(a *gpucost.Allocation, gpu catalog.LineGPU, _ bool) {
		groups.add(key(a, gpu), a)
	})
	if err != nil {
		return err
	}
	r := costResult(by, groups, s)
	r.Title += fmt.Sprintf("\n--policy %s splits the money differently from the default (used); idle, GPU-hours and $/GPU-h as every other report defines them come from --policy used.", f.policy)
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
	groups := s.Group(d, keep)
	by := d.String()
	r := result{
		Title:     fmt.Sprintf("Spend by %s, %s – %s", by, s.Period.Start.Format(time.DateOnly), s.Period.End.Format(time.DateOnly)),
		Columns:   []string{strings.ToUpper(by[:1]) + by[1:], "Currency", "Cost", "Idle", "Total", "Idle %", "GPU-h", "Used GPU-h", "$/used GPU-h", "Price", "Share", "Daily"},
		Right:     []int{2, 3, 4, 5, 6, 7, 8, 10},
		TableOnly: []int{11},
		JSON:      map[string]any{"by": by, "from": s.Period.Start, "to": s.Period.End, "groups": groups, "scan": s.Stats, "totals": s.Stats.Totals.Sorted()},
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
	r.Notes = append(r.Notes, fleetCostNotes(s, keep)...)
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

func costResult(by string, c *costGroups, s *costScan) result {
	groups := c.sorted()
	r := result{
		Title:     fmt.Sprintf("Spend by %s, %s – %s", by, s.from.Format(time.DateOnly), s.to.Format(time.DateOnly)),
		Columns:   []string{strings.ToUpper(by[:1]) + by[1:], "Currency", "Cost", "Idle", "Total", "Idle %", "Used GPU-h", "$/used GPU-h", "Share", "Daily"},
		Right:     []int{2, 3, 4, 5, 6, 7, 8},
		TableOnly: []int{9},
		JSON:      map[string]any{"groups": groups, "scan": s.Stats, "totals": s.Stats.Totals.Sorted()},
	}
	share := map[string]int64{}
	for _, g := range groups {
		share[g.Currency] += g.total()
	}
	for _, g := range groups {
		perHour := ""
		if g.UsedGPUHours > 0 {
			perHour = g.EffectiveCost.MulFloat(1 / g.UsedGPUHours).Fixed(2)
		}
		daily := dailyShares(g.Daily)
		r.Rows = append(r.Rows, []string{g.Group, g.Currency, g.EffectiveCost.Fixed(2), g.IdleCost.Fixed(2),
			gpucost.Money{Nanos: g.total(), Currency: g.Currency}.Fixed(2), percentOf(g.IdleCost.Nanos, g.total()),
			fmt.Sprintf("%.1f", g.UsedGPUHours), perHour, percentOf(g.total(), share[g.Currency]), sparkline(daily, 30)})
	}
	r.Notes = append(r.Notes, costNotes(s)...)
	return r
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

// costNotes say what the report covers and that it reconciles with the stored bill.
func costNotes(s *costScan) []string {
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
