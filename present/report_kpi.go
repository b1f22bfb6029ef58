package present

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/fleet"
)

// KPI is one group's unit economics over the period: its fleet figures, with jobs and requests.
type KPI struct {
	fleet.Figures
	Requests      float64
	PerJob        gpucost.Money
	Per1kRequests gpucost.Money
	// Tokens, with token counts: the group's input and output tokens and its cost per million.
	Tokens *KPITokens
}

// KPITokens are a group's tokens over the period and the GPU cost of a million of them: in all,
// and split between input and output by the weight of an output token (KPITokenSource).
type KPITokens struct {
	Input, Output                    float64
	PerMInput, PerMOutput, PerMTotal gpucost.Money
}

// KPITokenSource is where report kpi's token counts came from, with how cost is split: an
// output token costs OutputWeight input tokens of GPU time.
type KPITokenSource struct {
	Source       string
	OutputWeight float64
	Counts       map[string][2]float64 // input and output tokens by group
}

// MarshalJSON writes the group's figures with the per-job and per-request costs.
func (k KPI) MarshalJSON() ([]byte, error) {
	b, err := k.Figures.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	m["cost_per_job"], m["cost_per_1k_requests"] = k.PerJob, k.Per1kRequests
	if k.Requests > 0 {
		m["requests"] = k.Requests
	}
	if t := k.Tokens; t != nil {
		m["input_tokens"], m["output_tokens"] = t.Input, t.Output
		m["cost_per_1m_input_tokens"], m["cost_per_1m_output_tokens"], m["cost_per_1m_tokens"] = t.PerMInput, t.PerMOutput, t.PerMTotal
	}
	return json.Marshal(m)
}

// KPIs is report kpi's table: each group's GPU unit economics, with the request counts per
// group read from source (none where requests is nil) and, with tokens, the cost of a million
// tokens.
func KPIs(d fleet.Dimension, s *fleet.Snapshot, requests map[string]float64, source string, tokens *KPITokenSource) Table {
	var list []KPI
	for _, f := range s.Group(d, fleet.GPUOnly) {
		k := KPI{Figures: f, Requests: requests[f.Group]}
		if tokens != nil {
			k.Tokens = kpiTokens(f.GPUCost(), tokens.Counts[f.Group], tokens.OutputWeight)
		}
		if f.Jobs > 0 {
			k.PerJob = f.GPUCost().DivInt(int64(f.Jobs))
		}
		if k.Requests > 0 {
			k.Per1kRequests = f.GPUCost().MulFloat(1000 / k.Requests)
		}
		list = append(list, k)
	}
	t := Table{
		Title: fmt.Sprintf("GPU unit economics by %s, %s", d, s.Period.Label()),
		Columns: []string{titleCase(d.String()), "Currency", "GPU cost", "Idle", "Idle %", "GPU-h", "$/GPU-h", "Used GPU-h",
			"$/used GPU-h", "Jobs", "$/job", "Requests", "$/1k requests", "Price"},
		Right: []int{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
		JSON:  list,
	}
	gpuCost, idle := make([]gpucost.Money, len(list)), make([]gpucost.Money, len(list))
	for i, k := range list {
		gpuCost[i], idle[i] = k.GPUCost(), k.IdleCost
		idle[i].Currency = k.Currency
	}
	gpuCents, idleCents := gpucost.Apportion(gpuCost, 2), gpucost.Apportion(idle, 2)
	for i, k := range list {
		f := k.Figures
		row := []string{f.Group, f.Currency, gpuCents[i].Fixed(2), idleCents[i].Fixed(2), fmt.Sprintf("%.1f%%", f.IdlePercent()),
			fmt.Sprintf("%.1f", f.GPUHours()), unitCost(f.PerGPUHour(), f.GPUHours() > 0),
			fmt.Sprintf("%.1f", f.UsedGPUHours()), unitCost(f.PerUsedGPUHour(), f.UsedGPUHours() > 0), fmt.Sprint(f.Jobs),
			unitCost(k.PerJob, f.Jobs > 0), "", unitCost(k.Per1kRequests, k.Requests > 0), string(f.Source)}
		if k.Requests > 0 {
			row[11] = strconv.FormatFloat(k.Requests, 'f', 0, 64)
		}
		if tk := k.Tokens; tokens != nil {
			ok := tk != nil && tk.Input+tk.Output > 0
			var in, out, all gpucost.Money
			if ok {
				in, out, all = tk.PerMInput, tk.PerMOutput, tk.PerMTotal
			}
			row = append(row[:13], unitCost(in, ok && tk.Input > 0), unitCost(out, ok && tk.Output > 0), unitCost(all, ok), row[13])
		}
		t.Rows = append(t.Rows, row)
	}
	if tokens != nil {
		t.Columns = append(t.Columns[:13], "$/1M input", "$/1M output", "$/1M tokens", "Price")
		t.Right = append(t.Right, 13, 14, 15)
		t.Notes = append(t.Notes, fmt.Sprintf("Token counts from %s. $/1M tokens is GPU cost ÷ all tokens; input and output split it by GPU time, an output token weighing %g input tokens (--output-token-weight).", tokens.Source, tokens.OutputWeight))
	}
	if source != "" {
		t.Notes = append(t.Notes, "Request counts from "+source+".")
	}
	for _, cur := range currencies(gpuCost) {
		var sumCost, sumIdle gpucost.Money
		for i := range list {
			if gpuCost[i].Currency == cur {
				sumCost, sumIdle = sumCost.Add(gpuCost[i]), sumIdle.Add(idle[i])
			}
		}
		t.Notes = append(t.Notes, fmt.Sprintf("GPU cost %s: %s, of which idle %s: the columns' sums; the bill's other lines are in the total below.", cur, sumCost.Fixed(2), sumIdle.Fixed(2)))
	}
	t.Notes = append(t.Notes, "GPU cost is the GPU-hours each group held, idle included, at their price; Idle is its idle GPU-hours (GPU-hours − used) at their price, and Idle % idle cost ÷ GPU cost.",
		"$/GPU-h is GPU cost ÷ GPU-hours; $/used GPU-h is GPU cost ÷ used GPU-hours (held × utilisation), so idle time raises it.")
	t.Notes = append(t.Notes, CostNotes(s, fleet.GPUOnly)...)
	return t
}

// unitCost formats a cost per unit with four decimals, blank when there are no units.
func unitCost(m gpucost.Money, ok bool) string {
	if !ok {
		return ""
	}
	return m.Fixed(4)
}

// kpiTokens prices a million of a group's tokens; nil without tokens.
func kpiTokens(cost gpucost.Money, n [2]float64, weight float64) *KPITokens {
	t := &KPITokens{Input: n[0], Output: n[1]}
	all := n[0] + n[1]
	if all <= 0 {
		return t
	}
	t.PerMTotal = cost.MulFloat(1e6 / all)
	work := n[0] + weight*n[1] // in input-token equivalents
	if n[0] > 0 {
		t.PerMInput = cost.MulFloat(1e6 / work)
	}
	if n[1] > 0 {
		t.PerMOutput = cost.MulFloat(weight * 1e6 / work)
	}
	return t
}

// currencies returns the currencies of amounts, in order of first appearance.
func currencies(amounts []gpucost.Money) []string {
	var out []string
	for _, m := range amounts {
		if !slices.Contains(out, m.Currency) {
			out = append(out, m.Currency)
		}
	}
	return out
}
