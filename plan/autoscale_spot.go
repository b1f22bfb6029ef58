package plan

import (
	"math/rand/v2"
	"time"

	"github.com/gpucost/gpucost"
)

// SpotMix reads the spot mix of a replay as plan autoscale's flags give it: the share of
// replicas on spot (such as 50%), the interruptions per replica-hour (such as 5%/h), and the
// provider whose notice the replicas get (AWS's 2 minutes when none is named). The same seed
// draws the same interruptions. The price is left for the caller to set.
func SpotMix(share, rate, provider string, fallback bool, seed uint64) (*SpotServing, error) {
	sh, err := ParsePercent(share)
	if err != nil || sh > 1 {
		return nil, gpucost.Errorf(gpucost.EInvalid, "--spot-share %q: give a share up to 100%%, such as 50%%", share)
	}
	s := &SpotServing{Share: sh, Fallback: fallback, Rand: rand.New(rand.NewPCG(seed, 0x5e71))}
	if s.InterruptionsPerHour, err = ParseRate(rate); err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "--interruption-rate %w", err)
	}
	s.Notice = 2 * time.Minute
	if provider != "" {
		if s.Notice, err = SpotNotice(provider); err != nil {
			return nil, err
		}
	}
	return s, nil
}
