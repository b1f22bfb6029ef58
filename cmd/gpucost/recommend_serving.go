package main

import (
	"context"

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
      # or: prometheus: {url: http://prom:9090, query: 'sum(rate(vllm:request_success_total{namespace="serving"}[1h]))', tokens: vllm}

A pool's tokens price a million of them (split between input and output by its prefill_rate and
decode_rate): from a request log with token columns, or from the engine's token counters for its
namespace in the same Prometheus (tokens: vllm, tgi or triton).

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
