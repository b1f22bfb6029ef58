package plan

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/gpucost/gpucost"
)

// BatchingOptions describe the traffic, the SLO and the model's latency profile.
type BatchingOptions struct {
	Rate     float64       // λ: requests per second
	Quantile float64       // the SLO's quantile, 0.99 for p99
	SLO      time.Duration // response time: batch formation + wait for a replica + batch run
	Profile  LatencyProfile
	// MaxBatch caps the batch size (the model's own limit); zero is the profile's largest.
	MaxBatch       int
	GPUsPerReplica int           // default 1
	PricePerGPU    gpucost.Money // price of one GPU-hour; zero leaves costs out
	// Spread is how a batch's run time varies at a given size. Unlike the other planners, the
	// zero value is ProfileSpread: a profile measures the run time of each size, which a GPU
	// repeats closely.
	Spread Spread
}

// ProfileSpread is the spread of a batch run time read from a latency profile: constant.
var ProfileSpread = Spread{CV: 0, Source: "latency profile"}

func (o BatchingOptions) spread() Spread {
	if o.Spread.Source == "" {
		return ProfileSpread
	}
	return o.Spread
}

// BatchPlan is one batch size with full batches at the rate: the replicas it needs and the
// Triton settings that follow.
type BatchPlan struct {
	MaxBatchSize int `json:"max_batch_size"`
	// MaxQueueDelay is the largest max_queue_delay that keeps the SLO: a request that waits
	// that long for its batch still meets it at the q-quantile of the replica wait.
	MaxQueueDelay time.Duration `json:"-"`
	Fill          time.Duration `json:"-"` // (B − 1)/λ: how long a batch takes to fill at the rate
	Service       time.Duration `json:"-"` // s(B)
	Replicas      int           `json:"replicas"`
	GPUs          int           `json:"gpus"`
	Utilisation   float64       `json:"utilisation"`
	// Response is the predicted q-quantile of the response time: fill + wait + s(B).
	Response time.Duration `json:"-"`
	// ThroughputPerGPU is B / s(B) per GPU with the replica always busy, requests per second.
	ThroughputPerGPU float64        `json:"throughput_per_gpu"`
	PerHour          *gpucost.Money `json:"per_hour,omitempty"`
}

// BatchingResult is the batching plan: every batch size that keeps the SLO, and the best.
type BatchingResult struct {
	Rate     float64        `json:"rate_per_s"`
	Quantile float64        `json:"quantile"`
	SLO      time.Duration  `json:"-"`
	Profile  LatencyProfile `json:"profile"`
	Plans    []BatchPlan    `json:"plans"` // by batch size
	// Best is the plan with the fewest GPUs, the largest batch among equals.
	Best BatchPlan `json:"best"`
	// Unbatched is the plan with batches of one, for comparison.
	Unbatched *BatchPlan `json:"unbatched,omitempty"`
	// LargestBatch is the largest batch size that can keep the SLO at all (given enough replicas).
	LargestBatch int      `json:"largest_batch"`
	Notes        []string `json:"notes,omitempty"`
}

// Batching finds, for each batch size of the profile, the replicas that keep the SLO with full
// batches at the rate, and the largest queue delay that still keeps it; the best plan has the
// fewest GPUs. A profile whose smallest batch alone exceeds the SLO is an EInvalid error.
func Batching(o BatchingOptions) (BatchingResult, error) {
	if err := checkBatching(o); err != nil {
		return BatchingResult{}, err
	}
	r := BatchingResult{Rate: o.Rate, Quantile: o.Quantile, SLO: o.SLO, Profile: o.Profile}
	sizes := o.Profile.candidates(o.MaxBatch)
	if !slices.Contains(sizes, 1) {
		sizes = append([]int{1}, sizes...)
	}
	for _, b := range sizes {
		p, ok := batchPlan(o, b)
		if !ok {
			continue
		}
		r.LargestBatch = b
		r.Plans = append(r.Plans, p)
		if b == 1 {
			u := p
			r.Unbatched = &u
		}
		if len(r.Plans) == 1 || p.GPUs <= r.Best.GPUs {
			r.Best = p
		}
	}
	if len(r.Plans) == 0 {
		s1 := o.Profile.Service(1)
		return r, gpucost.Errorf(gpucost.EInvalid, "even a batch of one takes %v, longer than the SLO %v: no batch size meets it; raise the SLO to at least %v or serve on a faster GPU",
			s1, o.SLO, s1)
	}
	r.Notes = batchingNotes(o, r)
	return r, nil
}

func checkBatching(o BatchingOptions) error {
	switch {
	case o.Rate <= 0 || math.IsNaN(o.Rate) || math.IsInf(o.Rate, 0):
		return gpucost.Errorf(gpucost.EInvalid, "arrival rate %v: give a positive rate in requests per second", o.Rate)
	case o.Quantile <= 0 || o.Quantile >= 1:
		return gpucost.Errorf(gpucost.EInvalid, "quantile %v: give one between 0 and 1, such as p99", o.Quantile)
	case o.SLO <= 0:
		return gpucost.Errorf(gpucost.EInvalid, "SLO %v: give a positive response time", o.SLO)
	case o.Profile.MaxBatch < 1:
		return gpucost.Errorf(gpucost.EInvalid, "latency profile: empty; give measurements or a fitted line")
	case o.MaxBatch < 0 || o.GPUsPerReplica < 0 || o.PricePerGPU.Nanos < 0:
		return gpucost.Errorf(gpucost.EInvalid, "the batch limit, GPUs per replica and price must not be negative")
	}
	return nil
}

// batchPlan sizes the pool for full batches of b, and false if b cannot keep the SLO.
func batchPlan(o BatchingOptions, b int) (BatchPlan, bool) {
	s := o.Profile.Service(float64(b))
	fill := dur(float64(b-1) / o.Rate)
	budget := o.SLO - fill
	if s > budget || s <= 0 {
		return BatchPlan{}, false
	}
	batches := o.Rate / float64(b)
	n, err := ReplicasFor(batches, s, o.spread(), o.Quantile, budget)
	if err != nil {
		return BatchPlan{}, false
	}
	gpusPer := max(1, o.GPUsPerReplica)
	p := BatchPlan{MaxBatchSize: b, Fill: fill, Service: s, Replicas: n, GPUs: n * gpusPer,
		Utilisation: batches * s.Seconds() / float64(n), ThroughputPerGPU: float64(b) / s.Seconds() / float64(gpusPer)}
	resp := ResponseQuantile(n, batches, s, o.spread(), o.Quantile) // the batch's wait for a replica and its run
	p.Response = fill + resp
	p.MaxQueueDelay = max(fill, o.SLO-resp).Truncate(time.Microsecond)
	if !o.PricePerGPU.IsZero() {
		h := o.PricePerGPU.MulFloat(float64(p.GPUs))
		p.PerHour = &h
	}
	return p, true
}

func batchingNotes(o BatchingOptions, r BatchingResult) []string {
	var notes []string
	if u := r.Unbatched; u != nil && u.GPUs > r.Best.GPUs {
		notes = append(notes, fmt.Sprintf("Batches of %d need %d GPUs against %d without batching (%.0f%% fewer).",
			r.Best.MaxBatchSize, r.Best.GPUs, u.GPUs, 100*(1-float64(r.Best.GPUs)/float64(u.GPUs))))
	}
	if r.LargestBatch < o.Profile.MaxBatch && (o.MaxBatch == 0 || r.LargestBatch < o.MaxBatch) {
		notes = append(notes, fmt.Sprintf("Batches over %d cannot keep p%s ≤ %v at %.4g requests/s: they take too long to fill or to run.",
			r.LargestBatch, quantileName(o.Quantile), o.SLO, o.Rate))
	}
	if len(o.Profile.Points) > 1 && o.Profile.R2 < 0.9 {
		notes = append(notes, fmt.Sprintf("The profile is far from a line (R² = %.2f): the measured points are used; check them.", o.Profile.R2))
	}
	return notes
}

// MarshalJSON writes the plan with its durations in seconds.
func (p BatchPlan) MarshalJSON() ([]byte, error) {
	type plain BatchPlan
	return json.Marshal(struct {
		DelayUS   int64   `json:"max_queue_delay_microseconds"`
		FillS     float64 `json:"fill_s"`
		ServiceS  float64 `json:"service_s"`
		ResponseS float64 `json:"response_s"`
		plain
	}{p.MaxQueueDelay.Microseconds(), p.Fill.Seconds(), p.Service.Seconds(), p.Response.Seconds(), plain(p)})
}

// MarshalJSON writes the result with the SLO in seconds.
func (r BatchingResult) MarshalJSON() ([]byte, error) {
	type plain BatchingResult
	return json.Marshal(struct {
		SLOS float64 `json:"slo_s"`
		plain
	}{r.SLO.Seconds(), plain(r)})
}
