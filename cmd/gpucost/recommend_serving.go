package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/recommend"
	"github.com/gpucost/gpucost/serving"
)

// servingHelp is what recommend --help says about --serving.
const servingHelp = `--serving FILE sizes serving pools by their request counts too, by Erlang C: a YAML list of
pools, each the serving machines of a namespace with its SLO, service time (or batch latency
profile) and requests over the period — a request log or timestamp,rate CSV, or a Prometheus
query for requests per second, read one point an hour, each for the hour before it (a [1h]
range averages that hour) — averaged by hour of the week:

  pools:
    - namespace: serving
      slo: p99=200ms
      service_time: 30ms          # or batch_profile: profile.csv (batch_size,latency_ms)
      concurrency: 1
      gpus_per_replica: 1
      requests: requests.csv      # relative to the YAML file
      # or: prometheus: {url: http://prom:9090, query: 'sum(rate(vllm:request_success_total{namespace="serving"}[1h]))'}

Their capacity, autoscaling and batching changes come in a section of their own: they overlap
with the utilisation-based serving changes above them and are not added to the total (nor to
gpucost report savings). With --output json the answer is then {"recommendations": [...],
"serving": {...}}; with csv, one table with a Section column.`

// loadServing reads --serving and its pools' request counts over the period of f; nil when no
// file is given.
func (e *env) loadServing(ctx context.Context, file string, f *costFlags) (*serving.Input, error) {
	if file == "" {
		return nil, nil
	}
	pools, err := serving.ReadFile(file)
	if err != nil {
		return nil, err
	}
	from, to, err := f.resolve(e.now())
	if err != nil {
		return nil, err
	}
	return serving.Load(ctx, file, pools, from.Add(-f.lookback), to)
}

// printServing prints recommend's answer with the serving section after it.
func (e *env) printServing(recs []gpucost.Recommendation, in *serving.Input, v recommend.FleetView, p recommend.Prices, o recommend.Options) error {
	sec, err := in.Section(v, p, o)
	if err != nil {
		return err
	}
	fleet, pools := recommendResult(recs), servingResult(sec)
	switch e.output {
	case "json":
		for _, n := range append(fleet.Notes, pools.Notes...) {
			fmt.Fprintln(e.stderr, n)
		}
		return writeJSON(e.stdout, result{JSON: map[string]any{"recommendations": recs, "serving": sec}})
	case "csv":
		return e.printServingCSV(recs, sec.Recommendations, append(fleet.Notes, pools.Notes...))
	}
	if err := e.print(fleet); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout)
	return e.print(pools)
}

// servingResult is the serving section as a table.
func servingResult(sec serving.Section) result {
	r := result{
		Title:   "Serving pools by request counts (Erlang C). " + sec.Note,
		Columns: []string{"#", "Kind", "Action", "Monthly saving", "Confidence", "Risk"},
		Right:   []int{0, 3},
	}
	for i, rec := range sec.Recommendations {
		r.Rows = append(r.Rows, []string{"S" + strconv.Itoa(i+1), string(rec.Kind), rec.Action, rec.MonthlySaving.Dollars(),
			string(rec.Confidence), rec.Risk})
	}
	for _, p := range sec.Pools {
		line := fmt.Sprintf("Pool %s (%d serving machines in the bill), %s, service time %v: busiest hour %.0f requests, mean %.0f; %s.",
			p.Namespace, p.Machines, p.SLO, time.Duration(p.ServiceTimeS*float64(time.Second)), p.PeakHour, p.MeanHour, p.Source)
		if p.Machines == 0 {
			line += " No serving machines of this namespace are in the bill of the period: nothing to size."
		}
		r.Notes = append(r.Notes, line)
	}
	if len(sec.Recommendations) == 0 {
		r.Rows = append(r.Rows, []string{"", "", "no change by request counts saves at least --min-saving", "", "", ""})
	}
	for i, rec := range sec.Recommendations {
		r.Notes = append(r.Notes, fmt.Sprintf("S%d. evidence: %s", i+1, strings.Join(rec.Evidence, "; ")))
	}
	return r
}

// printServingCSV writes both sections as one CSV table with a Section column and the
// evidence; the notes go to stderr.
func (e *env) printServingCSV(recs, srecs []gpucost.Recommendation, notes []string) error {
	for _, n := range notes {
		fmt.Fprintln(e.stderr, n)
	}
	w := csv.NewWriter(e.stdout)
	w.Write([]string{"Section", "#", "Kind", "Action", "Monthly saving", "Confidence", "Risk", "Evidence"})
	for _, sec := range []struct {
		name, prefix string
		recs         []gpucost.Recommendation
	}{{"fleet", "", recs}, {"serving", "S", srecs}} {
		for i, rec := range sec.recs {
			w.Write([]string{sec.name, sec.prefix + strconv.Itoa(i+1), string(rec.Kind), rec.Action, rec.MonthlySaving.Dollars(),
				string(rec.Confidence), rec.Risk, strings.Join(rec.Evidence, "; ")})
		}
	}
	w.Flush()
	return w.Error()
}
