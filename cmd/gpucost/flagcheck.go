package main

import (
	"fmt"
	"math"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/internal/cliflag"
	"github.com/gpucost/gpucost/plan"
	"github.com/gpucost/gpucost/plan/planfile"
	"github.com/gpucost/gpucost/recommend"
	"github.com/spf13/cobra"
)

// The generic checks are internal/cliflag's; these names keep the commands' calls short.
// Each returns a usage error, exit 2, that names the flag, the value and the range.
var (
	firstError     = cliflag.First
	flagRangeError = cliflag.RangeError
	intAtLeast     = cliflag.IntAtLeast
	durAtLeast     = cliflag.DurAtLeast
	durNotNegative = cliflag.DurNotNegative
	floatIn        = cliflag.FloatIn
	floatAbove     = cliflag.FloatAbove
	oneOf          = cliflag.OneOf
)

// checkSplit refuses a --policy or --weight the cost split does not take. A costFlags built in
// code may leave the policy empty (requested) and the weight 0 (the default).
func (f *costFlags) checkSplit() error {
	if f.policy != "" {
		if err := oneOf("policy", f.policy, gpucost.PolicyRequested, gpucost.PolicyUsed, gpucost.PolicyWeighted); err != nil {
			return err
		}
	}
	if f.policy == gpucost.PolicyWeighted && f.weight == 0 {
		// The split would take 0 for its default, 0.5.
		return flagRangeError("weight", 0, "a share above 0 and at most 1 with --policy weighted; --policy used splits all by used time")
	}
	return floatIn("weight", f.weight, 0, 1)
}

// checkFlags refuses serve's periods and rate limits out of range before it listens.
func (o *serveOptions) checkFlags() error {
	s := o.security.flags
	return firstError(durAtLeast("flush", o.flush, 1), durAtLeast("keep-minutes", o.keepMinutes, 1),
		durNotNegative("views-every", o.viewsEvery), durAtLeast("check-every", o.checkEvery, 1),
		durAtLeast("pull-every", o.pull.every, 1),
		cliflag.Limit("ingest-rate", s.IngestRate), cliflag.Limit("bill-rate", s.BillRate),
		cliflag.Limit("ingest-burst", float64(s.IngestBurst)), cliflag.Limit("bill-burst", float64(s.BillBurst)),
		cliflag.Limit("max-auth-failures", float64(s.AuthFailures)))
}

// checkFlags refuses run's periods, restarts and notice source out of range before the job
// starts.
func (f runFlags) checkFlags() error {
	return firstError(durAtLeast("sync-interval", f.syncInterval, 1), intAtLeast("max-restarts", f.maxRestarts, 0),
		durNotNegative("grace", f.grace), durAtLeast("poll", f.poll, 1), durNotNegative("upload-floor", f.uploadFloor),
		oneOf("cloud", f.cloud, "auto", "aws", "gcp", "azure", "none"))
}

// checkFlags refuses the serving planners' service flags out of range.
func (s *servingFlags) checkFlags() error {
	err := firstError(durNotNegative("service-time", s.serviceTime), intAtLeast("batch-size", s.batchSize, 0),
		floatIn("prefill-rate", s.prefillRate, 0, math.Inf(1)), floatIn("decode-rate", s.decodeRate, 0, math.Inf(1)))
	if err == nil && s.serviceModel != "" {
		err = oneOf("service-model", s.serviceModel, "time", "tokens")
	}
	return err
}

// providerNeedsGPU refuses a --provider without --gpu where it only picks the GPU's price
// (plan batching and capacity; plan autoscale's spot replicas take its notice too).
func (s *servingFlags) providerNeedsGPU() error {
	if s.provider != "" && s.gpu == "" {
		return usageError{fmt.Errorf("--provider %q: give it with --gpu, whose price it picks (--price gives one of your own)", s.provider)}
	}
	return nil
}

// checkTraceFlags refuses --gaps, --trace-shape and --step values that a trace would be read
// with, whether or not --trace is given, so a misspelt one is not ignored.
func checkTraceFlags(o planfile.TraceOptions) error {
	if o.Gaps != "" {
		if err := oneOf("gaps", o.Gaps, "auto", "error", "zero"); err != nil {
			return err
		}
	}
	if o.Shape != "" {
		if err := oneOf("trace-shape", o.Shape, "requests", "rates", "samples"); err != nil {
			return err
		}
	}
	if o.Step != "" {
		if d, err := time.ParseDuration(o.Step); err != nil || d <= 0 {
			return usageError{fmt.Errorf("--step %q: give an interval above 0, such as 1s or 1m", o.Step)}
		}
	}
	return nil
}

// checkFlags refuses plan autoscale's counts, periods, trace and spot flags out of range,
// the spot ones even without --spot-share.
func (af *autoscaleFlags) checkFlags(o *plan.AutoscaleOptions) error {
	err := firstError(checkTraceFlags(planfile.TraceOptions{Gaps: af.gaps, Step: af.step, Shape: af.shape}),
		intAtLeast("concurrency", o.Concurrency, 1), intAtLeast("min-replicas", o.MinReplicas, 0),
		intAtLeast("max-replicas", o.MaxReplicas, 0), intAtLeast("replicas", o.Replicas, 0),
		durAtLeast("evaluation", o.Evaluation, 1), durAtLeast("season", o.Season, 1),
		durNotNegative("provisioning", o.Provisioning), durNotNegative("scale-out-cooldown", o.ScaleOutCooldown),
		durNotNegative("scale-in-window", o.ScaleInCooldown), durNotNegative("idle-timeout", o.IdleTimeout),
		durNotNegative("max-queue-wait", o.MaxQueueWait), durNotNegative("warmup", o.Warmup))
	if err == nil && af.spotRate != rateAuto {
		_, err = flagValue("interruption-rate", af.spotRate, plan.ParseRate)
	}
	if err == nil && af.spotPrice != "" {
		_, err = perGPUHourFlag("spot-price", af.spotPrice, "0.30")
	}
	return err
}

// checkFlags refuses plan commit's discount, period and backtest flags out of range, those that
// go with --backtest or --from-store even without them.
func (c *commitFlags) checkFlags(e *env) error {
	if c.in.Discount != 0 || math.IsNaN(c.in.Discount) {
		if !(c.in.Discount > 0 && c.in.Discount < 1) {
			return flagRangeError("discount", c.in.Discount, "a share off on-demand above 0 and below 1, such as 0.4")
		}
	}
	_, errLookback := parseAgo("lookback", c.lookback)
	_, errPeriod := parseAgo("period", c.horizon)
	_, errWindow := c.window.window(e.now())
	return firstError(errLookback, errPeriod, errWindow,
		oneOf("rule", c.rule, "auto", "trailing", "recent", "level", "weighted"),
		oneOf("term", string(c.in.Term), "1y", "3y"), oneOf("payment", string(c.in.Payment), "all", "partial", "none"))
}

// checkFlags refuses the recommender's flags out of range even where a listing does not use
// them (recommend applied without --detect).
func (f *recommendFlags) checkFlags(e *env) error {
	if _, _, err := f.billPeriod(e); err != nil {
		return err
	}
	_, err := recommend.NewOptions(f.minSaving, f.otherProviders, f.moveDataGB)
	return err
}

// hoursPerMonth refuses plan commit roi's --hours outside a month (plan.HoursPerMonth is the
// average one).
func hoursPerMonth(h int) error {
	if h < 1 || h > 744 {
		return flagRangeError("hours", h, "the hours in a month, from 1 to 744, such as 720 or 730")
	}
	return nil
}

// givenAtLeast refuses n below least when --flag was given: not given, its 0 takes the
// command's default.
func givenAtLeast(cmd *cobra.Command, flag string, n, least int) error {
	if cmd.Flags().Changed(flag) {
		return intAtLeast(flag, n, least)
	}
	return nil
}

// instanceMFU refuses a given --mfu outside (0, 1]; not given, it is 0 and plan instance
// takes its default.
func instanceMFU(cmd *cobra.Command, mfu float64) error {
	if cmd.Flags().Changed("mfu") && !(mfu > 0 && mfu <= 1) {
		return flagRangeError("mfu", mfu, "a share above 0 and at most 1, such as 0.4")
	}
	return nil
}

// latestNote notes under a log listing that --limit cut it: n entries shown, limit asked.
func latestNote(t result, n, limit int) result {
	if limit > 0 && n == limit {
		t.Notes = append(t.Notes, fmt.Sprintf("The latest %d entries; --limit 0 prints them all.", limit))
	}
	return t
}

// knownProvider refuses a --provider the catalog has no offers from: its prices would
// silently be the other providers'.
func knownProvider(cat *catalog.Catalog, provider string) error {
	return cliflag.OneOfFold("provider", provider, cat.Providers()...)
}

// maxBusyReplicas bounds the replicas busy at once that a serving plan sizes for: no service
// runs a million GPUs, and the sizing's search grows with the count (a --rate of 1e15 ran
// for hours).
const maxBusyReplicas = 1e6

// busyReplicas refuses a rate whose offered load, rate × service time over what one replica
// serves at once, is over maxBusyReplicas.
func busyReplicas(rate float64, s time.Duration, perReplica int) error {
	per := float64(max(perReplica, 1))
	if rate*s.Seconds()/per > maxBusyReplicas {
		return usageError{fmt.Errorf("--rate %v at %v a request keeps over %.0f replicas busy at once: give a rate of at most %.4g requests/s", rate, s, float64(maxBusyReplicas), maxBusyReplicas*per/s.Seconds())}
	}
	return nil
}
