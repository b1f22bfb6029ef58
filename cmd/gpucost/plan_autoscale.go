package main

import (
	"cmp"
	"strconv"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/chart"
	"github.com/gpucost/gpucost/plan"
	"github.com/gpucost/gpucost/plan/planfile"
	"github.com/gpucost/gpucost/present"
	"github.com/gpucost/gpucost/spotrisk"
	"github.com/spf13/cobra"
)

// autoscaleFlags are plan autoscale's flags beyond the serving ones.
type autoscaleFlags struct {
	trace, step, gaps, policy, compare, chart string
	shape                                     string
	sort                                      bool
	target, stepUp, stepDown, headroom        string
	schedule                                  string
	spotShare, spotRate, spotPrice            string
	spotFallback                              bool
	seed                                      uint64
	pool                                      spotPoolFlags
	rateNote                                  string // where an auto interruption rate came from
}

func newPlanAutoscaleCmd(e *env) *cobra.Command {
	var (
		sf servingFlags
		af autoscaleFlags
		o  plan.AutoscaleOptions
	)
	cmd := &cobra.Command{
		Use:   "autoscale --trace FILE --policy POLICY",
		Short: "Replay a traffic trace under autoscaling policies: replica-hours, cost and SLO attainment against the oracle",
		Long:  planAutoscaleHelp,
		Example: `  gpucost plan autoscale --trace AzureLLMInferenceTrace_code.csv --service-time 1s --slo p99=5s --compare all
  gpucost plan autoscale --trace rates.csv --service-time 30ms --slo p99=200ms --policy target-tracking --target 70% --gpu L4
  gpucost plan autoscale --trace rates.csv --service-time 30ms --policy predictive --chart replicas.svg
  gpucost plan autoscale --trace rates.csv --service-time 30ms --policy schedule --schedule "0-7=2,8-19=6,20-23=3"
  gpucost plan autoscale --trace rates.csv --service-time 30ms --spot-share 50% --interruption-rate 5%/h --provider aws --gpu A10G`,
		Args: usageArgs(cobra.NoArgs),
		RunE: e.printing(func(cmd *cobra.Command, args []string) (result, error) {
			if err := sf.resolve(cmd.Context(), e); err != nil {
				return result{}, err
			}
			tr, err := planfile.ReadTrace(af.trace, planfile.TraceOptions{Gaps: af.gaps, Step: af.step, Sort: af.sort, Shape: af.shape})
			if err != nil {
				return result{}, err
			}
			o.Start, o.Step, o.Rates = tr.Start, tr.Step, tr.Rates
			o.Quantile, o.SLO, o.PricePerGPU, o.GPUsPerReplica = sf.quantile, sf.target, sf.perGPUHour, sf.gpusPer
			bs, tokens, err := sf.tokenService(tr, o.Concurrency)
			if err == nil && tokens == nil {
				bs, err = sf.service(tr.Peak())
			}
			if err != nil {
				return result{}, err
			}
			o.ServiceTime, o.Spread, o.Batch, o.BatchFill, o.Tokens = bs.S, bs.Spread, bs.Batch, bs.Fill, tokens
			if err := af.options(cmd, e, &sf, &o); err != nil {
				return result{}, err
			}
			run := plan.AutoscaleBeside
			if af.compare == "all" {
				run = plan.CompareAutoscale
			}
			runs, err := run(o)
			if err != nil {
				return result{}, err
			}
			out := present.Autoscale(o, runs, af.compare == "all")
			out.Notes = append(out.Notes, present.AutoscaleServiceNotes(runs, bs.Note, tokens != nil, tr)...)
			out.Notes = append(out.Notes, present.ServingPriceNote(sf.perGPUHour, sf.priceFrom, " on demand")...)
			if af.rateNote != "" {
				out.Notes = append(out.Notes, af.rateNote)
			}
			if note := present.NoServingPrice(sf.priceFrom, "the Cost column"); note != nil && af.spotPrice == "" {
				out.BlankColumn("Cost")
				out.Notes = append(out.Notes, note...)
			}
			if af.chart != "" {
				if err := present.AutoscaleChart(o, runs).WriteFile(af.chart); err != nil {
					return result{}, err
				}
				out.Notes = append(out.Notes, "Chart: "+af.chart+".")
			}
			return out, nil
		}),
	}
	sf.register(cmd)
	af.register(cmd, &o)
	return cmd
}

// register adds plan autoscale's own flags.
func (af *autoscaleFlags) register(cmd *cobra.Command, o *plan.AutoscaleOptions) {
	f := cmd.Flags()
	f.StringVar(&af.trace, "trace", "", "CSV of request timestamps, of timestamp,rate, or of timestamp,source,value samples (summed)")
	f.StringVar(&af.shape, "trace-shape", "", "requests, rates or samples: the trace's shape when the file cannot tell it")
	f.StringVar(&af.step, "step", "", "interval to bin a request log into (default 1m); for a rate file, its row spacing")
	f.StringVar(&af.gaps, "gaps", "auto", "auto, error or zero: what a gap in the trace means (see above)")
	f.BoolVar(&af.sort, "sort", false, "accept an unsorted request log")
	f.StringVar(&af.policy, "policy", "target-tracking", "static, target-tracking, step, schedule, learned-schedule, scale-to-zero, predictive or oracle")
	f.DurationVar(&o.Warmup, "warmup", 0, "the start of the trace policies learn from but that is not scored, for every policy and the oracle (learned-schedule needs 24h)")
	f.StringVar(&af.compare, "compare", "", "all: every policy and the oracle in one table")
	f.StringVar(&af.chart, "chart", "", "write demand against replicas to FILE.png or FILE.svg")
	f.IntVar(&o.Concurrency, "concurrency", 1, "requests one replica serves at once")
	f.DurationVar(&o.Provisioning, "provisioning", time.Minute, "launch to ready: boot, image pull, model load")
	f.DurationVar(&o.Evaluation, "evaluation", time.Minute, "how often the policy decides, over that window")
	f.DurationVar(&o.ScaleOutCooldown, "scale-out-cooldown", 0, "least time between scale-outs (default: --evaluation)")
	f.DurationVar(&o.ScaleInCooldown, "scale-in-window", 5*time.Minute, "scale in only to the largest size wanted over this window")
	f.IntVar(&o.MinReplicas, "min-replicas", 1, "fewest replicas (scale-to-zero: 0)")
	f.IntVar(&o.MaxReplicas, "max-replicas", 0, "most replicas (default: 4 × the trace's peak need); a peak beyond it is refused")
	f.IntVar(&o.Replicas, "replicas", 0, "static: the fixed count (default: the trace's peak need)")
	f.StringVar(&af.target, "target", "70%", "target-tracking and scale-to-zero: target utilisation")
	f.StringVar(&af.stepUp, "step-up", "80%", "step: add replicas above this utilisation")
	f.StringVar(&af.stepDown, "step-down", "40%", "step: remove one below this utilisation")
	f.StringVar(&af.schedule, "schedule", "", `schedule: replicas by hour of day (UTC), "0-7=2,8-19=6,20-23=3", or 24 or 168 counts`)
	f.DurationVar(&o.IdleTimeout, "idle-timeout", 5*time.Minute, "scale-to-zero: no requests this long before going to zero")
	f.StringVar(&af.headroom, "headroom", "0", "predictive: extra on the forecast, such as 10%")
	f.DurationVar(&o.Season, "season", 24*time.Hour, "predictive: the traffic's period")
	f.DurationVar(&o.MaxQueueWait, "max-queue-wait", 0, "drop requests waiting longer (default 10 × the SLO)")
	f.StringVar(&af.spotShare, "spot-share", "", "share of replicas on spot, such as 50%")
	f.StringVar(&af.spotRate, "interruption-rate", "5%/h", "spot interruptions per replica-hour, or auto: the pool's measured rate, else its advisor bucket (the default when --instance-type names the pool)")
	af.pool.register(cmd)
	f.StringVar(&af.spotPrice, "spot-price", "", "spot $ per GPU-hour (default: --gpu's spot discount in the catalog)")
	f.BoolVar(&af.spotFallback, "spot-fallback", true, "replace an interrupted spot replica with an on-demand one at once")
	f.Uint64Var(&af.seed, "seed", 1, "seed for spot interruptions")
}

// options parses the policy flags into o.
func (af *autoscaleFlags) options(cmd *cobra.Command, e *env, sf *servingFlags, o *plan.AutoscaleOptions) error {
	if err := af.checkFlags(o); err != nil {
		return err
	}
	var err error
	if o.Policy, err = plan.ParsePolicy(af.policy); err != nil {
		return gpucost.Errorf(gpucost.EInvalid, "--%w", err) // "--policy "x": use …"
	}
	if af.chart != "" && !chart.Writable(af.chart) {
		return gpucost.Errorf(gpucost.EInvalid, "--chart %q: give a .png or .svg file", af.chart)
	}
	if af.compare != "" && af.compare != "all" {
		return gpucost.Errorf(gpucost.EInvalid, "--compare %q: use all", af.compare)
	}
	if err := cmp.Or(parseFlag(&o.TargetUtilisation, "target", af.target, plan.ParsePercent), parseFlag(&o.StepUp, "step-up", af.stepUp, plan.ParsePercent),
		parseFlag(&o.StepDown, "step-down", af.stepDown, plan.ParsePercent), parseFlag(&o.Headroom, "headroom", af.headroom, plan.ParsePercent),
		parseOptional(&o.Schedule, "schedule", af.schedule, plan.ParseSchedule)); err != nil {
		return err
	}
	if err := firstError(floatIn("target", o.TargetUtilisation, 0, 1), floatIn("step-up", o.StepUp, 0, 1), floatIn("step-down", o.StepDown, 0, 1)); err != nil {
		return err
	}
	if af.spotShare == "" {
		return nil
	}
	return af.spot(cmd, e, sf, o)
}

// spot sets up the spot mix and its price: --spot-price, else --gpu's on-demand price less
// the catalog's spot discount.
func (af *autoscaleFlags) spot(cmd *cobra.Command, e *env, sf *servingFlags, o *plan.AutoscaleOptions) error {
	rate := af.spotRate
	if rate == rateAuto || (!cmd.Flags().Changed("interruption-rate") && af.pool.pool.InstanceType != "") {
		perHour, why, err := af.pool.rate(cmd.Context(), e)
		if err != nil {
			return err
		}
		rate = strconv.FormatFloat(perHour, 'g', -1, 64)
		af.rateNote = "Spot interruptions " + spotrisk.FormatRate(perHour) + " per replica: " + why + "."
	}
	s, err := plan.SpotMix(af.spotShare, rate, sf.provider, af.spotFallback, af.seed)
	if err != nil {
		return err
	}
	switch {
	case af.spotPrice != "":
		if s.PricePerGPU, err = perGPUHourFlag("spot-price", af.spotPrice, "0.30"); err != nil {
			return err
		}
	case sf.gpu != "":
		cat, err := e.loadCatalog(cmd.Context())
		if err != nil {
			return err
		}
		if s.PricePerGPU, err = cat.SpotServingPrice(sf.gpu, sf.provider, o.PricePerGPU); err != nil {
			return err
		}
	default:
		return gpucost.Errorf(gpucost.EInvalid, "--spot-share needs a spot price: give --spot-price, or --gpu for the catalog's spot discount")
	}
	o.Spot = s
	return nil
}

// planAutoscaleHelp is the command's --help text.
const planAutoscaleHelp = `autoscale replays an arrival trace through a serving pool sized by a policy and reports the
replica-hours (billed from launch, booting included), cost, SLO attainment (the share of requests
whose response time — queue wait plus service — is within the SLO's duration; the SLO holds over
the trace when it is at least the SLO's quantile), and requests delayed past the SLO or dropped
after --max-queue-wait. --compare all runs every policy on the same trace beside the oracle,
which resizes every interval to the Erlang C minimum of the true rate with no delay: the gap
column is each policy's extra replica-hours over that bound, beside its SLO attainment. When
more requests than the SLO allows arrive at the onset of bursts (intervals needing more
replicas than any in the provisioning + evaluation before them), a note says so: that is what
keeps reactive policies from the oracle on such a trace.

The model: at each interval the ready replicas serve the interval's rate as an M/M/c queue
(--concurrency requests per replica at once); arrivals beyond the ready capacity queue and are
served oldest first. Decisions come every --evaluation over that window's metrics; launches are
ready after --provisioning; scale-outs are --scale-out-cooldown apart; scale-in goes to the
largest size wanted over --scale-in-window (Kubernetes' stabilisation window). Replays start
warm, at the oracle's size for the first interval.

Policies: static (--replicas, default the trace's peak need), target-tracking (--target
utilisation), step (--step-up/--step-down thresholds), schedule (--schedule; without it each
hour's peak need taken from the scored trace itself, which is hindsight: the run is labelled
"schedule (hindsight)" and never named the best policy), learned-schedule (the causal schedule:
each hour's peak need the day before, learned from earlier days only, or Erlang C on the last
window's rate when more; give --warmup 24h so it is scored on days after the one it learned
from), scale-to-zero (target tracking that goes to zero
after --idle-timeout; a request at zero waits for a cold start), predictive (Erlang C on a
forecast one provisioning delay ahead: the largest of the last window's rate, Holt's trend, and
the rate one --season ago).

--trace is a CSV of request timestamps (one row per request, such as the Azure LLM inference
trace) binned into --step intervals, a CSV of timestamp,rate (requests per second per
interval), or per-source samples, timestamp,source,value (such as each container's requests per
second exported from Prometheus), summed per scrape interval. The shape is told from the header
and first row; a file that could be more than one is refused with what was seen, and
--trace-shape requests, rates or samples says which. Gaps: a rate file with missing intervals is refused unless --gaps zero; silences in a
request log are zero traffic, listed under the table, and refused with --gaps error. An unsorted
log is refused unless --sort.

--service-model tokens takes each request's service time from the trace's token counts (a
replica prefills --prefill-rate and decodes --decode-rate tokens a second in all, shared by
--concurrency sequences) and prices a million tokens for every run.

--spot-share runs that share of replicas on spot, interrupted at --interruption-rate per replica
(auto, the default when --instance-type and --region name the spot pool: its measured rate from
the job events in --events, else its Spot Instance Advisor bucket; docs/architecture.md "Spot risk")
with the provider's notice, replaced on demand (--spot-fallback); the table adds the same policy
all on-demand for comparison.`
