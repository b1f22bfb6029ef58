package main

import (
	"context"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/plan"
	"github.com/gpucost/gpucost/plan/planfile"
	"github.com/gpucost/gpucost/traffic"
	"github.com/spf13/cobra"
)

// servingFlags are the flags plan capacity, plan autoscale and plan batching share: the service
// time (or a batch profile), the SLO and the GPU with its price (catalog.ServingPrice).
type servingFlags struct {
	serviceTime  time.Duration
	serviceCV    string
	serviceModel string
	prefillRate  float64
	decodeRate   float64
	tokenProfile string
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
	spread     plan.Spread // from --service-cv; the zero value is the planner's default
}

func (s *servingFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.DurationVar(&s.serviceTime, "service-time", 0, "mean time one replica takes to serve one request, such as 30ms")
	f.StringVar(&s.serviceModel, "service-model", "time", "time (--service-time or --batch-profile) or tokens (--prefill-rate, --decode-rate and --concurrency, with the token counts of --trace)")
	f.Float64Var(&s.prefillRate, "prefill-rate", 0, "--service-model tokens: input tokens a second one replica prefills, in all")
	f.Float64Var(&s.decodeRate, "decode-rate", 0, "--service-model tokens: output tokens a second one replica generates, in all")
	f.StringVar(&s.tokenProfile, "token-profile", "", "--service-model tokens: CSV of measured requests (input_tokens, output_tokens, latency_ms) at --concurrency, to fit the prefill and decode rates")
	f.StringVar(&s.serviceCV, "service-cv", "", "spread of the service time: its coefficient of variation (σ/mean); 0 constant, 1 exponential (default for --service-time: M/M/c, exact), above 1 heavy-tailed; other values use the M/G/c approximation")
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
	if err := s.checkFlags(); err != nil {
		return err
	}
	var err error
	if s.quantile, s.target, err = plan.ParseSLO(s.slo); err != nil {
		return gpucost.Errorf(gpucost.EInvalid, "--slo %w", err)
	}
	if s.serviceCV != "" {
		cv, err := strconv.ParseFloat(strings.TrimSpace(s.serviceCV), 64)
		if err != nil || cv < 0 || cv > 20 || math.IsNaN(cv) {
			return gpucost.Errorf(gpucost.EInvalid, "--service-cv %q: give the service time's coefficient of variation, between 0 (constant) and 20, such as 0.5", s.serviceCV)
		}
		s.spread = plan.Spread{CV: cv, Source: "--service-cv"}
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

// service returns how a replica serves: --service-time per request, or batches planned from
// --batch-profile for rate (at --batch-size, or the batching plan's best size).
func (s *servingFlags) service(rate float64) (plan.BatchService, error) {
	if s.batchProfile == "" {
		if s.serviceTime <= 0 {
			return plan.BatchService{}, gpucost.Errorf(gpucost.EInvalid, "--service-time is required (such as 30ms), or give --batch-profile")
		}
		return plan.BatchService{S: s.serviceTime, Batch: 1, Spread: s.spread}, nil
	}
	if s.serviceTime > 0 {
		return plan.BatchService{}, gpucost.Errorf(gpucost.EInvalid, "give --service-time or --batch-profile, not both")
	}
	prof, err := planfile.ReadLatencyProfile(s.batchProfile)
	if err != nil {
		return plan.BatchService{}, err
	}
	return plan.PlanBatchService(prof, rate, s.quantile, s.target, s.batchSize, s.spread)
}

// tokenService returns the service of the token model on a trace's token counts, with the
// plan that prices tokens; a nil plan when --service-model is time.
func (s *servingFlags) tokenService(tr *traffic.Trace, concurrency int) (plan.BatchService, *plan.TokenPlan, error) {
	switch s.serviceModel {
	case "", "time":
		if s.prefillRate != 0 || s.decodeRate != 0 || s.tokenProfile != "" {
			return plan.BatchService{}, nil, gpucost.Errorf(gpucost.EInvalid, "--prefill-rate, --decode-rate and --token-profile go with --service-model tokens")
		}
		return plan.BatchService{}, nil, nil
	case "tokens":
	default:
		return plan.BatchService{}, nil, gpucost.Errorf(gpucost.EInvalid, "--service-model %q: use time or tokens", s.serviceModel)
	}
	if s.serviceTime > 0 || s.batchProfile != "" || s.serviceCV != "" {
		return plan.BatchService{}, nil, gpucost.Errorf(gpucost.EInvalid, "--service-model tokens takes the service time from the token counts: leave out --service-time, --batch-profile and --service-cv")
	}
	return planfile.TokenService(tr, planfile.TokenModel{PrefillRate: s.prefillRate, DecodeRate: s.decodeRate, Concurrency: concurrency, Profile: s.tokenProfile})
}
