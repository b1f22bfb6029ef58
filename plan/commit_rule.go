package plan

import (
	"math"
	"slices"

	"github.com/gpucost/gpucost"
)

// BuyRule is how a back-test chooses each purchase from the hours before it. Every rule sees
// only the lookback, never the period it is scored on, so a user can run it.
type BuyRule string

// The buying rules. Measured captured shares of the hindsight optimum (commit_rule_test.go, at
// discounts 0.28 / 0.4 / 0.57): on the demo shape (4-week lookback, weekly purchases) trailing
// 100.00 / 99.94 / 99.99%, recent 100.00 / 99.92 / 99.98%, weighted 100.00 / 99.94 / 99.93%; on
// the Alibaba openb trace (1-week lookback, daily purchases) trailing 88.9 / 91.0 / 93.0%,
// recent 93.4 / 95.6 / 96.3%, weighted 92.6 / 94.3 / 95.8%. Trailing stays the default: the
// others are no better on the demo shape.
const (
	// RuleTrailing buys the d-quantile of the whole lookback (DESIGN.md "Commitments").
	RuleTrailing BuyRule = "trailing"
	// RuleRecent buys the d-quantile of the last Period hours of the lookback: usage persists,
	// so the latest period forecasts the next best when the level shifts.
	RuleRecent BuyRule = "recent"
	// RuleWeighted buys the d-quantile of the lookback with each hour weighted by 2^(−age/Period):
	// the latest period counts most, older hours still temper it.
	RuleWeighted BuyRule = "weighted"
)

// buy returns the commitment the rule chooses from past for periods of period hours, or an error
// naming the rules that exist.
func (r BuyRule) buy(past []float64, d, step float64, period int) (float64, error) {
	switch r {
	case RuleTrailing, "":
		return OptimalCommitment(past, d, step), nil
	case RuleRecent:
		return OptimalCommitment(past[max(0, len(past)-period):], d, step), nil
	case RuleWeighted:
		return weightedCommitment(past, d, step, float64(period)), nil
	}
	return 0, gpucost.Errorf(gpucost.EInvalid, "buying rule %q is not known: use trailing, recent or weighted", string(r))
}

// weighted is one hour of usage and its weight.
type weighted struct{ u, w float64 }

// weightedCommitment minimises the weighted cost Σ w_t·((1−d)·c + max(u_t − c, 0)) with
// w_t = 2^(−age_t/half): by Commit's argument, the level where the weight of hours above it falls
// to (1−d) of the total, the weighted d-quantile. With step > 0 the better of the two multiples
// around it.
func weightedCommitment(past []float64, d, step, half float64) float64 {
	hours := make([]weighted, len(past))
	total := 0.0
	for i, u := range past {
		hours[i] = weighted{u, math.Exp2(-float64(len(past)-1-i) / half)}
		total += hours[i].w
	}
	slices.SortFunc(hours, func(a, b weighted) int {
		switch {
		case a.u < b.u:
			return -1
		case a.u > b.u:
			return 1
		}
		return 0
	})
	q, acc := 0.0, 0.0
	for _, h := range hours {
		q = h.u
		acc += h.w
		if acc >= d*total*(1-1e-12) {
			break
		}
	}
	if step <= 0 {
		return q
	}
	lo := math.Floor(q/step) * step
	if weightedCost(hours, lo+step, d) < weightedCost(hours, lo, d) {
		return lo + step
	}
	return lo
}

// weightedCost returns weightedCommitment's cost of level c.
func weightedCost(hours []weighted, c, d float64) float64 {
	total := 0.0
	for _, h := range hours {
		total += h.w * ((1-d)*c + max(h.u-c, 0))
	}
	return total
}
