package fleet

import (
	"strconv"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
)

// AllocatedLines turns a line's allocations into lines of their own: Billed and Effective cost
// as allocated, List and Contracted cost and the quantities split in the same proportion, the
// owner in the extra columns.
func AllocatedLines(src *gpucost.CostLine, as []gpucost.Allocation) []gpucost.CostLine {
	weights := make([]int64, len(as))
	var sum int64
	for i, a := range as {
		weights[i] = abs64(a.BilledCost.Nanos) + abs64(a.EffectiveCost.Nanos)
		sum += weights[i]
	}
	if sum == 0 {
		for i := range weights {
			weights[i] = 1
		}
	}
	list := splitMoney(src.ListCost, weights)
	contracted := splitMoney(src.ContractedCost, weights)
	total := float64(max(sum, 1))
	out := make([]gpucost.CostLine, len(as))
	for i, a := range as {
		l := *src
		share := float64(weights[i]) / total
		if sum == 0 {
			share = 1 / float64(len(as))
		}
		l.BilledCost, l.EffectiveCost, l.ListCost, l.ContractedCost = a.BilledCost, a.EffectiveCost, list[i], contracted[i]
		l.ConsumedQuantity *= share
		l.PricingQuantity *= share
		l.Extra = map[string]string{
			"x_Team": a.Owner.Team, "x_Project": a.Owner.Project, "x_Namespace": a.Owner.Namespace,
			"x_Pod": a.Owner.Pod, "x_Job": a.Owner.Job, "x_AllocationPolicy": a.Policy,
			"x_Idle": strconv.FormatBool(a.Idle), "x_GPUHours": strconv.FormatFloat(a.GPUHours, 'f', 4, 64),
			"x_UsedGPUHours": strconv.FormatFloat(a.UsedGPUHours, 'f', 4, 64),
		}
		out[i] = l
	}
	return out
}

func abs64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// splitMoney splits m in proportion to weights by largest remainder: the parts add up to m.
func splitMoney(m gpucost.Money, weights []int64) []gpucost.Money {
	out := make([]gpucost.Money, len(weights))
	for i, n := range analyze.Apportion(m.Nanos, weights) {
		out[i] = gpucost.Money{Nanos: n, Currency: m.Currency}
	}
	return out
}
