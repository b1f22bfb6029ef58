package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/telemetry/promql"
	"github.com/spf13/cobra"
)

// kpi is one group's unit economics over the period.
type kpi struct {
	Group          string        `json:"group"`
	Currency       string        `json:"currency"`
	GPUCost        gpucost.Money `json:"gpu_cost"` // effective cost of GPU use charged to the group
	IdleCost       gpucost.Money `json:"idle_cost"`
	GPUHours       float64       `json:"gpu_hours"` // paid for: used, held and idle
	PerGPUHour     gpucost.Money `json:"cost_per_gpu_hour"`
	UsedGPUHours   float64       `json:"used_gpu_hours"`
	PerUsedGPUHour gpucost.Money `json:"cost_per_used_gpu_hour"`
	IdlePercent    float64       `json:"idle_percent"`
	Jobs           int           `json:"jobs"`
	PerJob         gpucost.Money `json:"cost_per_job"`
	Requests       float64       `json:"requests,omitempty"`
	Per1kRequests  gpucost.Money `json:"cost_per_1k_requests"`

	jobs map[string]bool
}

func newReportKPICmd(e *env) *cobra.Command {
	var (
		f        costFlags
		by       string
		reqFile  string
		reqProm  string
		reqQuery string
	)
	cmd := &cobra.Command{
		Use:   "kpi",
		Short: "Unit economics: cost per used GPU-hour, idle %, cost per job, cost per 1,000 requests",
		Long: `kpi reports GPU unit economics per group over a period: the GPU cost charged to each
group's use, the GPU-hours it used and the cost per used GPU-hour, the idle share of the GPUs it
owns, its jobs (job labels in telemetry: Kubernetes jobs, Slurm jobs) and the cost per job, and,
where request counts are given, the cost per 1,000 inference requests.

Request counts come from a CSV (--requests: a column named like --by, a requests column and an
optional date column, YYYY-MM-DD, to keep the period's rows) or from Prometheus
(--requests-prometheus URL --requests-query QUERY: an instant vector by the --by label,
evaluated at the end of the period).`,
		Example: `  gpucost report kpi --by team --since 30d
  gpucost report kpi --by namespace --requests requests.csv
  gpucost report kpi --by namespace --requests-prometheus http://prometheus:9090 \
      --requests-query 'sum by (namespace) (increase(vllm:request_success_total[30d]))'`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			key, err := costKey(by)
			if err != nil {
				return err
			}
			if (reqProm == "") != (reqQuery == "") {
				return gpucost.Errorf(gpucost.EInvalid, "--requests-prometheus and --requests-query go together")
			}
			f.gpuOnly = true
			ctx := cmd.Context()
			s, err := f.open(ctx, e)
			if err != nil {
				return err
			}
			defer s.Close()
			kpis := map[[2]string]*kpi{}
			err = s.each(ctx, func(a *gpucost.Allocation, gpu catalog.LineGPU, isGPU bool) {
				addKPI(kpis, groupName(by, key(a, gpu), a), a)
			})
			if err != nil {
				return err
			}
			requests, source, err := readRequests(ctx, by, reqFile, reqProm, reqQuery, s.from, s.to)
			if err != nil {
				return err
			}
			return e.print(kpiResult(by, kpis, requests, source, s))
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&by, "by", "team", "group by team, project, namespace, job, gpu-model, … as report cost does")
	cmd.Flags().StringVar(&reqFile, "requests", "", "CSV of request counts per group")
	cmd.Flags().StringVar(&reqProm, "requests-prometheus", "", "Prometheus server to read request counts from")
	cmd.Flags().StringVar(&reqQuery, "requests-query", "", "PromQL instant vector of request counts by the --by label")
	return cmd
}

func addKPI(kpis map[[2]string]*kpi, group string, a *gpucost.Allocation) {
	cur := a.EffectiveCost.Currency
	k := kpis[[2]string{group, cur}]
	if k == nil {
		zero := gpucost.Money{Currency: cur}
		k = &kpi{Group: group, Currency: cur, GPUCost: zero, IdleCost: zero, jobs: map[string]bool{}}
		kpis[[2]string{group, cur}] = k
	}
	k.GPUHours += a.GPUHours
	if a.Idle {
		k.IdleCost.Nanos += a.EffectiveCost.Nanos
		return
	}
	k.GPUCost.Nanos += a.EffectiveCost.Nanos
	k.UsedGPUHours += a.UsedGPUHours
	if a.Owner.Job != "" {
		k.jobs[a.Owner.Job] = true
	}
}

// readRequests reads request counts per group from a CSV or a Prometheus query; it returns
// nil when neither is given, and says where the counts came from.
func readRequests(ctx context.Context, by, file, prom, query string, from, to time.Time) (map[string]float64, string, error) {
	switch {
	case file != "":
		m, err := readRequestsCSV(file, by, from, to)
		return m, file, err
	case prom != "":
		c := &promql.Collector{URL: prom}
		vs, err := c.Vector(ctx, query, to)
		if err != nil {
			return nil, "", err
		}
		m := map[string]float64{}
		for _, v := range vs {
			m[v.Labels[by]] += v.Value
		}
		return m, prom, nil
	}
	return nil, "", nil
}

func readRequestsCSV(name, by string, from, to time.Time) (map[string]float64, error) {
	c, err := openCSV("--requests", name, by, "requests")
	if err != nil {
		return nil, err
	}
	_, hasDate := c.col["date"]
	out := map[string]float64{}
	err = c.each(func(rec []string) error {
		if hasDate {
			d, err := time.Parse(time.DateOnly, c.get(rec, "date"))
			if err != nil {
				return c.errorf("date", "date %q: use YYYY-MM-DD", c.get(rec, "date"))
			}
			if d.Before(from.Truncate(24*time.Hour)) || !d.Before(to) {
				return nil
			}
		}
		n, err := c.number(rec, "requests")
		out[c.get(rec, by)] += n
		return err
	})
	return out, err
}

func kpiResult(by string, kpis map[[2]string]*kpi, requests map[string]float64, source string, s *costScan) result {
	list := make([]*kpi, 0, len(kpis))
	for _, k := range kpis {
		list = append(list, k)
	}
	sortKPIs(list)
	r := result{
		Title: fmt.Sprintf("GPU unit economics by %s, %s – %s", by, s.from.Format(time.DateOnly), s.to.Format(time.DateOnly)),
		Columns: []string{strings.ToUpper(by[:1]) + by[1:], "Currency", "GPU cost", "Idle", "Idle %", "GPU-h", "$/GPU-h", "Used GPU-h",
			"$/used GPU-h", "Jobs", "$/job", "Requests", "$/1k requests"},
		Right: []int{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
		JSON:  list,
	}
	for _, k := range list {
		k.finish(requests[k.Group])
		row := []string{k.Group, k.Currency, k.GPUCost.Fixed(2), k.IdleCost.Fixed(2), fmt.Sprintf("%.1f%%", k.IdlePercent),
			fmt.Sprintf("%.1f", k.GPUHours), moneyIf(k.PerGPUHour, k.GPUHours > 0),
			fmt.Sprintf("%.1f", k.UsedGPUHours), moneyIf(k.PerUsedGPUHour, k.UsedGPUHours > 0), fmt.Sprint(k.Jobs),
			moneyIf(k.PerJob, k.Jobs > 0), "", moneyIf(k.Per1kRequests, k.Requests > 0)}
		if k.Requests > 0 {
			row[11] = strconv.FormatFloat(k.Requests, 'f', 0, 64)
		}
		r.Rows = append(r.Rows, row)
	}
	if source != "" {
		r.Notes = append(r.Notes, "Request counts from "+source+".")
	}
	r.Notes = append(r.Notes, "GPU cost is EffectiveCost charged to each group's use; Idle is the idle capacity of the GPUs its tags own, and Idle % its share of the two.",
		"GPU-h is the GPU time paid for (used, held and idle) and $/GPU-h what it cost; Used GPU-h is busy time from telemetry, empty without it.")
	r.Notes = append(r.Notes, costNotes(s)...)
	return r
}

// finish computes the ratios.
func (k *kpi) finish(requests float64) {
	k.Jobs = len(k.jobs)
	k.Requests = requests
	if k.UsedGPUHours > 0 {
		k.PerUsedGPUHour = k.GPUCost.MulFloat(1 / k.UsedGPUHours)
	}
	if k.GPUHours > 0 {
		k.PerGPUHour = k.GPUCost.Add(k.IdleCost).MulFloat(1 / k.GPUHours)
	}
	if all := k.GPUCost.Nanos + k.IdleCost.Nanos; all != 0 {
		k.IdlePercent = 100 * float64(k.IdleCost.Nanos) / float64(all)
	}
	if k.Jobs > 0 {
		k.PerJob = k.GPUCost.DivInt(int64(k.Jobs))
	}
	if requests > 0 {
		k.Per1kRequests = k.GPUCost.MulFloat(1000 / requests)
	}
}

func moneyIf(m gpucost.Money, ok bool) string {
	if !ok {
		return ""
	}
	return m.Fixed(4)
}

// sortKPIs orders by currency, then GPU cost and idle, largest first.
func sortKPIs(list []*kpi) {
	slices.SortFunc(list, func(a, b *kpi) int {
		return cmp.Or(cmp.Compare(a.Currency, b.Currency),
			cmp.Compare(b.GPUCost.Nanos+b.IdleCost.Nanos, a.GPUCost.Nanos+a.IdleCost.Nanos), cmp.Compare(a.Group, b.Group))
	})
}
