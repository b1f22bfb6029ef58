package main

import (
	"cmp"
	"context"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/plan"
	"github.com/gpucost/gpucost/plan/planfile"
	"github.com/gpucost/gpucost/present"
	"github.com/spf13/cobra"
)

// servingFlags are the flags plan capacity and plan autoscale share: the service time (or a
// batch profile), the SLO and the GPU with its price.
type servingFlags struct {
	serviceTime  time.Duration
	batchProfile string
	batchSize    int
	slo          string
	gpu          string
	provider     string
	price        string
	gpusPer      int

	// parsed by resolve
	quantile   float64
	target     time.Duration
	perGPUHour gpucost.Money
	priceFrom  string
}

func (s *servingFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.DurationVar(&s.serviceTime, "service-time", 0, "mean time one replica takes to serve one request, such as 30ms")
	f.StringVar(&s.batchProfile, "batch-profile", "", "CSV of batch_size,latency_ms measured on one replica, instead of --service-time (with --batch-size)")
	f.IntVar(&s.batchSize, "batch-size", 0, "with --batch-profile: serve batches of this size (default: the largest the SLO allows)")
	f.StringVar(&s.slo, "slo", "p99=200ms", "latency objective: pNN=DURATION on the response time (queue wait + service)")
	f.StringVar(&s.gpu, "gpu", "", "GPU model for the price, such as L4, A10G or H100 (the catalog's median on-demand $/GPU-h)")
	f.StringVar(&s.provider, "provider", "", "with --gpu: price from this provider's offers")
	f.StringVar(&s.price, "price", "", "$ per GPU-hour instead of the catalog's, such as 0.80")
	f.IntVar(&s.gpusPer, "gpus-per-replica", 1, "GPUs one replica holds (tensor-parallel serving)")
}

// resolve parses the SLO and finds the price.
func (s *servingFlags) resolve(ctx context.Context, e *env) error {
	var err error
	if s.quantile, s.target, err = plan.ParseSLO(s.slo); err != nil {
		return gpucost.Errorf(gpucost.EInvalid, "--slo %w", err)
	}
	if s.gpusPer < 1 {
		return gpucost.Errorf(gpucost.EInvalid, "--gpus-per-replica %d: give 1 or more", s.gpusPer)
	}
	switch {
	case s.price != "":
		if s.perGPUHour, err = perGPUHourFlag("price", s.price, "0.80"); err != nil {
			return err
		}
		s.priceFrom = "--price"
	case s.gpu != "":
		cat, err := e.loadCatalog(ctx)
		if err != nil {
			return err
		}
		s.perGPUHour, s.priceFrom, err = cat.ServingPrice(s.gpu, s.provider)
		return err
	}
	return nil
}

// perGPUHourFlag parses --flag's dollars per GPU-hour ("$" optional), naming example in its
// error.
func perGPUHourFlag(flag, v, example string) (gpucost.Money, error) {
	m, err := gpucost.ParseMoney(strings.TrimPrefix(v, "$"), "USD")
	if err != nil || m.Nanos < 0 {
		return m, gpucost.Errorf(gpucost.EInvalid, "--%s %q: give dollars per GPU-hour, such as %s", flag, v, example)
	}
	return m, nil
}

// priceNotes is the note on where the price came from, for under a table; none without a
// price. how says which price it is, such as " on demand".
func (s *servingFlags) priceNotes(how string) []string {
	if s.priceFrom == "" {
		return nil
	}
	return []string{"Price: " + s.perGPUHour.Dollars() + " per GPU-hour" + how + " (" + s.priceFrom + ")."}
}

func newPlanCapacityCmd(e *env) *cobra.Command {
	var (
		sf       servingFlags
		o        plan.CapacityOptions
		headroom string
	)
	cmd := &cobra.Command{
		Use:   "capacity --rate QPS --service-time DURATION --slo pNN=DURATION",
		Short: "Replicas for a latency target by Erlang C, their latency and cost, against the rule of thumb",
		Long: `capacity sizes a serving pool as an M/M/c queue (Erlang C, docs/architecture.md): the fewest replicas c
with C(c, λS)·e^{−(cμ−λ)(SLO−S)} ≤ 1 − p, so that the p-quantile of the response time (queue wait
plus service time S) stays within the SLO at λ requests per second. --headroom sizes for that much
more traffic. It prints the utilisation at that size, the predicted latency distribution, the
highest rate the size still serves, cost per hour and per 1,000 requests for --gpu (or --price),
and reference case R4's rule of thumb — ⌈λ / per-GPU QPS⌉ GPUs plus the headroom — beside it.
Without --per-gpu-qps the rule uses what a load test of one replica would find: the highest rate
one replica serves within the SLO.

With --batch-profile (a CSV of batch_size,latency_ms from one replica) a replica serves batches:
S is the profile's latency at --batch-size, or at the batch size gpucost plan batching picks.`,
		Example: `  gpucost plan capacity --rate 500 --service-time 30ms --slo p99=200ms --gpu L4 --headroom 20%
  gpucost plan capacity --rate 500 --service-time 30ms --slo p99=200ms --per-gpu-qps 200 --headroom 20%
  gpucost plan capacity --rate 2000 --batch-profile bert.csv --slo p99=100ms --gpu A10G --output json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: e.printing(func(cmd *cobra.Command, args []string) (result, error) {
			if err := cmp.Or(sf.resolve(cmd.Context(), e), parseFlag(&o.Headroom, "headroom", headroom, plan.ParsePercent)); err != nil {
				return result{}, err
			}
			o.Quantile, o.SLO, o.PricePerGPU, o.GPU, o.GPUsPerReplica = sf.quantile, sf.target, sf.perGPUHour, sf.gpu, sf.gpusPer
			bs, err := sf.service(o.Rate)
			if err != nil {
				return result{}, err
			}
			o.ServiceTime, o.Batch, o.BatchFill = bs.S, bs.Batch, bs.Fill
			res, err := plan.Capacity(o)
			if err != nil {
				return result{}, err
			}
			out := present.Capacity(res)
			if bs.Note != "" {
				out.Notes = append([]string{bs.Note}, out.Notes...)
			}
			out.Notes = append(out.Notes, sf.priceNotes("")...)
			return out, nil
		}),
	}
	sf.register(cmd)
	f := cmd.Flags()
	f.Float64Var(&o.Rate, "rate", 0, "arrival rate in requests per second")
	f.StringVar(&headroom, "headroom", "0", "extra traffic to absorb within the SLO, such as 20%")
	f.Float64Var(&o.PerGPUQPS, "per-gpu-qps", 0, "the rule of thumb's QPS per GPU at the latency target (default: derived from one replica)")
	f.IntVar(&o.MaxReplicas, "max-replicas", 0, "the most replicas allowed (0: no limit)")
	return cmd
}

// service returns how a replica serves: --service-time per request, or batches planned from
// --batch-profile for rate (at --batch-size, or the batching plan's best size).
func (s *servingFlags) service(rate float64) (plan.BatchService, error) {
	if s.batchProfile == "" {
		if s.serviceTime <= 0 {
			return plan.BatchService{}, gpucost.Errorf(gpucost.EInvalid, "--service-time is required (such as 30ms), or give --batch-profile")
		}
		return plan.BatchService{S: s.serviceTime, Batch: 1}, nil
	}
	if s.serviceTime > 0 {
		return plan.BatchService{}, gpucost.Errorf(gpucost.EInvalid, "give --service-time or --batch-profile, not both")
	}
	prof, err := planfile.ReadLatencyProfile(s.batchProfile)
	if err != nil {
		return plan.BatchService{}, err
	}
	return plan.PlanBatchService(prof, rate, s.quantile, s.target, s.batchSize)
}
