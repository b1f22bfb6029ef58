package main

import (
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/plan"
	"github.com/gpucost/gpucost/plan/planfile"
	"github.com/gpucost/gpucost/present"
	"github.com/spf13/cobra"
)

func newPlanBatchingCmd(e *env) *cobra.Command {
	var (
		sf          servingFlags
		o           plan.BatchingOptions
		alpha, beta time.Duration
	)
	cmd := &cobra.Command{
		Use:   "batching --rate QPS --batch-profile FILE.csv --slo pNN=DURATION",
		Short: "Largest batch size and queue delay (Triton max_batch_size, max_queue_delay_microseconds) that keep the SLO",
		Long: `batching models a dynamic batcher in front of a pool of replicas: a batch closes when it holds
max_batch_size (B) requests or its first request has waited max_queue_delay (D). At λ requests
per second a batch of B fills in (B − 1)/λ; batches queue for a replica as an M/M/c queue with
service time s(B), the latency profile's time for a batch of B. For each batch size it gives the
replicas and GPUs that keep the response time (fill + wait for a replica + s(B)) within the SLO,
the largest D that still keeps it, and the throughput per GPU; the best plan has the fewest GPUs
(the largest batch among equals). Batches of one are shown for comparison.

The profile is --batch-profile, a CSV of batch_size and latency_ms (or latency_us, latency_s)
measured on one replica (perf_analyzer, or a benchmark of your own), interpolated between the
measured sizes and fitted as α + β·b by least squares; or the line itself with --alpha, --beta
and --max-batch.`,
		Example: `  gpucost plan batching --rate 2000 --batch-profile bert-t4.csv --slo p99=100ms --gpu T4
  gpucost plan batching --rate 500 --alpha 8ms --beta 1.5ms --max-batch 64 --slo p99=200ms --output json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: e.printing(func(cmd *cobra.Command, args []string) (result, error) {
			if err := firstError(floatAbove("rate", o.Rate, 0), intAtLeast("max-batch", o.MaxBatch, 0), sf.providerNeedsGPU(), durNotNegative("alpha", alpha), durNotNegative("beta", beta), sf.resolve(cmd.Context(), e)); err != nil {
				return result{}, err
			}
			var err error
			switch {
			case sf.batchProfile != "" && (alpha > 0 || beta > 0):
				return result{}, gpucost.Errorf(gpucost.EInvalid, "give --batch-profile or --alpha/--beta, not both")
			case sf.batchProfile != "":
				o.Profile, err = planfile.ReadLatencyProfile(sf.batchProfile)
			default:
				o.Profile, err = plan.FittedProfile(alpha, beta, o.MaxBatch)
			}
			if err != nil {
				return result{}, err
			}
			o.Quantile, o.SLO, o.PricePerGPU, o.GPUsPerReplica, o.Spread = sf.quantile, sf.target, sf.perGPUHour, sf.gpusPer, sf.spread
			res, err := plan.Batching(o)
			if err != nil {
				return result{}, err
			}
			out := present.Batching(res)
			out.Notes = append(out.Notes, present.ServingPriceNote(sf.perGPUHour, sf.priceFrom, "")...)
			out.Notes = append(out.Notes, present.NoServingPrice(sf.priceFrom, "the $/h column")...)
			return out, nil
		}),
	}
	sf.register(cmd)
	f := cmd.Flags()
	f.Float64Var(&o.Rate, "rate", 0, "arrival rate in requests per second")
	f.DurationVar(&alpha, "alpha", 0, "without --batch-profile: fixed time of a batch (α)")
	f.DurationVar(&beta, "beta", 0, "without --batch-profile: time per request in a batch (β)")
	f.IntVar(&o.MaxBatch, "max-batch", 0, "the largest batch the model takes (required with --alpha/--beta)")
	return cmd
}
