package plan

import (
	"container/heap"
	"encoding/csv"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"
)

// simulateFCFS serves n Poisson arrivals at rate per second on c servers, first come first
// served, each request taking draw() seconds, and returns the share whose response time — wait
// plus service — is at most slo. The first tenth of the requests warm the queue up and are not
// counted. It is exact for M/G/c, up to sampling error.
func simulateFCFS(rng *rand.Rand, c int, rate float64, draw func() float64, slo float64, n int) float64 {
	free := make(freeTimes, c) // when each server is next free
	t, within, counted := 0.0, 0, 0
	for i := range n {
		t += rng.ExpFloat64() / rate
		finish := max(t, free[0]) + draw() // the earliest free server takes it
		free[0] = finish
		heap.Fix(&free, 0)
		if i >= n/10 {
			counted++
			if finish-t <= slo {
				within++
			}
		}
	}
	return float64(within) / float64(counted)
}

// freeTimes is a min-heap of server free times.
type freeTimes []float64

func (f freeTimes) Len() int           { return len(f) }
func (f freeTimes) Less(i, j int) bool { return f[i] < f[j] }
func (f freeTimes) Swap(i, j int)      { f[i], f[j] = f[j], f[i] }
func (f *freeTimes) Push(x any)        { *f = append(*f, x.(float64)) }
func (f *freeTimes) Pop() any {
	old := *f
	x := old[len(old)-1]
	*f = old[:len(old)-1]
	return x
}

// azureServiceTimes are per-request service times for the Azure LLM trace's requests: 0.15 ms
// per context token (prefill) plus 25 ms per generated token (decode), in seconds: mean 1.0 s,
// cv 1.52.
func azureServiceTimes(t *testing.T) []float64 {
	f, err := os.Open("../../shared/datasets/azure/AzureLLMInferenceTrace_code.csv")
	if err != nil {
		t.Skipf("the shared datasets are not beside the repository (%v)", err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []float64
	for _, r := range rows[1:] {
		in, _ := strconv.Atoi(r[1])
		gen, _ := strconv.Atoi(r[2])
		out = append(out, 0.00015*float64(in)+0.025*float64(gen))
	}
	return out
}

func meanCV(xs []float64) (float64, float64) {
	var s, s2 float64
	for _, x := range xs {
		s += x
		s2 += x * x
	}
	m := s / float64(len(xs))
	return m, math.Sqrt(s2/float64(len(xs))-m*m) / m
}

// TestResponseTailMatchesSimulation checks the predicted share of requests within the SLO
// against a request-by-request simulation, at the replica count ReplicasFor plans and at one
// fewer, for the exponential (exact), constant, gamma, hyperexponential and a measured
// service-time distribution: within 1 percentage point.
func TestResponseTailMatchesSimulation(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 2026))
	exp := func(m float64) func() float64 { return func() float64 { return m * rng.ExpFloat64() } }
	azure := azureServiceTimes(t)
	am, acv := meanCV(azure)
	azureEmpirical, ok := EmpiricalSpread(azure, "per-request times, their own distribution")
	if !ok || math.Abs(azureEmpirical.CV-acv) > 1e-9 {
		t.Fatalf("EmpiricalSpread(Azure) = cv %v, %v; want %v", azureEmpirical.CV, ok, acv)
	}
	h2 := newService(time.Second, Spread{CV: 2, Source: "test"})
	cases := []struct {
		name string
		rate float64
		mean float64
		sp   Spread
		slo  float64
		draw func() float64
	}{
		{"M/M/c Azure peak, 1 s, p99 5 s", 9.75, 1, Spread{}, 5, exp(1)},
		{"M/M/c 500/s at 30 ms, p99 200 ms", 500, 0.03, Spread{}, 0.2, exp(0.03)},
		{"M/M/c 40/s at 1 s, p99 6 s, θ = μ at 41", 40, 1, Spread{}, 6, exp(1)},
		{"M/D/c 50/s at 200 ms, p99 500 ms", 50, 0.2, Constant, 0.5, func() float64 { return 0.2 }},
		{"M/G/c gamma cv 0.5, 100/s at 100 ms, p99 400 ms", 100, 0.1, Spread{CV: 0.5, Source: "test"}, 0.4,
			func() float64 { return gammaDraw(rng, 4, 0.025) }},
		{"M/G/c hyperexponential cv 2, 20/s at 1 s, p99 12 s", 20, 1, Spread{CV: 2, Source: "test"}, 12,
			func() float64 {
				if rng.Float64() < h2.p[0] {
					return rng.ExpFloat64() / h2.mu[0]
				}
				return rng.ExpFloat64() / h2.mu[1]
			}},
		{"M/G/c Azure token service times, 9.75/s, p99 10 s", 9.75, am, Spread{CV: acv, Source: "per-request times"}, 10,
			func() float64 { return azure[rng.IntN(len(azure))] }},
		{"M/G/c Azure token service times, their own distribution, 9.75/s, p99 10 s", 9.75, am, azureEmpirical, 10,
			func() float64 { return azure[rng.IntN(len(azure))] }},
		{"M/G/c Azure token service times, their own distribution, 9.75/s, p99 7 s", 9.75, am, azureEmpirical, 7,
			func() float64 { return azure[rng.IntN(len(azure))] }},
	}
	for _, tc := range cases {
		s := dur(tc.mean)
		slo := dur(tc.slo)
		c, err := ReplicasFor(tc.rate, s, tc.sp, 0.99, slo)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for _, n := range []int{c, c - 1} {
			if float64(n) <= tc.rate*tc.mean {
				continue
			}
			want := 1 - ResponseTail(n, tc.rate, s, tc.sp, slo)
			got := simulateFCFS(rng, n, tc.rate, tc.draw, tc.slo, 1_000_000)
			t.Logf("%s: %d replicas: predicted %.4f, simulated %.4f", tc.name, n, want, got)
			// The M/G/c approximation is checked where sizing decides, at 95% or more within
			// the SLO; far below it, at 98% utilisation, it is looser (Azure, 10 replicas:
			// predicted 0.695 fitted and 0.698 as measured, simulated 0.63–0.75 by seed).
			if math.Abs(got-want) > 0.01 && (want >= 0.95 || tc.sp.Exact()) {
				t.Errorf("%s, %d replicas: 1 − ResponseTail = %.4f, simulation %.4f; want within 1 point", tc.name, n, want, got)
			}
		}
	}
}

// gammaDraw draws a gamma variate of integer shape k and scale theta: a sum of k exponentials.
func gammaDraw(rng *rand.Rand, k int, theta float64) float64 {
	x := 0.0
	for range k {
		x += rng.ExpFloat64() * theta
	}
	return x
}
