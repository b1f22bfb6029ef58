package planfile

import (
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/plan"
	"github.com/gpucost/gpucost/traffic"
)

// TokenModel is how --service-model tokens serves a request: the prefill and decode rates of
// one replica, shared by Concurrency sequences, or the measured requests of Profile (a
// --token-profile CSV) to fit them to.
type TokenModel struct {
	PrefillRate, DecodeRate float64
	Concurrency             int
	Profile                 string
}

// TokenService returns how a replica serves tr's requests under the token model m: the mean
// service time and its spread from the trace's token counts, with a note that says so, and the
// plan that prices a million tokens. It refuses a trace without token counts, and a profile
// given beside the rates.
func TokenService(tr *traffic.Trace, m TokenModel) (plan.BatchService, *plan.TokenPlan, error) {
	switch {
	case tr == nil:
		return plan.BatchService{}, nil, gpucost.Errorf(gpucost.EInvalid, "--service-model tokens needs --trace: a request log with input and output token columns (such as ContextTokens,GeneratedTokens)")
	case tr.Tokens == nil:
		return plan.BatchService{}, nil, gpucost.Errorf(gpucost.EInvalid, "--service-model tokens: trace %s has no input and output token columns (ContextTokens and GeneratedTokens, prompt_tokens and completion_tokens, or input_tokens and output_tokens)", tr.Name)
	}
	model := plan.TokenModel{PrefillRate: m.PrefillRate, DecodeRate: m.DecodeRate, Concurrency: max(1, m.Concurrency)}
	fitted := ""
	if m.Profile != "" {
		if m.PrefillRate != 0 || m.DecodeRate != 0 {
			return plan.BatchService{}, nil, gpucost.Errorf(gpucost.EInvalid, "give --token-profile or --prefill-rate and --decode-rate, not both")
		}
		pts, err := ReadTokenProfile(m.Profile)
		if err != nil {
			return plan.BatchService{}, nil, err
		}
		var r2 float64
		if model, r2, err = plan.FitTokenModel(pts, model.Concurrency); err != nil {
			return plan.BatchService{}, nil, fmt.Errorf("--token-profile %s: %w", m.Profile, err)
		}
		fitted = fmt.Sprintf(" (fitted to %d requests of %s, R² = %.3f)", len(pts), m.Profile, r2)
	}
	t := tr.Tokens
	tp := &plan.TokenPlan{Model: model,
		Moments: plan.TokenMoments{Requests: t.Requests, Input: t.Input, Output: t.Output, Input2: t.Input2, Output2: t.Output2, InputOut: t.InputOut},
		Sample:  tr.TokenSample}
	mean, sp, err := tp.Service()
	if err != nil {
		return plan.BatchService{}, nil, err
	}
	seqs := "sequences"
	if tp.Model.Concurrency == 1 {
		seqs = "sequence"
	}
	note := fmt.Sprintf("Token model: %.0f prefill and %.0f decode tokens/s per replica shared by %d %s%s; the trace's %.0f requests average %.0f input and %.0f output tokens: %v a request, cv %.2f (M/G/c).",
		model.PrefillRate, model.DecodeRate, tp.Model.Concurrency, seqs, fitted, t.Requests, t.Input/t.Requests, t.Output/t.Requests, mean.Round(time.Millisecond), sp.CV)
	return plan.BatchService{S: mean.Round(time.Millisecond), Spread: sp, Batch: 1, Note: note}, tp, nil
}
