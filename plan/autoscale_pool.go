package plan

import (
	"math"
	"time"
)

// pool is the serving pool during a simulation: replicas ready or booting, on-demand or spot,
// and spot replicas serving out their interruption notice.
type pool struct {
	o                  AutoscaleOptions
	readyOD, readySpot int
	pending            []launch        // booting, in the order they become ready
	pendingSpot        int             // of pending
	leaving            []time.Duration // when each interrupted spot replica goes, in order
	wants              []want          // recent decisions, for the scale-in window
	lastOut            time.Duration
	outs, ins          int
	interruptions      int
}

type launch struct {
	at   time.Duration // ready from
	spot bool
}

type want struct {
	at time.Duration
	n  int
}

// newPool starts the pool warm, as a running service would be when a replay starts: the
// static count, the schedule's, or for the autoscalers the oracle's size for the first interval
// within their limits.
func newPool(o AutoscaleOptions, first int) *pool {
	p := &pool{o: o, lastOut: -1 << 62}
	start := min(max(first, o.MinReplicas), o.MaxReplicas)
	switch o.Policy {
	case Static:
		start = o.Replicas
	case Scheduled:
		start = p.scheduled(0)
	case ScaleToZero:
		start = min(first, o.MaxReplicas)
	}
	spot := p.spotTarget(start)
	p.readySpot, p.readyOD = spot, start-spot // the pool is running when the trace starts
	return p
}

func (p *pool) ready() int      { return p.readyOD + p.readySpot }
func (p *pool) size() int       { return p.ready() + len(p.pending) - len(p.leaving) }
func (p *pool) billed() int     { return p.ready() + len(p.pending) }
func (p *pool) spotBilled() int { return p.readySpot + p.pendingSpot }
func (p *pool) spotSize() int   { return p.readySpot + p.pendingSpot - len(p.leaving) }

// spotTarget is the number of spot replicas a pool of n should hold.
func (p *pool) spotTarget(n int) int {
	if p.o.Spot == nil {
		return 0
	}
	return int(math.Round(p.o.Spot.Share * float64(n)))
}

// scheduled is the schedule's count at a time since the trace's start.
func (p *pool) scheduled(now time.Duration) int {
	t := p.o.Start.Add(now).UTC()
	if len(p.o.Schedule) == 168 {
		return p.o.Schedule[(int(t.Weekday())+6)%7*24+t.Hour()]
	}
	return p.o.Schedule[t.Hour()]
}

// advance brings the pool to now: launches that finished booting become ready, interrupted
// spot replicas whose notice ran out go, and the interval's interruptions are drawn.
func (p *pool) advance(now, step time.Duration, r *AutoscaleResult) {
	i := 0
	for ; i < len(p.pending) && p.pending[i].at <= now; i++ {
		if p.pending[i].spot {
			p.readySpot++
			p.pendingSpot--
		} else {
			p.readyOD++
		}
	}
	p.pending = p.pending[i:]
	j := 0
	for ; j < len(p.leaving) && p.leaving[j] <= now; j++ {
		p.readySpot--
	}
	p.leaving = p.leaving[j:]
	s := p.o.Spot
	if s == nil || s.InterruptionsPerHour == 0 {
		return
	}
	exposed := p.readySpot - len(p.leaving)
	for k := poisson(s, float64(exposed)*s.InterruptionsPerHour*step.Hours()); k > 0 && exposed > 0; k-- {
		p.interruptions++
		exposed--
		p.leaving = append(p.leaving, now+s.Notice)
		if s.Notice == 0 {
			p.readySpot--
			p.leaving = p.leaving[:len(p.leaving)-1]
		}
		if s.Fallback {
			p.pending = append(p.pending, launch{at: now + p.o.Provisioning})
		}
	}
}

// poisson draws a Poisson count of the given mean (Knuth's method; means here are small).
func poisson(s *SpotServing, mean float64) int {
	if mean <= 0 {
		return 0
	}
	l, k, prod := math.Exp(-mean), 0, s.Rand.Float64()
	for prod > l {
		k++
		prod *= s.Rand.Float64()
	}
	return k
}

// apply carries out a policy's decision at now within the limits, the scale-out cooldown and
// the scale-in window: scale-in goes only to the largest size wanted over the window.
func (p *pool) apply(now time.Duration, n int) {
	lo := p.o.MinReplicas
	if p.o.Policy == ScaleToZero {
		lo = 0
	}
	n = min(max(n, lo), p.o.MaxReplicas)
	keep := 0
	for keep < len(p.wants) && now-p.wants[keep].at >= p.o.ScaleInCooldown {
		keep++
	}
	p.wants = append(p.wants[keep:], want{now, n})
	cur := p.size()
	switch {
	case n > cur && now-p.lastOut >= p.o.ScaleOutCooldown:
		p.resize(now, n)
		p.lastOut = now
	case n < cur && p.o.Policy != Scheduled && p.o.Policy != Static:
		most := n
		for _, w := range p.wants {
			most = max(most, w.n)
		}
		if most < cur {
			p.resize(now, most)
		}
	case n < cur:
		p.resize(now, n) // a schedule or a fixed size is followed as given
	}
}

// resize launches or removes replicas to reach n, keeping the spot share: removals take
// booting replicas first, newest first, then ready ones of the market over its share.
func (p *pool) resize(now time.Duration, n int) {
	cur := p.size()
	if n > cur {
		p.outs++
		spot := min(max(p.spotTarget(n)-p.spotSize(), 0), n-cur)
		for k := range n - cur {
			p.pending = append(p.pending, launch{at: now + p.o.Provisioning, spot: k < spot})
		}
		p.pendingSpot += spot
		return
	}
	if n == cur {
		return
	}
	p.ins++
	for cur > n && len(p.pending) > 0 {
		last := p.pending[len(p.pending)-1]
		if last.spot {
			p.pendingSpot--
		}
		p.pending = p.pending[:len(p.pending)-1]
		cur--
	}
	target := p.spotTarget(n)
	for ; cur > n; cur-- {
		if p.spotSize() > target && p.readySpot > len(p.leaving) || p.readyOD == 0 {
			p.readySpot--
		} else {
			p.readyOD--
		}
	}
}
