package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/telemetry/promql"
	"github.com/spf13/cobra"
)

// kpi is one group's unit economics over the period: its fleet figures, with jobs and requests.
type kpi struct {
	fleet.Figures
	Requests      float64
	PerJob        gpucost.Money
	Per1kRequests gpucost.Money
}

// MarshalJSON writes the group's figures with the per-job and per-request costs.
func (k kpi) MarshalJSON() ([]byte, error) {
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
	return json.Marshal(m)
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
		Long: `kpi reports GPU unit economics per group over a period: each group's GPU cost (the
GPU-hours it held, idle included, each at its price: the bill's effective cost where a bill line
covers it, the catalog's on-demand price elsewhere), its idle cost and idle % (idle cost ÷ GPU
cost), GPU-hours and $/GPU-h, used GPU-hours (held × utilisation) and $/used GPU-h (GPU cost ÷
used GPU-hours), its jobs (job labels in telemetry: Kubernetes jobs, Slurm jobs) and the cost per
job, and, where request counts are given, the cost per 1,000 inference requests.

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
			d, err := fleet.ParseDimension(by)
			if err != nil {
				return gpucost.Errorf(gpucost.EInvalid, "--by: %w", err)
			}
			if (reqProm == "") != (reqQuery == "") {
				return gpucost.Errorf(gpucost.EInvalid, "--requests-prometheus and --requests-query go together")
			}
			ctx := cmd.Context()
			s, err := f.snapshot(ctx, e)
			if err != nil {
				return err
			}
			requests, source, err := readRequests(ctx, by, reqFile, reqProm, reqQuery, s.Period.Start, s.Period.End)
			if err != nil {
				return err
			}
			return e.print(kpiResult(d, s, requests, source))
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&by, "by", "team", "group by team, project, namespace, job, gpu-model, … as report cost does")
	cmd.Flags().StringVar(&reqFile, "requests", "", "CSV of request counts per group")
	cmd.Flags().StringVar(&reqProm, "requests-prometheus", "", "Prometheus server to read request counts from")
	cmd.Flags().StringVar(&reqQuery, "requests-query", "", "PromQL instant vector of request counts by the --by label")
	return cmd
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

func kpiResult(d fleet.Dimension, s *fleet.Snapshot, requests map[string]float64, source string) result {
	by := d.String()
	var list []kpi
	for _, f := range s.Group(d, fleet.GPUOnly) {
		k := kpi{Figures: f, Requests: requests[f.Group]}
		if f.Jobs > 0 {
			k.PerJob = f.GPUCost().DivInt(int64(f.Jobs))
		}
		if k.Requests > 0 {
			k.Per1kRequests = f.GPUCost().MulFloat(1000 / k.Requests)
		}
		list = append(list, k)
	}
	r := result{
		Title: fmt.Sprintf("GPU unit economics by %s, %s – %s", by, s.Period.Start.Format(time.DateOnly), s.Period.End.Format(time.DateOnly)),
		Columns: []string{strings.ToUpper(by[:1]) + by[1:], "Currency", "GPU cost", "Idle", "Idle %", "GPU-h", "$/GPU-h", "Used GPU-h",
			"$/used GPU-h", "Jobs", "$/job", "Requests", "$/1k requests", "Price"},
		Right: []int{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
		JSON:  list,
	}
	for _, k := range list {
		f := k.Figures
		row := []string{f.Group, f.Currency, f.GPUCost().Fixed(2), f.IdleCost.Fixed(2), fmt.Sprintf("%.1f%%", f.IdlePercent()),
			fmt.Sprintf("%.1f", f.GPUHours()), moneyIf(f.PerGPUHour(), f.GPUHours() > 0),
			fmt.Sprintf("%.1f", f.UsedGPUHours()), moneyIf(f.PerUsedGPUHour(), f.UsedGPUHours() > 0), fmt.Sprint(f.Jobs),
			moneyIf(k.PerJob, f.Jobs > 0), "", moneyIf(k.Per1kRequests, k.Requests > 0), string(f.Source)}
		if k.Requests > 0 {
			row[11] = strconv.FormatFloat(k.Requests, 'f', 0, 64)
		}
		r.Rows = append(r.Rows, row)
	}
	if source != "" {
		r.Notes = append(r.Notes, "Request counts from "+source+".")
	}
	r.Notes = append(r.Notes, "GPU cost is the GPU-hours each group held, idle included, at their price; Idle is its idle GPU-hours (GPU-hours − used) at their price, and Idle % idle cost ÷ GPU cost.",
		"$/GPU-h is GPU cost ÷ GPU-hours; $/used GPU-h is GPU cost ÷ used GPU-hours (held × utilisation), so idle time raises it.")
	r.Notes = append(r.Notes, fleetCostNotes(s, fleet.GPUOnly)...)
	return r
}

func moneyIf(m gpucost.Money, ok bool) string {
	if !ok {
		return ""
	}
	return m.Fixed(4)
}
