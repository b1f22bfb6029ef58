package present

import (
	"fmt"
	"strings"

	"github.com/gpucost/gpucost/plan"
)

// Fleet is plan fleet's table: the spot and on-demand pools, cheapest first.
func Fleet(r plan.FleetResult) Table {
	t := Table{
		Title: fmt.Sprintf("%d GPUs in %s %s (%d on-demand): %s/h, %s/GPU-h against %s/h on-demand (−%.1f%%)",
			r.GPUs, r.Provider, r.Region, r.OnDemandGPUs, r.PerHour.Dollars(), r.PerGPUHour.Dollars(), r.OnDemandPerHour.Dollars(), r.SavingPercent),
		Columns: []string{"Rank", "Zone", "Instance", "GPU", "Capacity", "Instances", "GPUs", "$/h", "$/GPU-h", "Total $/h"},
		Right:   []int{0, 5, 6, 7, 8, 9},
		JSON:    r,
	}
	for _, p := range r.Pools {
		t.Rows = append(t.Rows, []string{fmt.Sprint(p.Rank), p.Zone, p.InstanceType, fmt.Sprintf("%d× %s", p.GPUsPerInstance, p.GPUModel),
			string(p.Capacity), fmt.Sprint(p.Instances), fmt.Sprint(p.GPUs), p.PricePerHour.Dollars(), p.PerGPUHour.Dollars(), p.TotalPerHour.Dollars()})
	}
	t.Notes = append(t.Notes, r.Warnings...)
	return t
}

// Instance is plan instance's table: the model's memory in the title, the instances that hold
// it, and under them the formulas and the rule of thumb's warning (reference case R3).
func Instance(r plan.InstanceResult) Table {
	m := r.Memory
	t := Table{
		Title: fmt.Sprintf("%s of a %.3g-parameter model in %s: %.1f GB (weights %.1f, gradients %.1f, optimizer %.1f, activations %.1f, KV cache %.1f, overhead %.1f)",
			r.Mode, r.Params, r.Precision, m.TotalGB, m.WeightsGB, m.GradientsGB, m.OptimizerGB, m.ActivationsGB, m.KVCacheGB, m.OverheadGB),
		Columns: []string{"Provider", "Region", "Instance", "GPUs", "GPUs needed", "GB/GPU used", "On-demand $/h", "Spot $/h", "Hours", "Total"},
		Right:   []int{3, 4, 5, 6, 7, 8, 9},
		JSON:    r,
	}
	for _, o := range r.Options {
		hours := ""
		if o.Hours > 0 {
			hours = fmt.Sprintf("%.1f", o.Hours)
		}
		t.Rows = append(t.Rows, []string{o.Provider, o.Region, o.InstanceType, fmt.Sprintf("%d× %s %.0f GB", o.GPUCount, o.GPUModel, o.GPUMemoryGB),
			fmt.Sprint(o.GPUsNeeded), fmt.Sprintf("%.1f", o.MemoryPerGPUGB), OptionalDollars(o.OnDemand), OptionalDollars(o.Spot), hours, OptionalDollars(o.Cost)})
	}
	if rt := r.RuleOfThumb; rt != nil {
		t.Notes = append(t.Notes, rt.Warning)
	}
	t.Notes = append(t.Notes, m.Formulas...)
	t.Notes = append(t.Notes, r.Notes...)
	return t
}

// MIG is plan mig's table: each GPU's layout and what it leaves free or stranded, and how
// close the packing is to the optimum.
func MIG(r plan.MIGResult) Table {
	t := Table{
		Title: fmt.Sprintf("%d workloads on %s: %d GPUs with MIG against %d whole GPUs (%d saved, %.0f%%)",
			r.Workloads, r.GPU, r.GPUsNeeded, r.WholeGPUs, r.GPUsSaved, r.SavedPercent),
		Columns: []string{"GPU", "Layout", "Workloads", "Free compute", "Free memory", "Stranded compute", "Stranded memory"},
		Right:   []int{0, 3, 4, 5, 6},
		JSON:    r,
	}
	for _, g := range r.GPUs {
		names := make([]string, len(g.Instances))
		for i, in := range g.Instances {
			names[i] = in.Workload
		}
		t.Rows = append(t.Rows, []string{fmt.Sprint(g.GPU), g.Layout, strings.Join(names, ", "), fmt.Sprint(g.FreeComputeSlices),
			fmt.Sprint(g.FreeMemorySlices), fmt.Sprint(g.StrandedComputeSlices), fmt.Sprint(g.StrandedMemorySlices)})
	}
	proof := "optimal"
	if !r.Optimal {
		proof = fmt.Sprintf("at most %d GPUs above the optimum", r.GPUsNeeded-r.LowerBound)
	}
	t.Notes = append(t.Notes, fmt.Sprintf("Method: %s (%s; lower bound %d GPUs).", r.Method, proof, r.LowerBound))
	return t
}
