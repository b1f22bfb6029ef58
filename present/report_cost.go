package present

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/httpapi"
)

// Costs is report cost's table: each group's spend, the idle time of the GPUs it held apart.
// scan is what --output json says about the charges read, beside the groups and the totals.
func Costs(d fleet.Dimension, p fleet.Period, groups []fleet.Figures, scan any, totals []gpucost.CostTotal) Table {
	by := d.String()
	t := Table{
		Title:   fmt.Sprintf("Spend by %s, %s", by, p.Label()),
		Columns: []string{titleCase(by), "Currency", "Cost less idle", "Idle", "Total", "Idle %", "GPU-h", "Used GPU-h", "$/used GPU-h", "Price", "Share", "Daily"},
		// On a narrow terminal the cost, idle, total and idle % stay.
		Priority:  []int{0, 3, 7, 8, 10, 9, 4, 5, 6, 2, 6, 1},
		Right:     []int{2, 3, 4, 5, 6, 7, 8, 10},
		TableOnly: []int{11},
		JSON:      map[string]any{"by": by, "from": p.Start, "to": p.End, "groups": groups, "scan": scan, "totals": totals},
	}
	share := map[string]int64{}
	for _, g := range groups {
		share[g.Currency] += g.TotalCost().Nanos
	}
	views := make([]httpapi.CostGroup, len(groups))
	for i, g := range groups {
		views[i] = costGroup(g)
	}
	httpapi.FillCents(views)
	for i, g := range groups {
		c := views[i].Cents
		daily := make([]int64, len(g.Daily))
		for j, m := range g.Daily {
			daily[j] = m.Nanos
		}
		idlePct, perUsed := "", ""
		if g.GPUCost().Nanos != 0 {
			idlePct = fmt.Sprintf("%.1f%%", g.IdlePercent())
		}
		if g.UsedGPUHours() > 0 {
			perUsed = g.PerUsedGPUHour().Fixed(2)
		}
		t.Rows = append(t.Rows, []string{g.Group, g.Currency, c.CostLessIdle.Fixed(2), c.IdleCost.Fixed(2),
			c.TotalCost.Fixed(2), idlePct, fmt.Sprintf("%.1f", g.GPUHours()), fmt.Sprintf("%.1f", g.UsedGPUHours()), perUsed,
			string(g.Source), ShareOf(g.TotalCost().Nanos, share[g.Currency]), Sparkline(dailyShares(daily), 30)})
	}
	return t
}

// SnapshotCosts is report cost over a snapshot grouped by d: every line, or with gpuOnly the
// GPU time and the other lines of the resources that have GPU lines.
func SnapshotCosts(d fleet.Dimension, s *fleet.Snapshot, gpuOnly bool) Table {
	keep := CostKeep(s, gpuOnly)
	groups := s.Group(d, keep)
	t := Costs(d, s.Period, groups, s.Stats, s.Stats.Totals.Sorted())
	if gpuOnly {
		t.Notes = append(t.Notes, gpuOnlyNotes(groups, s.Stats.Totals.Sorted(), s.CatalogCost())...)
	}
	t.Notes = append(t.Notes, CostNotes(s, keep)...)
	return t
}

// gpuOnlyNotes say what report cost --gpu-only's Total column adds up to, currency by currency,
// and how much of the bill's effective cost it leaves out, so that the bill's total printed
// under it is not read as the column's. GPU time priced from the catalog (catalog) is in the
// column but not in the bill.
func gpuOnlyNotes(groups []fleet.Figures, bill []gpucost.CostTotal, catalog []gpucost.Money) []string {
	var notes []string
	for _, b := range bill {
		sum, billed := gpucost.Money{Currency: b.Currency}, gpucost.Money{Currency: b.Currency}
		for _, g := range groups {
			if g.Currency == b.Currency {
				sum = sum.Add(g.TotalCost())
			}
		}
		billed = billed.Add(sum)
		for _, c := range catalog {
			if c.Currency == b.Currency {
				billed = billed.Sub(c)
			}
		}
		notes = append(notes, fmt.Sprintf("--gpu-only: the Total column adds up to %s %s, the GPU lines and the other lines of the resources that have them; %s %s of the bill's effective cost is in other lines.",
			b.Currency, sum.Fixed(2), b.Currency, b.EffectiveCost.Round(2).Sub(billed.Round(2)).Fixed(2)))
	}
	return notes
}

// CostKeep is what report cost counts of a snapshot: every line (nil), or with gpuOnly the GPU
// time and the other lines of the resources that have GPU lines.
func CostKeep(s *fleet.Snapshot, gpuOnly bool) func(*fleet.Charge) bool {
	if gpuOnly {
		return s.GPUResources()
	}
	return nil
}

// policySplits says whom each --policy other than used charges for a GPU.
var policySplits = map[string]string{
	gpucost.PolicyRequested: "the time they held the GPUs",
	gpucost.PolicyWeighted:  "a blend of held and used time",
}

// SplitCosts is report cost under --policy requested or weighted: the groups of the split s
// (fleet.Tally's figures), the idle capacity of each line in one group.
func SplitCosts(d fleet.Dimension, s *fleet.Split, groups []fleet.Figures, policy string) Table {
	t := Costs(d, s.Period, groups, s.Stats, s.Stats.Totals.Sorted())
	t.Title += fmt.Sprintf("\n--policy %s splits the money differently from the default (used): its users are charged %s, the rest is \"(idle capacity)\"; idle, GPU-hours and $/GPU-h as every other report defines them come from --policy used.",
		policy, policySplits[policy])
	t.Notes = append(t.Notes, SplitNotes(s)...)
	return t
}

// CostNotes say what a snapshot's cost figures over the charges keep accepts cover and that they
// reconcile with the stored bill.
func CostNotes(s *fleet.Snapshot, keep func(*fleet.Charge) bool) []string {
	st := s.Stats
	notes := totalNotes(st.Totals.Sorted())
	notes = append(notes, fmt.Sprintf("%d stored lines from %s; the bill-priced costs reconcile with them to the cent in every currency.", st.Lines, count(st.Imports, "import")))
	for _, m := range s.CatalogCost() {
		notes = append(notes, fmt.Sprintf("GPU time no bill line covers is priced at catalog on-demand prices: %s %s, not in the bill.", m.Currency, m.Fixed(2)))
	}
	if st.GPULines > 0 {
		notes = append(notes, fmt.Sprintf("GPU usage lines: %d, %d with telemetry. Idle is GPU-hours − used GPU-hours (held × utilisation) at each GPU-hour's price, on the row of the group that held the GPU; Idle %% is idle cost ÷ GPU cost.",
			st.GPULines, st.Matched))
	}
	if n := len(st.Unmatched); n > 0 {
		notes = append(notes, fmt.Sprintf("%d GPU resources have no telemetry: their GPU time is \"(no telemetry)\", neither used nor idle, charged to their tag owner: %s (tie them to hosts with gpucost import inventory).",
			n, firstFive(slices.Clone(st.Unmatched))))
	}
	return append(notes, PriceNotes(s, GPUTime(keep))...)
}

// SplitNotes say what a split covers and that it reconciles with the stored bill.
func SplitNotes(s *fleet.Split) []string {
	st := s.Stats
	notes := totalNotes(st.Totals.Sorted())
	notes = append(notes, fmt.Sprintf("%d stored lines from %s; Cost + Idle reconcile with them to the cent in every currency.", st.Lines, count(st.Imports, "import")))
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
		notes = append(notes, fmt.Sprintf("%d GPU resources have no telemetry and are charged whole to their tag owner: %s (tie them to hosts with gpucost import inventory).",
			n, firstFive(ids)))
	}
	return notes
}

// totalNotes give the billed and effective total of each currency.
func totalNotes(totals []gpucost.CostTotal) []string {
	var notes []string
	for _, t := range totals {
		notes = append(notes, fmt.Sprintf("Total %s: billed %s, effective %s.", t.Currency, t.BilledCost.Fixed(2), t.EffectiveCost.Fixed(2)))
	}
	return notes
}

// firstFive lists the first five ids and how many more there are.
func firstFive(ids []string) string {
	if n := len(ids); n > 5 {
		ids = append(ids[:5], fmt.Sprintf("… %d more", n-5))
	}
	return strings.Join(ids, ", ")
}

// PriceNotes say how a snapshot's GPU-hours that keep accepts (all where nil) were priced.
func PriceNotes(s *fleet.Snapshot, keep func(*fleet.Charge) bool) []string {
	notes := []string{"Prices: " + priceSource(s, keep).Describe() + "."}
	for _, m := range slices.Sorted(maps.Keys(s.Stats.CatalogFor)) {
		notes = append(notes, fmt.Sprintf("  %s without a bill line priced at %s", m, s.Stats.CatalogFor[m]))
	}
	if s.Stats.Unpriced > 0 {
		notes = append(notes, fmt.Sprintf("%.1f GPU-hours of models neither the bill nor the catalog prices are not in the costs: %s.",
			s.Stats.Unpriced, UnpricedModels(s.Stats.UnpricedBy)))
	}
	return notes
}

// UnpricedModels names each model of GPU-hours by model, most hours first, with its hours:
// "GRID A100-10C 12.0 GPU-h, NVIDIA RTX 4000 Ada Generation 3.5 GPU-h". A model without a
// name is "unknown model".
func UnpricedModels(hours map[string]float64) string {
	models := slices.SortedFunc(maps.Keys(hours), func(a, b string) int {
		if c := cmp.Compare(hours[b], hours[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(models))
	for i, m := range models {
		name := m
		if name == "" {
			name = "unknown model"
		}
		parts[i] = fmt.Sprintf("%s %.1f GPU-h", name, hours[m])
	}
	return strings.Join(parts, ", ")
}

// priceSource is the price source of the GPU time keep accepts (all where nil): mixed when its
// parts were priced differently.
func priceSource(s *fleet.Snapshot, keep func(*fleet.Charge) bool) fleet.Source {
	return s.PriceSource(keep)
}

// GPUTime narrows keep to GPU time: the charges of the lines that pay for a GPU.
func GPUTime(keep func(*fleet.Charge) bool) func(*fleet.Charge) bool {
	if keep == nil {
		return fleet.GPUOnly
	}
	return func(c *fleet.Charge) bool { return fleet.GPUOnly(c) && keep(c) }
}

// CostReport is the API's cost report of a snapshot grouped by d, over the charges that match
// filter (fleet.Match).
func CostReport(d fleet.Dimension, s *fleet.Snapshot, filter map[string]string) httpapi.CostReport {
	rep := httpapi.CostReport{By: d.String(), From: s.Period.Start, To: s.Period.End, Days: s.Period.Days(), Groups: []httpapi.CostGroup{}}
	totals := map[string]int64{}
	var currencies []string
	for _, g := range s.Group(d, fleet.Match(filter)) {
		rep.Groups = append(rep.Groups, costGroup(g))
		if _, seen := totals[g.Currency]; !seen {
			currencies = append(currencies, g.Currency)
		}
		totals[g.Currency] += g.TotalCost().Nanos
	}
	httpapi.FillCents(rep.Groups)
	for _, cur := range currencies {
		rep.Total = append(rep.Total, gpucost.Money{Nanos: totals[cur], Currency: cur})
	}
	_, rep.Bill, _ = s.Reconcile()
	rep.Reconciled = len(filter) == 0 && len(s.CatalogCost()) == 0 && slices.Equal(rep.Total, rep.Bill)
	if len(filter) > 0 {
		var fs []string
		for _, k := range slices.Sorted(maps.Keys(filter)) {
			fs = append(fs, k+"="+filter[k])
		}
		rep.Notes = append(rep.Notes, fmt.Sprintf("Filtered to %s: the groups hold the matching charges only; all of the period's charges reconcile with the bill to the cent.",
			strings.Join(fs, ", ")))
	}
	rep.Notes = append(rep.Notes, CostNotes(s, nil)...)
	return rep
}

// costGroup is g as the API and the dashboard give a group's spend.
func costGroup(g fleet.Figures) httpapi.CostGroup {
	return httpapi.CostGroup{Group: g.Group, Currency: g.Currency,
		CostLessIdle: g.TotalCost().Sub(g.IdleCost), IdleCost: g.IdleCost, TotalCost: g.TotalCost(), BilledCost: g.BilledCost, GPUCost: g.GPUCost(),
		GPUHours: g.GPUHours(), UsedGPUHours: g.UsedGPUHours(), IdleGPUHours: g.IdleGPUHours(), IdlePercent: g.IdlePercent(),
		PriceSource: string(g.Source), Daily: g.Daily}
}

// dailyShares returns each day's cost as a percentage of the group's most expensive day, the
// scale Sparkline draws.
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

// ShareOf formats n as a percentage of total with one decimal, blank when total is zero.
func ShareOf(n, total int64) string {
	if total == 0 {
		return ""
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(total))
}

// titleCase capitalises a dimension's name for a column title: "team" → "Team".
func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// count says n of a thing: "1 import", "2 imports".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
