package main

import (
	"cmp"
	"math"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/plan/planfile"
	"github.com/gpucost/gpucost/traffic"

	"github.com/gpucost/gpucost/plan"
	"github.com/gpucost/gpucost/present"
	"github.com/spf13/cobra"
)

// planCapacityHelp is plan capacity's --help.
var planCapacityHelp = `capacity sizes a serving pool as an M/M/c queue (Erlang C, docs/architecture.md): the fewest replicas c
with P(T > SLO) ≤ 1 − p, T the response time (the queue wait plus the request's own service time),
so that its p-quantile stays within the SLO at λ requests per second. --headroom sizes for that much
more traffic. It prints the utilisation at that size, the predicted latency distribution, the
highest rate the size still serves, cost per hour and per 1,000 requests for --gpu (or --price),
and reference case R4's rule of thumb — ⌈λ / per-GPU QPS⌉ GPUs plus the headroom — beside it.
Without --per-gpu-qps the rule uses what a load test of one replica would find: the highest rate
one replica serves within the SLO.

With --batch-profile (a CSV of batch_size,latency_ms from one replica) a replica serves batches:
S is the profile's latency at --batch-size, or at the batch size gpucost plan batching picks.

The response time is the queue wait plus the request's own service time. With --service-time
alone the service time is taken as exponential and the M/M/c response-time distribution is
exact; --service-cv gives its measured spread (0 for constant), and the M/G/c approximation
documented in docs/architecture.md is used. A batch profile's run times are taken as constant.

--service-model tokens takes each request's service time from the trace's token counts: a
replica prefills --prefill-rate input and generates --decode-rate output tokens a second in all,
shared by --concurrency sequences, and the plan prices a million tokens (input, output, total).

--trace sizes for a trace's busiest interval (per --step) with --headroom on top, instead of
--rate; the trace's shape (request log, rate series, per-source samples) is told from the file
or given with --trace-shape.`

func newPlanCapacityCmd(e *env) *cobra.Command {
	var (
		sf       servingFlags
		o        plan.CapacityOptions
		headroom string
		trace    planfile.TraceOptions
		file     string
	)
	cmd := &cobra.Command{
		Use:   "capacity --rate QPS --service-time DURATION --slo pNN=DURATION",
		Short: "Replicas for a latency target by Erlang C, their latency and cost, against the rule of thumb",
		Long:  planCapacityHelp,
		Example: `  gpucost plan capacity --rate 500 --service-time 30ms --slo p99=200ms --gpu L4 --headroom 20%
  gpucost plan capacity --rate 500 --service-time 30ms --slo p99=200ms --per-gpu-qps 200 --headroom 20%
  gpucost plan capacity --trace AzureLLMInferenceTrace_code.csv --service-time 1s --slo p99=5s --headroom 20%
  gpucost plan capacity --trace AzureLLMInferenceTrace_code.csv --service-model tokens --prefill-rate 20000 --decode-rate 1500 --concurrency 16 --slo p99=10s --gpu H100
  gpucost plan capacity --rate 2000 --batch-profile bert.csv --slo p99=100ms --gpu A10G --output json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: e.printing(func(cmd *cobra.Command, args []string) (result, error) {
			if err := cmp.Or(checkTraceFlags(trace), intAtLeast("concurrency", o.Concurrency, 1), intAtLeast("max-replicas", o.MaxReplicas, 0), sf.providerNeedsGPU(),
				floatIn("per-gpu-qps", o.PerGPUQPS, 0, math.Inf(1)), sf.resolve(cmd.Context(), e), parseFlag(&o.Headroom, "headroom", headroom, plan.ParsePercent)); err != nil {
				return result{}, err
			}
			o.Quantile, o.SLO, o.PricePerGPU, o.GPU, o.GPUsPerReplica = sf.quantile, sf.target, sf.perGPUHour, sf.gpu, sf.gpusPer
			traceNotes, tr, err := capacityTrace(cmd, file, trace, &o)
			if err != nil {
				return result{}, err
			}
			bs, tokens, err := sf.tokenService(tr, o.Concurrency)
			if err == nil && tokens == nil {
				bs, err = sf.service(o.Rate)
			}
			if err != nil {
				return result{}, err
			}
			o.Tokens = tokens
			o.ServiceTime, o.Spread, o.Batch, o.BatchFill = bs.S, bs.Spread, bs.Batch, bs.Fill
			if err := busyReplicas(o.Rate*(1+o.Headroom), bs.S, bs.Batch*o.Concurrency); err != nil {
				return result{}, err
			}
			res, err := plan.Capacity(o)
			if err != nil {
				return result{}, err
			}
			out := present.CapacityOn(res, bs.Note, tr)
			out.Notes = append(out.Notes, traceNotes...)
			out.Notes = append(out.Notes, present.ServingPriceNote(sf.perGPUHour, sf.priceFrom, "")...)
			return out, nil
		}),
	}
	sf.register(cmd)
	f := cmd.Flags()
	f.Float64Var(&o.Rate, "rate", 0, "arrival rate in requests per second")
	f.StringVar(&file, "trace", "", "size for this trace's busiest interval instead of --rate (a request log, timestamp,rate, or timestamp,source,value samples)")
	f.StringVar(&trace.Shape, "trace-shape", "", "with --trace: requests, rates or samples, when the file cannot tell")
	f.StringVar(&trace.Step, "step", "", "with --trace: the interval whose peak is sized for (default 1m for a request log, the rows' spacing otherwise)")
	f.StringVar(&trace.Gaps, "gaps", "auto", "with --trace: auto, error or zero: what a gap in the trace means")
	f.StringVar(&headroom, "headroom", "0", "extra traffic to absorb within the SLO, such as 20%")
	f.Float64Var(&o.PerGPUQPS, "per-gpu-qps", 0, "the rule of thumb's QPS per GPU at the latency target (default: derived from one replica)")
	f.IntVar(&o.MaxReplicas, "max-replicas", 0, "the most replicas allowed (0: no limit)")
	f.IntVar(&o.Concurrency, "concurrency", 1, "requests one replica serves at once (an LLM server's concurrent sequences)")
	return cmd
}

// capacityTrace sets o.Rate to the busiest interval of --trace, when given, and returns the
// notes that say where it came from and the trace.
func capacityTrace(cmd *cobra.Command, file string, to planfile.TraceOptions, o *plan.CapacityOptions) ([]string, *traffic.Trace, error) {
	if file == "" {
		if !cmd.Flags().Changed("rate") {
			return nil, nil, gpucost.Errorf(gpucost.EInvalid, "--rate is required (requests per second), or give --trace FILE to size for its peak")
		}
		return nil, nil, floatIn("rate", o.Rate, 0, math.Inf(1)) // 0: what an idle service needs
	}
	if cmd.Flags().Changed("rate") {
		return nil, nil, gpucost.Errorf(gpucost.EInvalid, "give --rate or --trace, not both")
	}
	rate, notes, tr, err := planfile.ReadBusiest(file, to, o.Headroom)
	o.Rate = rate
	return notes, tr, err
}
