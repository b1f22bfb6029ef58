package plan

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gpucost/gpucost"
)

// The autoscaling simulator replays an arrival trace — a rate per interval — through a serving
// pool whose size a policy sets. It is a discrete-event model at the trace's resolution: scaling
// decisions every evaluation period, launches that become ready after the provisioning delay,
// cooldowns, spot interruptions and their notices are events; within an interval the ready
// replicas serve the interval's rate as an M/M/c queue with Concurrency servers per replica
// (requests within the SLO: 1 − P(W > SLO − S)); when arrivals outrun the ready capacity, or no
// replica is ready, the excess queues as a fluid backlog that later intervals drain, requests
// waiting past the SLO are delayed and those past MaxQueueWait dropped. Replicas are billed from
// launch (booting included) to termination. The oracle sizes every interval to the Erlang C
// minimum of its true rate, with no delay: no causal policy can do better at the same SLO.

// Policy is an autoscaling policy.
type Policy string

// The policies.
const (
	Static         Policy = "static"          // a fixed replica count
	TargetTracking Policy = "target-tracking" // replicas = ⌈load / target utilisation⌉ (Kubernetes HPA, AWS target tracking)
	StepScaling    Policy = "step"            // add replicas above a utilisation threshold, remove below another
	Scheduled      Policy = "schedule"        // replicas per hour of the day or week
	// LearnedSchedule is the causal schedule: each hour's peak need on the day before, learned
	// only from days already past, with target tracking above it when load outgrows it.
	LearnedSchedule Policy = "learned-schedule"
	ScaleToZero     Policy = "scale-to-zero" // target tracking down to zero after an idle period; cold start on demand
	Predictive      Policy = "predictive"    // Erlang C on a forecast of the rate one provisioning delay ahead
	Oracle          Policy = "oracle"        // the per-interval Erlang C minimum on the true rate
)

// Policies are the policies CompareAutoscale runs, in report order.
var Policies = []Policy{Static, TargetTracking, StepScaling, Scheduled, LearnedSchedule, ScaleToZero, Predictive}

// ParsePolicy reads a policy name.
func ParsePolicy(s string) (Policy, error) {
	p := Policy(strings.ToLower(strings.TrimSpace(s)))
	if slices.Contains(Policies, p) || p == Oracle {
		return p, nil
	}
	names := make([]string, len(Policies))
	for i, p := range Policies {
		names[i] = string(p)
	}
	return "", gpucost.Errorf(gpucost.EInvalid, "policy %q: use %s, or oracle", s, strings.Join(names, ", "))
}

// AutoscaleOptions describe the trace, the serving pool and the policy. Zero fields take the
// defaults noted.
type AutoscaleOptions struct {
	Start time.Time     // the start of the trace, for schedules by hour
	Step  time.Duration // the interval of each rate
	Rates []float64     // requests per second per interval

	ServiceTime time.Duration // S: mean time one server takes per request
	Spread      Spread        // how S varies; the zero value is exponential (M/M/c, exact)
	Quantile    float64       // the SLO's quantile, 0.99 for p99
	SLO         time.Duration // the response time the quantile must stay within
	// Batch is the requests one service serves (default 1): with a batching plan the queue's
	// customers are batches at Rates/Batch, each taking ServiceTime, and BatchFill, the time a
	// batch takes to fill, comes off the SLO. Request counts in the result stay requests.
	Batch     int
	BatchFill time.Duration
	// Concurrency is the number of requests one replica serves at once (servers per replica;
	// default 1): an LLM server's concurrent sequences, a Triton instance count.
	Concurrency int

	Policy       Policy
	Provisioning time.Duration // launch to ready (default 60 s)
	Evaluation   time.Duration // how often the policy decides, over that window (default 60 s)
	// ScaleOutCooldown is the least time between scale-outs (default: Evaluation);
	// ScaleInCooldown the stabilisation window: scale-in goes to the largest size wanted over it
	// (default 5 min, as Kubernetes' HPA).
	ScaleOutCooldown, ScaleInCooldown time.Duration
	MinReplicas                       int // default 1; scale-to-zero always uses 0
	MaxReplicas                       int // default: 4 × the oracle's peak

	Replicas          int     // static: the fixed count (default: the oracle's peak)
	TargetUtilisation float64 // target tracking and scale-to-zero (default 0.7; docs/architecture.md serving target 60–80%)
	StepUp, StepDown  float64 // step: add above StepUp utilisation, remove below StepDown (0.8, 0.4)
	// Schedule is the replica count per hour of the day (24) or of the week from Monday 00:00
	// UTC (168). Empty: built from the trace itself, each hour's peak Erlang C size — hindsight,
	// so the run is marked Hindsight and left out of Best.
	Schedule []int
	// Warmup is the start of the trace that policies see and learn from but that is not scored:
	// replica-hours, requests and attainment count from Warmup on, for every policy and the
	// oracle alike. A learned schedule needs a day of it.
	Warmup time.Duration
	// hindsight is set when Schedule was built from the trace itself.
	hindsight   bool
	IdleTimeout time.Duration // scale-to-zero: no requests this long before going to zero (default 5 min)
	Headroom    float64       // predictive: size for the forecast × (1 + Headroom) (default 0: Erlang C already holds the SLO at the forecast)
	// Season is the predictive policy's seasonal period (default 24 h); the seasonal forecast
	// is used once the trace has run one season.
	Season time.Duration
	// MaxQueueWait drops requests that would wait longer (default 10 × the SLO).
	MaxQueueWait time.Duration

	GPUsPerReplica int           // default 1
	PricePerGPU    gpucost.Money // on-demand price of one GPU-hour; zero leaves costs at zero
	Spot           *SpotServing  // nil: all on-demand
	// Tokens, when set, is the token model the service time came from, with the trace's token
	// counts: each run then prices a million tokens.
	Tokens *TokenPlan
}

// SpotServing mixes spot replicas into the pool.
type SpotServing struct {
	Share                float64       // the share of replicas run on spot, 0–1
	InterruptionsPerHour float64       // per spot replica
	Notice               time.Duration // warning before a reclaim (AWS 2 min, GCP and Azure 30 s)
	PricePerGPU          gpucost.Money // spot price of one GPU-hour
	// Fallback launches an on-demand replacement for each interrupted spot replica at once;
	// without it the replacement is spot, as soon as the policy asks.
	Fallback bool
	// Rand draws the interruptions; the same seed gives the same run.
	Rand *rand.Rand
}

// AutoscaleResult is one policy's run over the trace.
type AutoscaleResult struct {
	Policy        Policy  `json:"policy"`
	ReplicaHours  float64 `json:"replica_hours"` // billed: launch to termination
	GPUHours      float64 `json:"gpu_hours"`
	SpotHours     float64 `json:"spot_replica_hours,omitempty"`
	Cost          gpucost.Money
	Requests      float64 `json:"requests"`
	WithinSLO     float64 `json:"within_slo"` // requests served within the SLO's response time
	Delayed       float64 `json:"delayed"`    // served, later than the SLO
	Dropped       float64 `json:"dropped"`    // waited longer than MaxQueueWait
	Attainment    float64 `json:"slo_attainment"`
	PeakReplicas  int     `json:"peak_replicas"`
	MeanReplicas  float64 `json:"mean_replicas"`
	ScaleOuts     int     `json:"scale_outs"`
	ScaleIns      int     `json:"scale_ins"`
	Interruptions int     `json:"interruptions,omitempty"`
	// PerMillionTokens is the run's cost per million tokens, with a token model and a price.
	PerMillionTokens *TokenPrices `json:"per_million_tokens,omitempty"`
	// Replicas is the pool size (ready and booting) in each interval, for charts.
	Replicas []int32  `json:"-"`
	Settings string   `json:"settings"` // the policy's parameters, for people
	Notes    []string `json:"notes,omitempty"`

	// GapReplicaHours is (ReplicaHours − the oracle's) / the oracle's, set by CompareAutoscale.
	GapReplicaHours float64 `json:"gap_replica_hours"`
	// Hindsight is set for a run whose policy was built from the trace it is scored on (a
	// schedule from the trace's own hourly peaks): no policy can know that in advance, so Best
	// leaves it out.
	Hindsight bool `json:"hindsight,omitempty"`
}

// Label is the policy's name, marked "(hindsight)" for a run that saw the trace it is scored on.
func (r AutoscaleResult) Label() string {
	if r.Hindsight {
		return string(r.Policy) + " (hindsight)"
	}
	return string(r.Policy)
}

// MeetsSLO reports whether the run served at least the SLO's quantile of its requests within
// the SLO's response time: the SLO held over the whole trace.
func (r AutoscaleResult) MeetsSLO(q float64) bool { return r.Attainment >= q-1e-9 }

// MarshalJSON writes the cost as a decimal.
func (r AutoscaleResult) MarshalJSON() ([]byte, error) {
	type plain AutoscaleResult
	return json.Marshal(struct {
		Cost string `json:"cost"`
		plain
	}{r.Cost.Decimal(), plain(r)})
}

// Autoscale replays the trace under o.Policy.
func Autoscale(o AutoscaleOptions) (AutoscaleResult, error) {
	o, oracle, err := prepare(o)
	if err != nil {
		return AutoscaleResult{}, err
	}
	if o.Policy == Oracle {
		return runOracle(o, oracle), nil
	}
	return simulate(o, oracle), nil
}

// CompareAutoscale runs every policy and the oracle on the same trace, the oracle last, each
// with its gap in replica-hours to the oracle. The policies run concurrently, except with spot
// interruptions, which draw from o.Spot.Rand one policy after another so a seed gives one result.
func CompareAutoscale(o AutoscaleOptions) ([]AutoscaleResult, error) {
	o, oracle, err := prepare(o)
	if err != nil {
		return nil, err
	}
	out := make([]AutoscaleResult, len(Policies), len(Policies)+1)
	run := func(i int) {
		po := o
		po.Policy = Policies[i]
		out[i] = simulate(po, oracle)
	}
	if o.Spot != nil && o.Spot.InterruptionsPerHour > 0 {
		for i := range Policies {
			run(i)
		}
	} else {
		var wg sync.WaitGroup
		for i := range Policies {
			wg.Go(func() { run(i) })
		}
		wg.Wait()
	}
	best := runOracle(o, oracle)
	if share := OnsetShare(o, oracle); share > 1-o.Quantile && !slices.ContainsFunc(out, func(r AutoscaleResult) bool {
		return r.Policy != Static && r.Policy != Scheduled && r.MeetsSLO(o.Quantile)
	}) {
		best.Notes = append(best.Notes, fmt.Sprintf("%.1f%% of requests arrive in intervals that need more replicas than any of the %v before them (provisioning + evaluation), over the %.1f%% the SLO allows: every policy that reacts to load meets them short-handed and misses the SLO; only replicas held in advance (static, a schedule) meet it on this trace.",
			100*share, o.Provisioning+o.Evaluation, 100*(1-o.Quantile)))
	}
	out = append(out, best)
	for i := range out {
		if best.ReplicaHours > 0 {
			out[i].GapReplicaHours = out[i].ReplicaHours/best.ReplicaHours - 1
		}
	}
	return out, nil
}

// Best returns the run with the fewest replica-hours among those that meet the SLO over the
// trace, leaving out the oracle and runs built in hindsight, and false if none does.
func Best(runs []AutoscaleResult, q float64) (AutoscaleResult, bool) {
	var best AutoscaleResult
	found := false
	for _, r := range runs {
		if r.Policy != Oracle && !r.Hindsight && r.MeetsSLO(q) && (!found || r.ReplicaHours < best.ReplicaHours) {
			best, found = r, true
		}
	}
	return best, found
}

// OnsetShare is the share of the scored requests that arrive in intervals whose oracle size is
// above every oracle size of the provisioning + evaluation before them: the onsets of bursts,
// which a policy sizing from what it has seen meets with too few replicas ready. When it is over
// 1 − q no reactive policy meets the SLO without holding spare replicas: it bounds how close a
// causal policy gets to the oracle.
func OnsetShare(o AutoscaleOptions, oracle []int32) float64 {
	k := max(1, int((o.Provisioning+o.Evaluation+o.Step-1)/o.Step))
	onset, total := 0.0, 0.0
	for i := o.warmIntervals(); i < len(o.Rates); i++ {
		total += o.Rates[i]
		seen := int32(0)
		for j := max(0, i-k); j < i; j++ {
			seen = max(seen, oracle[j])
		}
		if i >= k && oracle[i] > seen {
			onset += o.Rates[i]
		}
	}
	if total == 0 {
		return 0
	}
	return onset / total
}

// oracleSizes returns the Erlang C minimum replicas for each interval's rate.
func oracleSizes(o AutoscaleOptions) ([]int32, error) {
	sizes := make([]int32, len(o.Rates))
	for i, r := range o.Rates {
		if r == 0 {
			continue
		}
		servers := minServers(r, o.ServiceTime, o.Spread, o.Quantile, o.SLO)
		if servers == 0 {
			return nil, gpucost.Errorf(gpucost.EInvalid, "interval %d: %.4g requests/s at %v each needs more than %d servers", i, r, o.ServiceTime, maxReplicas)
		}
		sizes[i] = int32((servers + o.Concurrency - 1) / o.Concurrency)
	}
	return sizes, nil
}

// runOracle scores the oracle's sizes with the same serving model as the policies.
func runOracle(o AutoscaleOptions, sizes []int32) AutoscaleResult {
	r := AutoscaleResult{Policy: Oracle, Replicas: sizes, Settings: "per-interval Erlang C minimum, no delay"}
	var q queueState
	var warm AutoscaleResult // the unscored warm-up's counts
	dt := o.Step.Seconds()
	from := o.warmIntervals()
	for i, rate := range o.Rates {
		n := int(sizes[i])
		to := &r
		if i < from {
			to = &warm
		}
		q.serve(o, to, i, n, rate, dt)
		to.ReplicaHours += float64(n) * dt / 3600
		r.PeakReplicas = max(r.PeakReplicas, n)
	}
	finish(o, &r, 0)
	return r
}

// warmIntervals is the number of intervals in the unscored warm-up.
func (o AutoscaleOptions) warmIntervals() int {
	return min(len(o.Rates), int(o.Warmup/o.Step))
}

// finish fills the totals that follow from the hours and requests.
func finish(o AutoscaleOptions, r *AutoscaleResult, spotHours float64) {
	r.SpotHours = spotHours
	r.GPUHours = r.ReplicaHours * float64(o.GPUsPerReplica)
	od := (r.ReplicaHours - spotHours) * float64(o.GPUsPerReplica)
	r.Cost = o.PricePerGPU.MulFloat(od)
	if o.Spot != nil {
		r.Cost = r.Cost.Add(o.Spot.PricePerGPU.MulFloat(spotHours * float64(o.GPUsPerReplica)))
	}
	if b := float64(max(1, o.Batch)); b > 1 {
		r.Requests, r.WithinSLO, r.Delayed, r.Dropped = b*r.Requests, b*r.WithinSLO, b*r.Delayed, b*r.Dropped
	}
	r.Attainment = 1
	if r.Requests > 0 {
		r.Attainment = r.WithinSLO / r.Requests
	}
	if o.Tokens != nil && !r.Cost.IsZero() {
		p := o.Tokens.RunPerMillion(*r)
		r.PerMillionTokens = &p
	}
	if d := o.Step.Hours() * float64(len(o.Rates)-o.warmIntervals()); d > 0 {
		r.MeanReplicas = r.ReplicaHours / d
	}
}
