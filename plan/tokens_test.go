package plan

import (
	"math"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// twoRequests are (100 in, 10 out) and (300 in, 30 out): at 1,000 prefill and 100 decode tokens
// a second, one at a time, 0.2 s and 0.6 s: mean 0.4 s, cv 0.5.
var twoRequests = TokenMoments{Requests: 2, Input: 400, Output: 40, Input2: 100*100 + 300*300, Output2: 10*10 + 30*30, InputOut: 100*10 + 300*30}

func TestTokenService(t *testing.T) {
	p := TokenPlan{Model: TokenModel{PrefillRate: 1000, DecodeRate: 100, Concurrency: 1}, Moments: twoRequests}
	s, sp, err := p.Service()
	if err != nil || s != 400*time.Millisecond || math.Abs(sp.CV-0.5) > 1e-12 {
		t.Errorf("Service() = %v, cv %v, %v; want 400ms, cv 0.5", s, sp.CV, err)
	}
	// Four sequences at once share the replica's rates: each takes four times as long.
	p.Model.Concurrency = 4
	if s, sp, _ := p.Service(); s != 1600*time.Millisecond || math.Abs(sp.CV-0.5) > 1e-12 {
		t.Errorf("Service() at concurrency 4 = %v, cv %v; want 1.6s, cv 0.5", s, sp.CV)
	}
	if _, _, err := (TokenPlan{Model: TokenModel{PrefillRate: 1000, Concurrency: 1}, Moments: twoRequests}).Service(); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("Service() without a decode rate = %v; want EInvalid", err)
	}
}

// TestTokenPerMillion: $10 an hour at 1 request a second of 200 input and 20 output tokens on
// average, half the time prefilling: input $10·0.5/0.72 M, output $10·0.5/0.072 M, total
// $10/0.792 M.
func TestTokenPerMillion(t *testing.T) {
	p := TokenPlan{Model: TokenModel{PrefillRate: 1000, DecodeRate: 100, Concurrency: 1}, Moments: twoRequests}
	got := p.PerMillion(gpucost.USD(10_000_000_000), 1)
	for _, c := range []struct {
		name string
		got  gpucost.Money
		want float64
	}{{"input", got.Input, 5e6 / 720000}, {"output", got.Output, 5e6 / 72000}, {"total", got.Total, 10e6 / 792000}} {
		if math.Abs(float64(c.got.Nanos)/1e9-c.want) > 1e-6 {
			t.Errorf("PerMillion %s = %s, want %.6f", c.name, c.got.Decimal(), c.want)
		}
	}
}

// TestCapacityConcurrency: with 4 sequences per replica the queue's servers are 4 per replica.
func TestCapacityConcurrency(t *testing.T) {
	o := CapacityOptions{Rate: 10, ServiceTime: 2 * time.Second, Quantile: 0.99, SLO: 15 * time.Second}
	one, err := Capacity(o)
	if err != nil {
		t.Fatal(err)
	}
	o.Concurrency = 4
	four, err := Capacity(o)
	if err != nil {
		t.Fatal(err)
	}
	if four.Replicas != (one.Replicas+3)/4 || math.Abs(four.Utilisation-20/float64(4*four.Replicas)) > 1e-12 {
		t.Errorf("Capacity at concurrency 4 = %d replicas at %.3f; want ⌈%d/4⌉ at 20 erlangs over their servers", four.Replicas, four.Utilisation, one.Replicas)
	}
}

// TestFitTokenModel recovers 8,000 prefill and 1,000 decode tokens a second per replica from
// requests measured at 4 sequences at once (0.5 ms an input and 4 ms an output token each).
func TestFitTokenModel(t *testing.T) {
	var pts []TokenPoint
	for _, in := range []float64{100, 1000, 3000} {
		for _, out := range []float64{10, 50, 200} {
			pts = append(pts, TokenPoint{in, out, time.Duration((in*0.0005 + out*0.004) * float64(time.Second))})
		}
	}
	m, r2, err := FitTokenModel(pts, 4)
	if err != nil || math.Abs(m.PrefillRate-8000) > 1e-3 || math.Abs(m.DecodeRate-1000) > 1e-3 || m.Concurrency != 4 || r2 < 0.999999 {
		t.Errorf("FitTokenModel = %+v, R² %v, %v; want 8000 and 1000 tokens/s at 4 sequences, R² 1", m, r2, err)
	}
	if _, _, err := FitTokenModel(pts[:1], 4); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("FitTokenModel(one request) = %v; want EInvalid", err)
	}
}
