package main

import (
	"context"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/csvin"
	"github.com/gpucost/gpucost/present"
	"github.com/gpucost/gpucost/telemetry/promql"
	"github.com/spf13/cobra"
)

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
			d, err := parseBy(by)
			if err != nil {
				return err
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
			return e.print(present.KPIs(d, s, requests, source))
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
	c, err := csvin.Open("--requests", name, by, "requests")
	if err != nil {
		return nil, err
	}
	hasDate := c.Has("date")
	out := map[string]float64{}
	err = c.Each(func(rec []string) error {
		if hasDate {
			d, err := time.Parse(time.DateOnly, c.Get(rec, "date"))
			if err != nil {
				return c.Errorf("date", "date %q: use YYYY-MM-DD", c.Get(rec, "date"))
			}
			if d.Before(from.Truncate(24*time.Hour)) || !d.Before(to) {
				return nil
			}
		}
		n, err := c.Number(rec, "requests")
		out[c.Get(rec, by)] += n
		return err
	})
	return out, err
}
