package main

import (
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/plan"
	"github.com/gpucost/gpucost/plan/planfile"
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
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := e.validOutput(); err != nil {
				return err
			}
			if err := sf.resolve(cmd.Context(), e); err != nil {
				return err
			}
			var err error
			switch {
			case sf.batchProfile != "" && (alpha > 0 || beta > 0):
				return gpucost.Errorf(gpucost.EInvalid, "give --batch-profile or --alpha/--beta, not both")
			case sf.batchProfile != "":
				o.Profile, err = planfile.ReadLatencyProfile(sf.batchProfile)
			default:
				o.Profile, err = plan.FittedProfile(alpha, beta, o.MaxBatch)
			}
			if err != nil {
				return err
			}
			o.Quantile, o.SLO, o.PricePerGPU, o.GPUsPerReplica = sf.quantile, sf.target, sf.perGPUHour, sf.gpusPer
			res, err := plan.Batching(o)
			if err != nil {
				return err
			}
			out := batchingResult(res)
			if sf.priceFrom != "" {
				out.Notes = append(out.Notes, "Price: "+sf.perGPUHour.Dollars()+" per GPU-hour ("+sf.priceFrom+").")
			}
			return e.print(out)
		},
	}
	sf.register(cmd)
	f := cmd.Flags()
	f.Float64Var(&o.Rate, "rate", 0, "arrival rate in requests per second")
	f.DurationVar(&alpha, "alpha", 0, "without --batch-profile: fixed time of a batch (α)")
	f.DurationVar(&beta, "beta", 0, "without --batch-profile: time per request in a batch (β)")
	f.IntVar(&o.MaxBatch, "max-batch", 0, "the largest batch the model takes (required with --alpha/--beta)")
	return cmd
}

func batchingResult(r plan.BatchingResult) result {
	out := result{
		Title: fmt.Sprintf("%.4g requests/s, p%g ≤ %v: batches of %d on %d GPUs (max_batch_size %d, max_queue_delay_microseconds %d)",
			r.Rate, r.Quantile*100, r.SLO, r.Best.MaxBatchSize, r.Best.GPUs, r.Best.MaxBatchSize, r.Best.MaxQueueDelay.Microseconds()),
		Columns: []string{"max_batch_size", "max_queue_delay_microseconds", "Batch time", "Fill time", "Replicas", "GPUs", "Utilisation", "Predicted p", "Throughput/GPU", "$/h", ""},
		Right:   []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9},
		JSON:    r,
	}
	out.Columns[7] = fmt.Sprintf("Predicted p%g", r.Quantile*100)
	for _, p := range r.Plans {
		cost, mark := "", ""
		if p.PerHour != nil {
			cost = p.PerHour.Dollars()
		}
		if p.MaxBatchSize == r.Best.MaxBatchSize {
			mark = "← best"
		}
		out.Rows = append(out.Rows, []string{fmt.Sprint(p.MaxBatchSize), fmt.Sprint(p.MaxQueueDelay.Microseconds()), latency(p.Service), latency(p.Fill),
			fmt.Sprint(p.Replicas), fmt.Sprint(p.GPUs), fmt.Sprintf("%.0f%%", 100*p.Utilisation), latency(p.Response), fmt.Sprintf("%.4g/s", p.ThroughputPerGPU), cost, mark})
	}
	out.Notes = append(out.Notes, "Latency profile: "+r.Profile.String()+".")
	out.Notes = append(out.Notes, r.Notes...)
	return out
}
