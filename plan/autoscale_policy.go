package plan

import (
	"math"
	"time"
)

// newPolicy returns the decision function of o.Policy: the replica count it wants after an
// evaluation window. The pool then applies limits and cooldowns.
func newPolicy(o AutoscaleOptions, oracle []int32) func(observation) int {
	perReplica := float64(o.Concurrency)
	s := o.ServiceTime.Seconds()
	// load is the replicas' worth of work the window brought: arrivals × S, plus the backlog
	// drained within one window.
	load := func(ob observation) float64 {
		return (ob.rate*s + ob.backlog*s/o.Evaluation.Seconds()) / perReplica
	}
	switch o.Policy {
	case Static:
		return func(observation) int { return o.Replicas }
	case TargetTracking:
		return func(ob observation) int { return ceil(load(ob) / o.TargetUtilisation) }
	case StepScaling:
		return stepPolicy(o, load)
	case Scheduled:
		p := &pool{o: o}
		return func(ob observation) int { return p.scheduled(ob.now) }
	case LearnedSchedule:
		return learnedSchedule(o, oracle, func(ob observation) int { return erlangSize(o, ob.rate+ob.backlog/o.Evaluation.Seconds()) })
	case ScaleToZero:
		return func(ob observation) int {
			if ob.idleFor >= o.IdleTimeout && ob.backlog == 0 {
				return 0
			}
			return max(1, ceil(load(ob)/o.TargetUtilisation))
		}
	case Predictive:
		return predictivePolicy(o)
	}
	panic("plan: unknown policy " + string(o.Policy)) // ParsePolicy and Autoscale admit no other
}

// ceil rounds a replica count up, forgiving float noise.
func ceil(x float64) int { return int(math.Ceil(x - 1e-9)) }

// stepPolicy adds replicas in steps that grow with the utilisation over StepUp (+1 up to 10
// points over, +25% up to 30 points over, +50% beyond) and removes one below StepDown.
func stepPolicy(o AutoscaleOptions, load func(observation) float64) func(observation) int {
	return func(ob observation) int {
		n := ob.total
		if n == 0 {
			return max(1, ceil(load(ob)/o.StepUp))
		}
		u := load(ob) / float64(n)
		switch {
		case u >= o.StepUp+0.3:
			return n + max(3, ceil(0.5*float64(n)))
		case u >= o.StepUp+0.1:
			return n + max(2, ceil(0.25*float64(n)))
		case u >= o.StepUp:
			return n + 1
		case u < o.StepDown:
			return n - 1
		}
		return n
	}
}

// predictivePolicy sizes by Erlang C for the rate it forecasts one provisioning delay and one
// window ahead: the largest of the window's rate, Holt's linear trend (double exponential
// smoothing of the window rates) and, once a season has passed, the rates seen one season ago
// around the same time. The forecast is raised by the headroom.
func predictivePolicy(o AutoscaleOptions) func(observation) int {
	const alpha, beta = 0.5, 0.3
	var (
		level, trend float64
		history      []float64 // window rates, one per decision
		started      bool
	)
	ahead := float64(o.Provisioning+o.Evaluation) / float64(o.Evaluation)
	season := int(math.Round(float64(o.Season) / float64(o.Evaluation)))
	return func(ob observation) int {
		if !started {
			level, started = ob.rate, true
		} else {
			prev := level
			level = alpha*ob.rate + (1-alpha)*(level+trend)
			trend = beta*(level-prev) + (1-beta)*trend
		}
		history = append(history, ob.rate)
		f := max(ob.rate, level+trend*ahead)
		if season > 0 && len(history) > season {
			at := len(history) - season + int(math.Ceil(ahead))
			for k := at - 1; k <= at+1; k++ {
				if k >= 0 && k < len(history) {
					f = max(f, history[k])
				}
			}
		}
		return erlangSize(o, f*(1+o.Headroom)+ob.backlog/o.Evaluation.Seconds())
	}
}

// erlangSize is the fewest replicas that keep the SLO at rate.
func erlangSize(o AutoscaleOptions, rate float64) int {
	servers, err := ReplicasFor(rate, o.ServiceTime, o.Spread, o.Quantile, o.SLO)
	if err != nil { // the SLO was checked feasible; only an absurd rate is left
		return o.MaxReplicas
	}
	return (servers + o.Concurrency - 1) / o.Concurrency
}

// learnedSchedule is the causal schedule: at each decision it wants the peak need (the oracle's
// size, which follows from rates already seen) of the same hour the day before, for the hour
// its launches will be ready in, and at least the Erlang C size of the last window's rate.
// Until a day has passed it is that Erlang C size alone.
func learnedSchedule(o AutoscaleOptions, oracle []int32, track func(observation) int) func(observation) int {
	day := int(24 * time.Hour / o.Step)
	hour := max(1, int(time.Hour/o.Step))
	return func(ob observation) int {
		want := track(ob)
		ahead := ob.interval + 1 + int((o.Provisioning+o.Evaluation)/o.Step) // the interval launches now serve
		at := ahead - day                                                    // the same time yesterday
		if at < 0 || at+hour > ob.interval+1 {                               // only intervals already seen
			return want
		}
		from := at - at%hour // yesterday's hour, whole
		for i := from; i < from+hour && i <= ob.interval; i++ {
			want = max(want, int(oracle[i]))
		}
		return want
	}
}
