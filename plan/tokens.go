package plan

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/gpucost/gpucost"
)

// The token service model (docs/architecture.md "Token service model"): a replica prefills at
// PrefillRate input tokens a second and decodes at DecodeRate output tokens a second, in all,
// shared by up to Concurrency sequences at once. Each sequence is one of the replica's
// Concurrency servers and runs at 1/Concurrency of those rates, so a request of i input and o
// output tokens takes s = Concurrency·(i/PrefillRate + o/DecodeRate), and a fully busy replica
// serves the model's throughput. The trace's token counts give s's mean and spread, which the
// queue takes as an M/G/c service time (ResponseTail).

// TokenModel is a replica's token throughput and concurrency limit.
type TokenModel struct {
	PrefillRate float64 `json:"prefill_tokens_per_s"` // input tokens a second per replica
	DecodeRate  float64 `json:"decode_tokens_per_s"`  // output tokens a second per replica
	Concurrency int     `json:"concurrency"`          // sequences one replica serves at once
}

// TokenMoments are the sums over requests of their token counts, their squares and products.
type TokenMoments struct {
	Requests                  float64
	Input, Output             float64
	Input2, Output2, InputOut float64
}

// TokenPlan is a token model applied to a trace's token counts.
type TokenPlan struct {
	Model   TokenModel
	Moments TokenMoments
	// Sample is the trace's token counts request by request (input, output), when kept: with
	// 100 or more, Service gives the measured service times' distribution, not only their cv.
	Sample [][2]float64
}

// TokenPrices are the costs of a million tokens: input and output each bear the share of the
// replicas' time spent on them, the total is the cost over all tokens.
type TokenPrices struct {
	Input, Output, Total gpucost.Money
}

// MarshalJSON writes the prices as decimals.
func (p TokenPrices) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]string{"input": p.Input.Decimal(), "output": p.Output.Decimal(), "total": p.Total.Decimal()})
}

// Check returns an EInvalid error for a model that serves nothing.
func (m TokenModel) Check() error {
	switch {
	case !(m.PrefillRate > 0) || !(m.DecodeRate > 0) || math.IsInf(m.PrefillRate, 0) || math.IsInf(m.DecodeRate, 0):
		return gpucost.Errorf(gpucost.EInvalid, "token model: prefill %v and decode %v tokens/s: give both rates a replica sustains, such as --prefill-rate 8000 --decode-rate 1200", m.PrefillRate, m.DecodeRate)
	case m.Concurrency < 1:
		return gpucost.Errorf(gpucost.EInvalid, "token model: concurrency %d: give the sequences one replica serves at once, 1 or more", m.Concurrency)
	}
	return nil
}

// Service returns the mean service time of a request and its spread under the model.
func (p TokenPlan) Service() (time.Duration, Spread, error) {
	if err := p.Model.Check(); err != nil {
		return 0, Spread{}, err
	}
	t := p.Moments
	if t.Requests <= 0 || t.Input+t.Output <= 0 {
		return 0, Spread{}, gpucost.Errorf(gpucost.EInvalid, "token model: the trace has no token counts; give a request log with input and output token columns (such as ContextTokens,GeneratedTokens)")
	}
	k := float64(p.Model.Concurrency)
	a, b := k/p.Model.PrefillRate, k/p.Model.DecodeRate // seconds per input and output token
	n := t.Requests
	mean := (a*t.Input + b*t.Output) / n
	second := (a*a*t.Input2 + 2*a*b*t.InputOut + b*b*t.Output2) / n
	cv := math.Sqrt(max(0, second-mean*mean)) / mean
	source := fmt.Sprintf("token counts of %.0f requests", n)
	if len(p.Sample) > 0 {
		times := make([]float64, len(p.Sample))
		for i, r := range p.Sample {
			times[i] = a*r[0] + b*r[1]
		}
		if sp, ok := EmpiricalSpread(times, source+", their own distribution"); ok {
			sp.CV = cv // the moments of every request, not of the sample
			return dur(mean), sp, nil
		}
	}
	return dur(mean), Spread{CV: cv, Source: source}, nil
}

// PrefillShare is the share of a replica's busy time spent prefilling.
func (p TokenPlan) PrefillShare() float64 {
	a, b := 1/p.Model.PrefillRate, 1/p.Model.DecodeRate
	return a * p.Moments.Input / (a*p.Moments.Input + b*p.Moments.Output)
}

// PerMillion prices a million tokens for a pool costing perHour at rate requests a second,
// each with the trace's mean token counts.
func (p TokenPlan) PerMillion(perHour gpucost.Money, rate float64) TokenPrices {
	return p.perMillion(perHour, rate*3600)
}

// perMillion prices a million tokens of cost spread over requests.
func (p TokenPlan) perMillion(cost gpucost.Money, requests float64) TokenPrices {
	t := p.Moments
	in, out := requests*t.Input/t.Requests, requests*t.Output/t.Requests
	var tp TokenPrices
	if in+out <= 0 {
		return tp
	}
	share := p.PrefillShare()
	tp.Total = cost.MulFloat(1e6 / (in + out))
	if in > 0 {
		tp.Input = cost.MulFloat(share * 1e6 / in)
	}
	if out > 0 {
		tp.Output = cost.MulFloat((1 - share) * 1e6 / out)
	}
	return tp
}

// RunPerMillion prices a million tokens for an autoscaling run: its cost over the tokens of
// its requests, at the trace's mean token counts.
func (p TokenPlan) RunPerMillion(r AutoscaleResult) TokenPrices {
	return p.perMillion(r.Cost, r.Requests)
}

// TokenPoint is one measured request: its tokens and how long it took at the model's
// concurrency.
type TokenPoint struct {
	Input, Output float64
	Latency       time.Duration
}

// FitTokenModel fits the token model to measured requests by least squares without an
// intercept — latency = Concurrency·(input/PrefillRate + output/DecodeRate) — for requests
// measured with concurrency sequences at once. It returns the model and the fit's R².
func FitTokenModel(points []TokenPoint, concurrency int) (TokenModel, float64, error) {
	if concurrency < 1 {
		return TokenModel{}, 0, gpucost.Errorf(gpucost.EInvalid, "token profile: concurrency %d: give the sequences served at once while it was measured", concurrency)
	}
	var sii, soo, sio, sil, sol, sll, sl float64
	for _, p := range points {
		l := p.Latency.Seconds()
		sii += p.Input * p.Input
		soo += p.Output * p.Output
		sio += p.Input * p.Output
		sil += p.Input * l
		sol += p.Output * l
		sll += l * l
		sl += l
	}
	det := sii*soo - sio*sio
	if len(points) < 2 || det <= 1e-9*sii*soo {
		return TokenModel{}, 0, gpucost.Errorf(gpucost.EInvalid, "token profile: %d requests whose input and output tokens do not vary independently: measure requests of several prompt and output lengths", len(points))
	}
	a := (sil*soo - sol*sio) / det // seconds per input token
	b := (sol*sii - sil*sio) / det // seconds per output token
	if !(a > 0) || !(b > 0) {
		return TokenModel{}, 0, gpucost.Errorf(gpucost.EInvalid, "token profile: the fit gives %.3g s per input and %.3g s per output token; both must be positive: check the measurements", a, b)
	}
	n := float64(len(points))
	resid := sll - 2*(a*sil+b*sol) + a*a*sii + 2*a*b*sio + b*b*soo
	r2 := 1 - resid/(sll-sl*sl/n)
	k := float64(concurrency)
	return TokenModel{PrefillRate: k / a, DecodeRate: k / b, Concurrency: concurrency}, r2, nil
}
