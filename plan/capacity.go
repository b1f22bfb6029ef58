package plan

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/gpucost/gpucost"
)

// The capacity planner sizes a serving pool as a queue (docs/architecture.md "Erlang C" and
// "Response time: wait plus service"): requests arrive as a Poisson stream at λ per second, each
// replica serves one request (or one batch) at a time in a service time S of mean 1/μ, and the
// response time T is the wait in the queue plus the request's own S. Its distribution is exact
// for an exponential S (M/M/c) and the M/G/c approximation of sojourn.go for a measured spread;
// the replicas are the fewest with P(T > SLO) ≤ 1 − q.

// CapacityOptions describes a serving workload and the latency it must keep.
type CapacityOptions struct {
	Rate        float64       // λ: requests per second
	ServiceTime time.Duration // S: mean time one replica takes to serve one request
	// Spread is how S varies: the zero value is exponential, the M/M/c model, exact; a measured
	// coefficient of variation uses the M/G/c approximation (ResponseTail).
	Spread   Spread
	Quantile float64       // the SLO's quantile, 0.99 for p99
	SLO      time.Duration // the response time the quantile must stay within
	// Headroom is the extra traffic the pool must absorb while keeping the SLO: 0.2 sizes for
	// 1.2·λ. The rule of thumb adds it to its GPU count instead (reference case R4).
	Headroom float64
	// MaxReplicas bounds the pool; zero is no bound. Past it the plan is an EInvalid error
	// that gives the rate the bound can serve.
	MaxReplicas int

	GPU            string        // the GPU's name, for reports
	GPUsPerReplica int           // GPUs one replica holds; zero means 1
	PricePerGPU    gpucost.Money // price of one GPU-hour; zero leaves costs out

	// Batch is the number of requests one service serves (a batch; default 1): the queue's
	// customers are batches at Rate/Batch per second, each taking ServiceTime, and BatchFill —
	// the time a batch takes to fill — is added to every response (see Batching).
	Batch     int
	BatchFill time.Duration

	// Concurrency is the requests one replica serves at once (default 1): an LLM server's
	// concurrent sequences. The queue has Concurrency servers per replica.
	Concurrency int

	// Tokens, when set, is the token service model the service time came from, with the
	// trace's token counts: the plan then prices a million tokens.
	Tokens *TokenPlan

	// PerGPUQPS is the rule of thumb's per-GPU throughput "at the latency target" (R4: 200).
	// Zero derives it as a load test on one replica would: the highest rate one replica serves
	// within the SLO.
	PerGPUQPS float64
}

// CapacityResult is the capacity plan.
type CapacityResult struct {
	Rate        float64       `json:"rate_per_s"`
	ServiceTime time.Duration `json:"-"`
	Spread      Spread        `json:"service_spread"`
	Quantile    float64       `json:"quantile"`
	SLO         time.Duration `json:"-"`
	Headroom    float64       `json:"headroom"`

	// MinReplicas is the Erlang C minimum at Rate; Replicas the chosen size, at Rate·(1+Headroom).
	MinReplicas int `json:"min_replicas"`
	Replicas    int `json:"replicas"`
	GPUs        int `json:"gpus"`
	// Utilisation is λS/c at the chosen size: the share of replica time spent serving.
	Utilisation float64 `json:"utilisation"`
	// WaitProbability is C(c, λS): the share of requests that queue at all.
	WaitProbability  float64         `json:"wait_probability"`
	MeanResponse     time.Duration   `json:"-"`
	Latency          []LatencyPoint  `json:"latency"`        // the predicted response-time distribution
	MaxRate          float64         `json:"max_rate_per_s"` // the highest rate the chosen size serves within the SLO
	GPU              string          `json:"gpu,omitempty"`
	PerHour          *gpucost.Money  `json:"per_hour,omitempty"`           // nil without a price
	Per1000Requests  *gpucost.Money  `json:"per_1000_requests,omitempty"`  // at Rate
	PerMillionTokens *TokenPrices    `json:"per_million_tokens,omitempty"` // at Rate, with a token model and a price
	RuleOfThumb      RuleOfThumbPlan `json:"rule_of_thumb"`
	Notes            []string        `json:"notes,omitempty"`
}

// LatencyPoint is one quantile of the predicted response time.
type LatencyPoint struct {
	Quantile float64       `json:"quantile"`
	Response time.Duration `json:"-"`
}

// RuleOfThumbPlan is reference case R4's sizing: ⌈λ / per-GPU QPS⌉ GPUs, plus the headroom
// rounded up (500 QPS at 200 per GPU → 3, + 20% → 4).
type RuleOfThumbPlan struct {
	PerGPUQPS   float64        `json:"per_gpu_qps"`
	QPSSource   string         `json:"per_gpu_qps_source"` // "given" or "one replica at the SLO"
	Base        int            `json:"base_gpus"`
	GPUs        int            `json:"gpus"`
	Replicas    int            `json:"replicas"`
	Utilisation float64        `json:"utilisation"`
	Latency     []LatencyPoint `json:"latency"`
	MeetsSLO    bool           `json:"meets_slo"`
	PerHour     *gpucost.Money `json:"per_hour,omitempty"`
	// ExtraGPUs is the rule's GPUs minus the Erlang C plan's: positive when it over-provisions.
	ExtraGPUs int `json:"extra_gpus"`
}

// reportQuantiles are the quantiles of the predicted latency distribution.
var reportQuantiles = []float64{0.5, 0.9, 0.95, 0.99, 0.999}

// Capacity sizes a serving pool by Erlang C, predicts its latency distribution and cost, and sets
// the R4 rule of thumb beside it. Infeasible requests (a service time over the SLO, a load no
// allowed size carries) are EInvalid errors that name the nearest feasible configuration.
func Capacity(o CapacityOptions) (CapacityResult, error) {
	if err := checkCapacity(o); err != nil {
		return CapacityResult{}, err
	}
	gpusPer := max(1, o.GPUsPerReplica)
	r := CapacityResult{Rate: o.Rate, ServiceTime: o.ServiceTime, Spread: o.Spread, Quantile: o.Quantile, SLO: o.SLO, Headroom: o.Headroom, GPU: o.GPU}
	q := o.queue()
	var err error
	if r.MinReplicas, err = ReplicasFor(q.Rate, q.ServiceTime, q.Spread, q.Quantile, q.SLO); err != nil {
		return r, err
	}
	if r.Replicas, err = ReplicasFor(q.Rate*(1+o.Headroom), q.ServiceTime, q.Spread, q.Quantile, q.SLO); err != nil {
		return r, err
	}
	k := o.slots()
	r.MinReplicas, r.Replicas = (r.MinReplicas+k-1)/k, (r.Replicas+k-1)/k // servers to replicas
	if o.MaxReplicas > 0 && r.Replicas > o.MaxReplicas {
		return r, tooFewReplicas(o, r.Replicas)
	}
	r.GPUs = r.Replicas * gpusPer
	c := r.Replicas * k
	a := q.Rate * q.ServiceTime.Seconds()
	r.Utilisation = a / float64(max(c, 1))
	r.WaitProbability = ErlangC(c, a)
	r.MeanResponse = o.BatchFill + MeanResponse(c, q.Rate, q.ServiceTime, q.Spread)
	r.Latency = latencyPoints(c, q.Rate, q.ServiceTime, q.Spread, o.BatchFill)
	r.MaxRate = MaxRate(c, q.ServiceTime, q.Spread, q.Quantile, q.SLO) * float64(q.batch())
	if !o.PricePerGPU.IsZero() {
		hour := o.PricePerGPU.MulFloat(float64(r.GPUs))
		r.PerHour = &hour
		if o.Rate > 0 {
			per := hour.MulFloat(1000 / (o.Rate * 3600))
			r.Per1000Requests = &per
			if o.Tokens != nil {
				p := o.Tokens.PerMillion(hour, o.Rate)
				r.PerMillionTokens = &p
			}
		}
	}
	r.RuleOfThumb = servingRuleOfThumb(o, r)
	r.Notes = capacityNotes(o, r)
	return r, nil
}

// queue returns the options as the queue sees them: batches at Rate/Batch, within the SLO less
// the fill time.
func (o CapacityOptions) queue() CapacityOptions {
	q := o
	q.Rate = o.Rate / float64(o.batch())
	q.SLO = o.SLO - o.BatchFill
	return q
}

func (o CapacityOptions) batch() int { return max(1, o.Batch) }

// slots is the requests one replica serves at once: the queue's servers per replica.
func (o CapacityOptions) slots() int { return max(1, o.Concurrency) }

func checkCapacity(o CapacityOptions) error {
	switch {
	case o.Headroom < 0 || math.IsNaN(o.Headroom) || o.Headroom > 10:
		return gpucost.Errorf(gpucost.EInvalid, "headroom %v: give a share between 0 and 10, such as 0.2 for 20%%", o.Headroom)
	case o.PerGPUQPS < 0 || math.IsNaN(o.PerGPUQPS) || math.IsInf(o.PerGPUQPS, 0):
		return gpucost.Errorf(gpucost.EInvalid, "per-GPU QPS %v: give a positive throughput or 0 to derive it", o.PerGPUQPS)
	case o.PricePerGPU.Nanos < 0:
		return gpucost.Errorf(gpucost.EInvalid, "price %s per GPU-hour: give a price of zero or more", o.PricePerGPU)
	case o.Concurrency < 0:
		return gpucost.Errorf(gpucost.EInvalid, "concurrency %d: give the requests one replica serves at once, 1 or more", o.Concurrency)
	case o.MaxReplicas < 0:
		return gpucost.Errorf(gpucost.EInvalid, "max replicas %d: give a positive bound or 0 for none", o.MaxReplicas)
	case o.Batch < 0 || o.BatchFill < 0 || o.BatchFill >= o.SLO:
		return gpucost.Errorf(gpucost.EInvalid, "batch of %d filling in %v: give a batch of 1 or more that fills within the SLO %v", o.Batch, o.BatchFill, o.SLO)
	}
	q := o.queue()
	_, err := ReplicasFor(0, q.ServiceTime, q.Spread, q.Quantile, q.SLO) // checks S, q and the SLO
	return err
}

// tooFewReplicas explains a load that needs more replicas than allowed, with what the allowed
// size does serve.
func tooFewReplicas(o CapacityOptions, need int) error {
	q := o.queue()
	most := MaxRate(o.MaxReplicas*o.slots(), q.ServiceTime, q.Spread, q.Quantile, q.SLO) * float64(o.batch())
	return gpucost.Errorf(gpucost.EInvalid,
		"%.4g requests/s (with %.0f%% headroom) at %v each needs %d replicas for p%s ≤ %v, more than the %d allowed (utilisation would be %.0f%% or more); %d replicas serve at most %.4g requests/s: lower the rate or headroom, raise the replica limit, or shorten the service time",
		o.Rate, 100*o.Headroom, o.ServiceTime, need, quantileName(o.Quantile), o.SLO, o.MaxReplicas,
		100*q.Rate*o.ServiceTime.Seconds()/float64(o.MaxReplicas*o.slots()), o.MaxReplicas, most/(1+o.Headroom))
}

// MeanResponse returns the mean response time of c replicas serving in a mean time s with
// spread sp: s + C/(cμ − λ)·(1 + cv²)/2, exact for the exponential (M/M/c) and Allen–Cunneen's
// approximation otherwise. It is the largest duration when the queue is unstable.
func MeanResponse(c int, rate float64, s time.Duration, sp Spread) time.Duration {
	a := rate * s.Seconds()
	if a >= float64(c) {
		return math.MaxInt64
	}
	cv := sp.cv()
	return s + dur(ErlangC(c, a)/(float64(c)/s.Seconds()-rate)*(1+cv*cv)/2)
}

// ResponseQuantile returns the q-quantile of the response time, the wait plus the service, of
// c replicas at rate λ serving in a mean time s with spread sp (ResponseTail). It is the
// largest duration when the queue is unstable.
func ResponseQuantile(c int, rate float64, s time.Duration, sp Spread, q float64) time.Duration {
	if c <= 0 {
		return math.MaxInt64
	}
	t := newSojourn(c, rate, newService(s, sp), ErlangC(c, rate*s.Seconds())).quantile(q)
	if math.IsInf(t, 1) || t > float64(math.MaxInt64)/1e9 {
		return math.MaxInt64
	}
	return dur(t)
}

// MaxRate returns the highest arrival rate at which c replicas keep the q-quantile of the
// response time within slo, found by bisection (the tail rises with the rate). It is 0 when
// the service time alone misses the SLO.
func MaxRate(c int, s time.Duration, sp Spread, q float64, slo time.Duration) float64 {
	if c <= 0 || s <= 0 || ServiceTail(s, sp, slo) > 1-q {
		return 0
	}
	lo, hi := 0.0, float64(c)/s.Seconds()
	for range 100 {
		mid := (lo + hi) / 2
		if ResponseTail(c, mid, s, sp, slo) <= 1-q {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// latencyPoints predicts the response-time quantiles of c replicas, each with fill added
// (unless the queue is unstable).
func latencyPoints(c int, rate float64, s time.Duration, sp Spread, fill time.Duration) []LatencyPoint {
	out := make([]LatencyPoint, len(reportQuantiles))
	for i, q := range reportQuantiles {
		resp := ResponseQuantile(c, rate, s, sp, q)
		if resp != math.MaxInt64 {
			resp += fill
		}
		out[i] = LatencyPoint{Quantile: q, Response: resp}
	}
	return out
}

// servingRuleOfThumb sizes the pool as reference case R4 does and predicts what that size gives.
func servingRuleOfThumb(o CapacityOptions, r CapacityResult) RuleOfThumbPlan {
	gpusPer := max(1, o.GPUsPerReplica)
	q := o.queue()
	rt := RuleOfThumbPlan{PerGPUQPS: o.PerGPUQPS, QPSSource: "given"}
	if rt.PerGPUQPS == 0 {
		rt.PerGPUQPS = MaxRate(o.slots(), q.ServiceTime, q.Spread, q.Quantile, q.SLO) * float64(o.batch()) / float64(gpusPer)
		rt.QPSSource = "one replica at the SLO"
	}
	if o.Rate > 0 && rt.PerGPUQPS > 0 {
		rt.Base = int(math.Ceil(o.Rate/rt.PerGPUQPS - 1e-9))
	}
	rt.GPUs = int(math.Ceil(float64(rt.Base)*(1+o.Headroom) - 1e-9))
	rt.Replicas = (rt.GPUs + gpusPer - 1) / gpusPer
	a := q.Rate * q.ServiceTime.Seconds()
	if rt.Replicas > 0 {
		rt.Utilisation = a / float64(rt.Replicas*o.slots())
	}
	rt.Latency = latencyPoints(rt.Replicas*o.slots(), q.Rate, q.ServiceTime, q.Spread, o.BatchFill)
	rt.MeetsSLO = o.Rate == 0 || ResponseTail(rt.Replicas*o.slots(), q.Rate, q.ServiceTime, q.Spread, q.SLO) <= 1-q.Quantile+1e-12
	if r.PerHour != nil {
		h := o.PricePerGPU.MulFloat(float64(rt.GPUs))
		rt.PerHour = &h
	}
	rt.ExtraGPUs = rt.GPUs - r.GPUs
	return rt
}

func capacityNotes(o CapacityOptions, r CapacityResult) []string {
	var notes []string
	if r.Utilisation > 0.85 {
		notes = append(notes, fmt.Sprintf("Utilisation %.0f%% is above the 85%% at which serving pools usually scale out (docs/architecture.md: target 60–80%%); a burst will breach the SLO — consider more headroom.", 100*r.Utilisation))
	}
	if r.Rate > 0 && r.Utilisation < 0.4 {
		notes = append(notes, fmt.Sprintf("Utilisation %.0f%% is low: the SLO, not the load, sets the size; batching or a faster GPU would shorten the service time.", 100*r.Utilisation))
	}
	if rt := r.RuleOfThumb; rt.ExtraGPUs > 0 {
		notes = append(notes, fmt.Sprintf("The rule of thumb (R4) asks %d GPUs more than Erlang C: it ignores that pooled replicas absorb each other's bursts.", rt.ExtraGPUs))
	} else if !rt.MeetsSLO {
		q := o.queue()
		one := MaxRate(o.slots(), q.ServiceTime, q.Spread, q.Quantile, q.SLO) * float64(o.batch()) / float64(max(1, o.GPUsPerReplica))
		notes = append(notes, fmt.Sprintf("The rule of thumb (R4) with %d GPUs misses the SLO: %.4g QPS per GPU is more than one GPU serves within p%s ≤ %v at this service time (%.4g QPS); that throughput needs batching (gpucost plan batching).",
			rt.GPUs, rt.PerGPUQPS, quantileName(o.Quantile), o.SLO, one))
	}
	return notes
}

// quantileName writes 0.99 as "99" and 0.999 as "99.9".
func quantileName(q float64) string {
	return fmt.Sprintf("%g", math.Round(q*1e6)/1e4)
}

// MarshalJSON writes the plan with its durations in seconds.
func (r CapacityResult) MarshalJSON() ([]byte, error) {
	type plain CapacityResult
	return json.Marshal(struct {
		ServiceS      float64 `json:"service_time_s"`
		SLOS          float64 `json:"slo_s"`
		MeanResponseS float64 `json:"mean_response_s"`
		plain
	}{r.ServiceTime.Seconds(), r.SLO.Seconds(), r.MeanResponse.Seconds(), plain(r)})
}

// MarshalJSON writes the quantile with its response time in seconds.
func (p LatencyPoint) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Quantile  float64 `json:"quantile"`
		ResponseS float64 `json:"response_s"`
	}{p.Quantile, p.Response.Seconds()})
}
