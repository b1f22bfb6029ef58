package plan

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/gpucost/gpucost"
)

// prepare checks o, fills its defaults and returns the oracle's sizes, which several defaults
// follow from.
func prepare(o AutoscaleOptions) (AutoscaleOptions, []int32, error) {
	if err := checkAutoscale(o); err != nil {
		return o, nil, err
	}
	o.Concurrency = max(1, o.Concurrency)
	if o.Batch > 1 || o.BatchFill > 0 {
		batches := make([]float64, len(o.Rates))
		for i, r := range o.Rates {
			batches[i] = r / float64(max(1, o.Batch))
		}
		o.Rates, o.SLO, o.BatchFill = batches, o.SLO-o.BatchFill, 0
	}
	o.GPUsPerReplica = max(1, o.GPUsPerReplica)
	o.Provisioning = defaultDuration(o.Provisioning, time.Minute)
	o.Evaluation = defaultDuration(o.Evaluation, time.Minute)
	o.ScaleOutCooldown = defaultDuration(o.ScaleOutCooldown, o.Evaluation)
	o.ScaleInCooldown = defaultDuration(o.ScaleInCooldown, 5*time.Minute)
	o.IdleTimeout = defaultDuration(o.IdleTimeout, 5*time.Minute)
	o.MaxQueueWait = defaultDuration(o.MaxQueueWait, 10*o.SLO)
	o.Season = defaultDuration(o.Season, 24*time.Hour)
	if o.MinReplicas == 0 {
		o.MinReplicas = 1
	}
	if o.TargetUtilisation == 0 {
		o.TargetUtilisation = 0.7
	}
	if o.StepUp == 0 {
		o.StepUp = 0.8
	}
	if o.StepDown == 0 {
		o.StepDown = 0.4
	}
	oracle, err := oracleSizes(o)
	if err != nil {
		return o, nil, err
	}
	peak, at := 0, 0
	for i, n := range oracle {
		if int(n) > peak {
			peak, at = int(n), i
		}
	}
	if o.MaxReplicas > 0 && peak > o.MaxReplicas {
		b := float64(max(1, o.Batch))
		most := MaxRate(o.MaxReplicas*o.Concurrency, o.ServiceTime, o.Spread, o.Quantile, o.SLO) * b
		return o, nil, gpucost.Errorf(gpucost.EInvalid,
			"the trace's peak, %.4g requests/s at %s, needs %d replicas for p%s ≤ %v; %d replicas serve at most %.4g requests/s: raise the replica limit to %d, shorten the service time, or relax the SLO",
			o.Rates[at]*b, o.Start.Add(time.Duration(at)*o.Step).Format(time.DateTime), peak, quantileName(o.Quantile), o.SLO, o.MaxReplicas, most, peak)
	}
	if o.MaxReplicas == 0 {
		o.MaxReplicas = max(4*peak, o.MinReplicas, 1)
	}
	if o.Replicas == 0 {
		o.Replicas = max(peak, o.MinReplicas)
	}
	if len(o.Schedule) == 0 {
		o.Schedule, o.hindsight = hourlyPeaks(o, oracle), true
	}
	return o, oracle, nil
}

func defaultDuration(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

func checkAutoscale(o AutoscaleOptions) error {
	switch {
	case len(o.Rates) == 0:
		return gpucost.Errorf(gpucost.EInvalid, "the trace has no intervals")
	case o.Step <= 0:
		return gpucost.Errorf(gpucost.EInvalid, "trace interval %v: give a positive interval", o.Step)
	case o.Batch < 0 || o.BatchFill < 0 || o.BatchFill >= o.SLO:
		return gpucost.Errorf(gpucost.EInvalid, "batch of %d filling in %v: give a batch of 1 or more that fills within the SLO %v", o.Batch, o.BatchFill, o.SLO)
	case o.Concurrency < 0 || o.MinReplicas < 0 || o.MaxReplicas < 0 || o.Replicas < 0 || o.GPUsPerReplica < 0:
		return gpucost.Errorf(gpucost.EInvalid, "concurrency, replica counts and GPUs per replica must not be negative")
	case o.MaxReplicas > 0 && o.MinReplicas > o.MaxReplicas:
		return gpucost.Errorf(gpucost.EInvalid, "min replicas %d is above max replicas %d", o.MinReplicas, o.MaxReplicas)
	case o.Provisioning < 0 || o.Evaluation < 0 || o.ScaleOutCooldown < 0 || o.ScaleInCooldown < 0 || o.IdleTimeout < 0 || o.MaxQueueWait < 0:
		return gpucost.Errorf(gpucost.EInvalid, "delays, cooldowns and timeouts must not be negative")
	case o.TargetUtilisation < 0 || o.TargetUtilisation > 1 || o.StepDown < 0 || o.StepUp > 1 || o.StepUp > 0 && o.StepDown >= o.StepUp:
		return gpucost.Errorf(gpucost.EInvalid, "utilisation targets must lie in 0–1 with the step-down threshold below the step-up one")
	case o.Headroom < 0 || o.Headroom > 10 || math.IsNaN(o.Headroom):
		return gpucost.Errorf(gpucost.EInvalid, "headroom %v: give a share between 0 and 10", o.Headroom)
	case len(o.Schedule) != 0 && len(o.Schedule) != 24 && len(o.Schedule) != 168:
		return gpucost.Errorf(gpucost.EInvalid, "schedule of %d hours: give 24 (hours of the day) or 168 (hours of the week)", len(o.Schedule))
	case o.PricePerGPU.Nanos < 0:
		return gpucost.Errorf(gpucost.EInvalid, "price %s: give zero or more", o.PricePerGPU)
	case o.Warmup < 0 || o.Warmup >= o.Step*time.Duration(len(o.Rates)):
		return gpucost.Errorf(gpucost.EInvalid, "warm-up %v: give a duration shorter than the trace (%v)", o.Warmup, o.Step*time.Duration(len(o.Rates)))
	}
	for _, n := range o.Schedule {
		if n < 0 {
			return gpucost.Errorf(gpucost.EInvalid, "schedule: replica count %d is negative", n)
		}
	}
	for i, r := range o.Rates {
		if r < 0 || math.IsNaN(r) || math.IsInf(r, 0) {
			return gpucost.Errorf(gpucost.EInvalid, "trace interval %d: rate %v is not a rate", i, r)
		}
	}
	if s := o.Spot; s != nil {
		switch {
		case s.Share < 0 || s.Share > 1 || math.IsNaN(s.Share):
			return gpucost.Errorf(gpucost.EInvalid, "spot share %v: give a share between 0 and 1", s.Share)
		case s.InterruptionsPerHour < 0 || math.IsNaN(s.InterruptionsPerHour) || s.Notice < 0 || s.PricePerGPU.Nanos < 0:
			return gpucost.Errorf(gpucost.EInvalid, "spot: the interruption rate, notice and price must not be negative")
		case s.Rand == nil && s.InterruptionsPerHour > 0:
			return gpucost.Errorf(gpucost.EInvalid, "spot: interruptions need a random source")
		}
	}
	_, err := ReplicasFor(0, o.ServiceTime, o.Spread, o.Quantile, o.SLO-o.BatchFill) // checks S, q and the SLO
	return err
}

// hourlyPeaks is the hindsight schedule: each hour of the day's largest oracle size.
func hourlyPeaks(o AutoscaleOptions, oracle []int32) []int {
	s := make([]int, 24)
	for i, n := range oracle {
		h := o.Start.Add(time.Duration(i) * o.Step).UTC().Hour()
		s[h] = max(s[h], int(n), o.MinReplicas)
	}
	return s
}

// queueState is the backlog: requests that found no free server, oldest first, as a fluid.
type queueState struct {
	chunks []chunk
	head   int // chunks[:head] are served
	queued float64
}

// chunk is one interval's queued arrivals, which arrived evenly over the interval.
type chunk struct {
	step      int     // the interval they arrived in
	total     float64 // requests that arrived
	remaining float64 // not yet served or dropped: the latest arrivals of the interval
}

// serve serves one interval's arrivals with n ready replicas and returns the busy share of
// their servers. Without a backlog and with a stable load, the interval is an M/M/c queue in
// steady state; otherwise arrivals queue behind the backlog and are served oldest first, at
// the full rate of the servers, and each request's wait is the time from its arrival to the
// start of its service.
func (q *queueState) serve(o AutoscaleOptions, r *AutoscaleResult, step, n int, rate, dt float64) float64 {
	a := rate * dt
	r.Requests += a
	m := n * o.Concurrency
	s := o.ServiceTime.Seconds()
	if q.queued == 0 && rate*s < float64(m) {
		tail := ResponseTail(m, rate, o.ServiceTime, o.Spread, o.SLO)
		r.WithinSLO += a * (1 - tail)
		r.Delayed += a * tail
		return rate * s / float64(m)
	}
	if a > 0 {
		q.chunks = append(q.chunks, chunk{step, a, a})
		q.queued += a
	}
	q.drop(o, r, step, dt)
	if m == 0 {
		return 1
	}
	mu := float64(m) / s // requests served per second with every server busy
	capacity := mu * dt
	served, v, slo := 0.0, newService(o.ServiceTime, o.Spread), o.SLO.Seconds()
	for capacity-served > 1e-12 && q.head < len(q.chunks) {
		c := &q.chunks[q.head]
		x := min(c.remaining, capacity-served)
		// The portion's arrivals span fractions f0…f1 of its interval; its services run from
		// t0 to t1 within this one. Waits change linearly between the ends.
		f0 := 1 - c.remaining/c.total
		f1 := f0 + x/c.total
		t0 := float64(step)*dt + served/mu
		t1 := t0 + x/mu
		a0, a1 := (float64(c.step)+f0)*dt, (float64(c.step)+f1)*dt
		within := x * shareWithin(v, max(0, t0-a0), max(0, t1-a1), slo)
		r.WithinSLO += within
		r.Delayed += x - within
		served += x
		c.remaining -= x
		q.queued -= x
		if c.remaining <= 1e-12*c.total {
			q.queued -= c.remaining
			q.head++
		}
	}
	q.compact()
	if q.queued < 1e-9 {
		q.queued = 0
	}
	return served / capacity
}

// shareWithin is the share of a portion whose waits run linearly from w0 to w1 that is served
// within slo: the mean over its waits w of P(S ≤ slo − w), by Simpson's rule.
func shareWithin(v service, w0, w1, slo float64) float64 {
	if w0 > w1 {
		w0, w1 = w1, w0
	}
	in := func(w float64) float64 { return 1 - v.tail(slo-w) }
	if w1-w0 < 1e-12 {
		return in(w0)
	}
	const n = 16
	h := (w1 - w0) / n
	sum := in(w0) + in(w1)
	for i := 1; i < n; i++ {
		sum += float64(2+2*(i%2)) * in(w0+float64(i)*h)
	}
	return sum * h / 3 / (w1 - w0)
}

// drop drops the queued requests that arrived more than MaxQueueWait before this interval.
func (q *queueState) drop(o AutoscaleOptions, r *AutoscaleResult, step int, dt float64) {
	cutoff := float64(step)*dt - o.MaxQueueWait.Seconds()
	for q.head < len(q.chunks) {
		c := &q.chunks[q.head]
		f0 := 1 - c.remaining/c.total
		fc := (cutoff - float64(c.step)*dt) / dt // the share of its interval before the cutoff
		if fc <= f0 {
			return
		}
		x := min(c.remaining, (fc-f0)*c.total)
		r.Dropped += x
		q.queued -= x
		c.remaining -= x
		if c.remaining > 1e-12*c.total {
			return
		}
		q.head++
	}
}

// compact reuses the chunk slice once it is served.
func (q *queueState) compact() {
	if q.head == len(q.chunks) {
		q.chunks, q.head = q.chunks[:0], 0
	} else if q.head > 1024 && q.head > len(q.chunks)/2 {
		q.chunks = append(q.chunks[:0], q.chunks[q.head:]...)
		q.head = 0
	}
}

// observation is what a policy sees at a decision: the last evaluation window's metrics.
type observation struct {
	now      time.Duration // since the trace's start
	rate     float64       // mean arrivals per second over the window
	busy     float64       // mean busy share of the ready servers
	backlog  float64       // requests queued now
	ready    int
	total    int           // ready and booting, less those leaving
	idleFor  time.Duration // since the last interval with requests
	interval int           // the decision's interval index
}

// simulate replays the trace under a policy.
func simulate(o AutoscaleOptions, oracle []int32) AutoscaleResult {
	decide := newPolicy(o, oracle)
	r := AutoscaleResult{Policy: o.Policy, Replicas: make([]int32, len(o.Rates)), Settings: settings(o), Hindsight: o.Policy == Scheduled && o.hindsight}
	p := newPool(o, int(oracle[0]))
	var q queueState
	var warm AutoscaleResult // the unscored warm-up's counts
	from := o.warmIntervals()
	dt := o.Step.Seconds()
	every := max(1, int(math.Round(float64(o.Evaluation)/float64(o.Step))))
	var win struct {
		arrivals, busy float64
		steps          int
	}
	var lastBusy time.Duration
	var billed, spot float64
	for i, rate := range o.Rates {
		now := time.Duration(i) * o.Step
		p.advance(now, o.Step, &r)
		if o.Policy == ScaleToZero && p.size() == 0 && (rate > 0 || q.queued > 0) {
			p.resize(now, 1) // a request at zero replicas starts one: the cold start
		}
		to := &r
		if i < from {
			to = &warm
		}
		busy := q.serve(o, to, i, p.ready(), rate, dt)
		if rate > 0 {
			lastBusy = now + o.Step
		}
		win.arrivals += rate * dt
		win.busy += busy
		win.steps++
		if i >= from {
			billed += float64(p.billed()) * dt
			spot += float64(p.spotBilled()) * dt
		}
		r.Replicas[i] = int32(p.billed())
		r.PeakReplicas = max(r.PeakReplicas, p.billed())
		if (i+1)%every != 0 && i+1 < len(o.Rates) {
			continue
		}
		end := now + o.Step
		obs := observation{now: end, rate: win.arrivals / (float64(win.steps) * dt), busy: win.busy / float64(win.steps),
			backlog: q.queued, ready: p.ready(), total: p.size(), idleFor: end - lastBusy, interval: i}
		p.apply(end, decide(obs))
		win.arrivals, win.busy, win.steps = 0, 0, 0
	}
	r.Delayed += q.queued // still queued when the trace ends
	r.ReplicaHours = billed / 3600
	r.ScaleOuts, r.ScaleIns, r.Interruptions = p.outs, p.ins, p.interruptions
	finish(o, &r, spot/3600)
	r.Notes = runNotes(o, r, oracle)
	return r
}

func runNotes(o AutoscaleOptions, r AutoscaleResult, oracle []int32) []string {
	var notes []string
	if r.Dropped > 0 {
		notes = append(notes, fmt.Sprintf("%s dropped %.0f requests that waited over %v.", r.Policy, r.Dropped, o.MaxQueueWait))
	}
	if o.Policy == Static && slices.Max(oracle) > int32(o.Replicas) {
		notes = append(notes, fmt.Sprintf("static: %d replicas are below the trace's peak need of %d.", o.Replicas, slices.Max(oracle)))
	}
	return notes
}

// settings describes the policy's parameters for people, with the spot mix if any.
func settings(o AutoscaleOptions) string {
	s := policySettings(o)
	if sp := o.Spot; sp != nil {
		fallback := "spot replacements"
		if sp.Fallback {
			fallback = "on-demand fallback"
		}
		s += fmt.Sprintf("; %.0f%% spot, %.3g interruptions/h, %v notice, %s", 100*sp.Share, sp.InterruptionsPerHour, sp.Notice, fallback)
	}
	return s
}

func policySettings(o AutoscaleOptions) string {
	common := fmt.Sprintf("min %d, max %d, provisioning %v, evaluation %v", o.MinReplicas, o.MaxReplicas, o.Provisioning, o.Evaluation)
	switch o.Policy {
	case Static:
		return fmt.Sprintf("%d replicas", o.Replicas)
	case TargetTracking:
		return fmt.Sprintf("target %.0f%% utilisation, %s, scale-in window %v", 100*o.TargetUtilisation, common, o.ScaleInCooldown)
	case StepScaling:
		return fmt.Sprintf("add above %.0f%%, remove below %.0f%%, %s", 100*o.StepUp, 100*o.StepDown, common)
	case Scheduled:
		if o.hindsight {
			return fmt.Sprintf("hindsight: each hour's peak need taken from the scored trace itself, %v", o.Schedule)
		}
		return fmt.Sprintf("%d-hour schedule %v", len(o.Schedule), o.Schedule)
	case LearnedSchedule:
		return fmt.Sprintf("each hour's peak need the day before (earlier days only), or Erlang C on the last window's rate when more, %s", common)
	case ScaleToZero:
		return fmt.Sprintf("target %.0f%%, zero after %v idle, cold start %v", 100*o.TargetUtilisation, o.IdleTimeout, o.Provisioning)
	case Predictive:
		return fmt.Sprintf("Erlang C on a forecast %v ahead + %.0f%% headroom, %s", o.Provisioning+o.Evaluation, 100*o.Headroom, common)
	}
	return ""
}
