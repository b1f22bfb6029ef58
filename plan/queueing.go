package plan

import (
	"math"
	"time"

	"github.com/gpucost/gpucost"
)

// ErlangC returns the probability that a request waits for a free replica in an M/M/c queue
// with c replicas and an offered load of a = λ·S erlangs (arrival rate times mean service
// time). It is 1 when the queue is unstable (a ≥ c). The terms are built by the Erlang B
// recursion, which stays finite for thousands of replicas.
func ErlangC(c int, a float64) float64 {
	if c <= 0 || a >= float64(c) {
		return 1
	}
	if a <= 0 {
		return 0
	}
	b := 1.0 // Erlang B with 0 servers
	for k := 1; k <= c; k++ {
		b = a * b / (float64(k) + a*b)
	}
	rho := a / float64(c)
	return b / (1 - rho + rho*b)
}

// WaitTail returns P(W > t), the probability that a request waits in the queue longer than t,
// for c replicas each serving one request at a time in a mean service time s at rate λ
// (requests per second): C(c, λs)·exp(−(c/s − λ)·t).
func WaitTail(c int, rate float64, s, t time.Duration) float64 {
	a := rate * s.Seconds()
	if a >= float64(c) {
		return 1
	}
	if t < 0 {
		return 1
	}
	return ErlangC(c, a) * math.Exp(-(float64(c)/s.Seconds()-rate)*t.Seconds())
}

// maxReplicas bounds the replica search: far beyond any one serving pool.
const maxReplicas = 1_000_000

// Replicas returns the fewest replicas for which the q-quantile of the response time — the
// wait in the queue plus the service time — is at most slo, at an arrival rate of rate requests
// per second, for an exponential service time of mean s: ReplicasFor with the M/M/c spread.
func Replicas(rate float64, s time.Duration, q float64, slo time.Duration) (int, error) {
	return ReplicasFor(rate, s, Spread{}, q, slo)
}

// ReplicasFor returns the fewest replicas c with P(T > slo) ≤ 1 − q, T the response time of a
// request at rate requests per second served in a mean time s with spread sp (ResponseTail). It
// returns an EInvalid error when the service time alone misses the SLO for more than 1 − q of
// requests, since no replica count can then meet it.
func ReplicasFor(rate float64, s time.Duration, sp Spread, q float64, slo time.Duration) (int, error) {
	switch {
	case s <= 0:
		return 0, gpucost.Errorf(gpucost.EInvalid, "service time %v: give a positive service time", s)
	case q <= 0 || q >= 1:
		return 0, gpucost.Errorf(gpucost.EInvalid, "quantile %v: give one between 0 and 1, such as p99", q)
	case sp.cv() < 0 || math.IsNaN(sp.cv()) || sp.cv() > 20:
		return 0, gpucost.Errorf(gpucost.EInvalid, "service time spread %v: give a coefficient of variation between 0 (constant) and 20; 1 is exponential", sp.cv())
	case ServiceTail(s, sp, slo) >= (1-q)*(1-1e-9):
		least := ServiceQuantile(s, sp, q)
		hint := ""
		if sp.Source == "" || sp.Source == Exponential.Source {
			hint = " If the service time hardly varies, say so with --service-cv 0."
		}
		return 0, gpucost.Errorf(gpucost.EInvalid,
			"service time %v (%s) alone exceeds the SLO %v for %.2f%% of requests, more than the %.2f%% p%s allows: no replica count meets it; raise the SLO to at least %v or shorten the service time (smaller batches, a faster GPU).%s",
			s, sp, slo, 100*ServiceTail(s, sp, slo), 100*(1-q), quantileName(q), least.Round(time.Millisecond), hint)
	case rate < 0 || math.IsNaN(rate) || math.IsInf(rate, 0):
		return 0, gpucost.Errorf(gpucost.EInvalid, "arrival rate %v: give a rate of zero or more requests per second", rate)
	case rate == 0:
		return 0, nil
	}
	if c := minServers(rate, s, sp, q, slo); c > 0 {
		return c, nil
	}
	return 0, gpucost.Errorf(gpucost.EInvalid, "arrival rate %v/s at %v per request needs more than %d replicas", rate, s, maxReplicas)
}

// minServers is the search of ReplicasFor for a positive rate and a feasible SLO, with the
// Erlang B recursion carried from one candidate to the next: O(c) rather than O(c²). It returns
// 0 past maxReplicas.
func minServers(rate float64, s time.Duration, sp Spread, q float64, slo time.Duration) int {
	v := newService(s, sp)
	a := rate * v.mean
	c := max(1, int(math.Floor(a))+1)
	b := 1.0
	for k := 1; k < c; k++ {
		b = a * b / (float64(k) + a*b)
	}
	for ; c <= maxReplicas; c++ {
		b = a * b / (float64(c) + a*b)
		rho := a / float64(c)
		if newSojourn(c, rate, v, b/(1-rho+rho*b)).tail(slo.Seconds()) <= 1-q {
			return c
		}
	}
	return 0
}
