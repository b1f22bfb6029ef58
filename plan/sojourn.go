package plan

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// The response time T of a request is its wait in the queue W plus its own service time S
// (docs/architecture.md "Response time: wait plus service"). In an M/M/c queue S is exponential
// with mean 1/μ, W is 0 with probability 1 − C and otherwise exponential with rate θ = cμ − λ,
// and W and S are independent, so
//
//	P(T > t) = (1 − C)·e^{−μt} + C·(θ·e^{−μt} − μ·e^{−θt}) / (θ − μ)
//
// with the limit C·(1 + μt)·e^{−μt} for the second term when θ = μ, that is when c − 1 = λ/μ
// (Gross and Harris, Fundamentals of Queueing Theory, the M/M/c waiting-time-in-system
// distribution). It is exact.
//
// When the service time is measured rather than assumed exponential, its spread is its
// coefficient of variation cv = σ/mean, and the queue is M/G/c. There is no closed form; the
// planner uses the standard two-moment approximation (Whitt, "Approximations for the GI/G/m
// queue", Production and Operations Management 2(2), 1993; the mean is Allen–Cunneen's): the
// probability of waiting stays Erlang C's, and the wait, when there is one, is exponential with
// its M/M/c mean scaled by (1 + cv²)/2, so θ = (cμ − λ)·2/(1 + cv²). The service time is fitted
// by its two moments: a constant for cv = 0, a gamma distribution for 0 < cv < 1, the exponential
// for cv = 1 and a two-phase hyperexponential with balanced means for cv > 1. T's tail is then
// (1 − C)·P(S > t) + C·P(W' + S > t), W' the conditional wait. sojourn_sim_test.go checks it
// against a request-by-request simulation.

// Spread is how a service time varies around its mean: its coefficient of variation and where
// that came from. The zero Spread is the exponential (cv = 1), the M/M/c assumption.
type Spread struct {
	CV     float64 `json:"cv"`     // standard deviation / mean; read only when Source is set
	Source string  `json:"source"` // such as "--service-cv" or "latency profile"; "" is exponential
	// measured, when service times were measured request by request (EmpiricalSpread), is
	// their distribution: P(S > t) and P(W' + S > t) are then taken from it rather than from a
	// distribution fitted to CV; W' still scales by CV. A pointer keeps Spread comparable.
	measured *quantiles
}

// quantiles are equally likely multiples of a service time's mean, sorted.
type quantiles struct{ q []float64 }

// Measured reports whether the spread carries the measured service times' distribution.
func (sp Spread) Measured() bool { return sp.measured != nil }

// maxQuantiles bounds a measured spread's points: a tail to 1/4,000 at a few microseconds an evaluation.
const maxQuantiles = 4000

// EmpiricalSpread returns the spread of measured service times (seconds, any order; at least
// 100 of them): their coefficient of variation and their distribution, at most maxQuantiles
// equally likely points.
func EmpiricalSpread(times []float64, source string) (Spread, bool) {
	n := len(times)
	if n < 100 {
		return Spread{}, false
	}
	sorted := slices.Sorted(slices.Values(times))
	var sum, sum2 float64
	for _, x := range sorted {
		sum += x
		sum2 += x * x
	}
	mean := sum / float64(n)
	if !(mean > 0) {
		return Spread{}, false
	}
	k := min(n, maxQuantiles)
	q := make([]float64, k)
	for j := range q {
		q[j] = sorted[min(n-1, int((float64(j)+0.5)*float64(n)/float64(k)))] / mean
	}
	// The points' own mean is 1 up to rounding; rescale so the mean stays the one given.
	var qm float64
	for _, x := range q {
		qm += x
	}
	qm /= float64(k)
	for j := range q {
		q[j] /= qm
	}
	cv := math.Sqrt(max(0, sum2/float64(n)-mean*mean)) / mean
	return Spread{CV: cv, Source: source, measured: &quantiles{q}}, true
}

// Exponential is the spread of an exponential service time, the M/M/c assumption.
var Exponential = Spread{CV: 1, Source: "exponential (M/M/c)"}

// Constant is the spread of a service time that does not vary, such as a batch's run time at a
// fixed size.
var Constant = Spread{CV: 0, Source: "constant"}

// cv returns the coefficient of variation, 1 for the zero Spread.
func (sp Spread) cv() float64 {
	if sp.Source == "" {
		return 1
	}
	return sp.CV
}

// String describes the spread for people.
func (sp Spread) String() string {
	cv := sp.cv()
	switch {
	case sp.Source == "" || sp.Source == Exponential.Source:
		return Exponential.Source
	case cv == 0 && sp.Source == Constant.Source:
		return "constant"
	case cv == 0:
		return "constant (" + sp.Source + ")"
	}
	return fmt.Sprintf("cv %.3g (%s, M/G/c approximation)", cv, sp.Source)
}

// Model names the queue the spread makes: M/M/c, M/D/c or M/G/c.
func (sp Spread) Model() string {
	switch cv := sp.cv(); {
	case sp.Exact():
		return "M/M/c"
	case cv == 0:
		return "M/D/c"
	}
	return fmt.Sprintf("M/G/c, cv %.3g", sp.cv())
}

// Exact reports whether the sojourn times under this spread are exact (M/M/c) rather than the
// M/G/c approximation.
func (sp Spread) Exact() bool { return math.Abs(sp.cv()-1) < 1e-9 }

// service is a service time distribution fitted to a mean and a spread.
type service struct {
	mean, cv float64   // seconds
	emp      []float64 // measured: equally likely service times, sorted; nil when fitted
	// hyperexponential (cv > 1): branch i with probability p[i] and rate mu[i]; the exponential
	// is one branch
	p, mu [2]float64
	// gamma (0 < cv < 1): shape k and rate beta
	k, beta float64
}

func newService(s time.Duration, sp Spread) service {
	m, cv := s.Seconds(), max(0, sp.cv())
	v := service{mean: m, cv: cv}
	switch {
	case sp.measured != nil && sp.Source != "":
		v.emp = make([]float64, len(sp.measured.q))
		for i, q := range sp.measured.q {
			v.emp[i] = q * m
		}
	case cv == 0:
	case cv < 1 && math.Abs(cv-1) >= 1e-9:
		v.k = 1 / (cv * cv)
		v.beta = v.k / m
	case math.Abs(cv-1) < 1e-9:
		v.cv, v.p[0], v.mu[0] = 1, 1, 1/m
	default:
		c2 := cv * cv
		p := (1 + math.Sqrt((c2-1)/(c2+1))) / 2
		v.p = [2]float64{p, 1 - p}
		v.mu = [2]float64{2 * p / m, 2 * (1 - p) / m}
	}
	return v
}

func (v service) gamma() bool { return v.k > 0 }

// tail returns P(S > t).
func (v service) tail(t float64) float64 {
	switch {
	case t < 0:
		return 1
	case v.emp != nil:
		i, _ := slices.BinarySearch(v.emp, math.Nextafter(t, math.Inf(1)))
		return float64(len(v.emp)-i) / float64(len(v.emp))
	case v.cv == 0:
		if t < v.mean {
			return 1
		}
		return 0
	case v.gamma():
		return gammaQ(v.k, v.beta*t)
	}
	return v.p[0]*math.Exp(-v.mu[0]*t) + v.p[1]*math.Exp(-v.mu[1]*t)
}

// waitPlusTail returns P(Y + S > t) for Y exponential with rate theta, independent of S.
func (v service) waitPlusTail(theta, t float64) float64 {
	switch {
	case t < 0:
		return 1
	case v.emp != nil: // the mean over the measured times of P(Y > t − s)
		sum := 0.0
		for _, s := range v.emp {
			if s >= t {
				sum++
			} else {
				sum += math.Exp(-theta * (t - s))
			}
		}
		return sum / float64(len(v.emp))
	case v.cv == 0:
		if t < v.mean {
			return 1
		}
		return math.Exp(-theta * (t - v.mean))
	case v.gamma():
		return v.tail(t) + v.gammaConvolution(theta, t)
	}
	out := 0.0
	for i, p := range v.p {
		if p > 0 {
			out += p * expPlusExpTail(v.mu[i], theta, t)
		}
	}
	return out
}

// expPlusExpTail returns P(S + Y > t) for independent exponentials of rates mu and theta.
func expPlusExpTail(mu, theta, t float64) float64 {
	if math.Abs(theta-mu) < 1e-9*mu {
		return (1 + mu*t) * math.Exp(-mu*t)
	}
	return (theta*math.Exp(-mu*t) - mu*math.Exp(-theta*t)) / (theta - mu)
}

// gammaConvolution returns P(S ≤ t, Y > t − S) = ∫₀ᵗ f(s)·e^{−θ(t−s)} ds for the gamma service
// time, by Simpson's rule in u = t − s over where both factors matter: u up to 60/θ, and s
// within the service time's support, at a step fine enough for the density's width.
func (v service) gammaConvolution(theta, t float64) float64 {
	sd := v.mean * v.cv
	lo := max(0, t-60/theta, v.mean-14*sd) // s from lo …
	hi := min(t, v.mean+40*sd)             // … to hi
	if hi <= lo {
		return 0
	}
	n := int(math.Ceil((hi - lo) / min(sd/8, 1/(8*theta))))
	n = min(max(n+n%2, 64), 20000)
	h := (hi - lo) / float64(n)
	lk := math.Log(v.beta)*v.k - lgamma(v.k)
	f := func(s float64) float64 {
		if s <= 0 {
			return 0
		}
		return math.Exp(lk + (v.k-1)*math.Log(s) - v.beta*s - theta*(t-s))
	}
	sum := f(lo) + f(hi)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		sum += w * f(lo+float64(i)*h)
	}
	return min(1, sum*h/3)
}

func lgamma(x float64) float64 {
	l, _ := math.Lgamma(x)
	return l
}

// gammaQ is the regularised upper incomplete gamma function Q(a, x) = Γ(a, x)/Γ(a): the series
// below a + 1 and the continued fraction above (Press et al., Numerical Recipes, §6.2).
func gammaQ(a, x float64) float64 {
	if x <= 0 {
		return 1
	}
	lead := math.Exp(-x + a*math.Log(x) - lgamma(a))
	if x < a+1 {
		sum, term := 1/a, 1/a
		for n := 1; n < 1000; n++ {
			term *= x / (a + float64(n))
			sum += term
			if math.Abs(term) < math.Abs(sum)*1e-15 {
				break
			}
		}
		return max(0, 1-sum*lead)
	}
	const tiny = 1e-300
	b := x + 1 - a
	c, d := 1/tiny, 1/b
	h := d
	for i := 1; i < 1000; i++ {
		an := -float64(i) * (float64(i) - a)
		b += 2
		d = an*d + b
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = b + an/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < 1e-15 {
			break
		}
	}
	return lead * h
}

// sojourn is a queue at one operating point: c servers at rate λ with service v and Erlang C
// probability of waiting pc.
type sojourn struct {
	v          service
	pc, theta  float64
	stable     bool
	rate, mean float64
}

func newSojourn(c int, rate float64, v service, pc float64) sojourn {
	q := sojourn{v: v, pc: pc, rate: rate, mean: v.mean}
	a := rate * v.mean
	if a >= float64(c) {
		return q
	}
	q.stable = true
	q.theta = (float64(c)/v.mean - rate) * 2 / (1 + v.cv*v.cv)
	return q
}

// tail returns P(T > t).
func (q sojourn) tail(t float64) float64 {
	if !q.stable {
		return 1
	}
	if q.pc <= 0 {
		return q.v.tail(t)
	}
	return (1-q.pc)*q.v.tail(t) + q.pc*q.v.waitPlusTail(q.theta, t)
}

// quantile returns the smallest t with P(T > t) ≤ 1 − p, by bisection; +Inf when unstable.
func (q sojourn) quantile(p float64) float64 {
	if !q.stable {
		return math.Inf(1)
	}
	hi := q.mean
	for q.tail(hi) > 1-p {
		hi *= 2
		if hi > 1e9 {
			return math.Inf(1)
		}
	}
	lo := 0.0
	for range 60 {
		mid := (lo + hi) / 2
		if q.tail(mid) > 1-p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// ResponseTail returns P(T > t), the probability that a request's response time — its wait in
// the queue plus its own service — exceeds t, for c servers at rate λ (requests per second)
// whose service time has mean s and spread sp: exact for the exponential, the M/G/c
// approximation otherwise. It is 1 when the queue is unstable.
func ResponseTail(c int, rate float64, s time.Duration, sp Spread, t time.Duration) float64 {
	if c <= 0 {
		return 1
	}
	return newSojourn(c, rate, newService(s, sp), ErlangC(c, rate*s.Seconds())).tail(t.Seconds())
}

// ServiceTail returns P(S > t) for a service time of mean s and spread sp: the share of
// requests that miss t however many replicas serve them.
func ServiceTail(s time.Duration, sp Spread, t time.Duration) float64 {
	return newService(s, sp).tail(t.Seconds())
}

// ServiceQuantile returns the q-quantile of a service time of mean s and spread sp: the least
// SLO any replica count can meet.
func ServiceQuantile(s time.Duration, sp Spread, q float64) time.Duration {
	v := newService(s, sp)
	hi := v.mean
	for v.tail(hi) > 1-q && hi < 1e9 {
		hi *= 2
	}
	lo := 0.0
	for range 60 {
		mid := (lo + hi) / 2
		if v.tail(mid) > 1-q {
			lo = mid
		} else {
			hi = mid
		}
	}
	return dur(hi)
}
