package serving

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/plan"
	"github.com/gpucost/gpucost/recommend"
	"github.com/gpucost/gpucost/traffic"
)

// Input is what a --serving file read: each pool's traffic over the period and where it came
// from.
type Input struct {
	File    string                     `json:"file"`
	Pools   []PoolSummary              `json:"pools"`
	Traffic []recommend.ServingTraffic `json:"-"` // in Pools' order
	pools   []Pool                     // in Pools' order
}

// PoolSummary is one pool of the serving section, for people and JSON.
type PoolSummary struct {
	Namespace    string  `json:"namespace"`
	SLO          string  `json:"slo"`
	ServiceTimeS float64 `json:"service_time_s"`
	Source       string  `json:"source"`
	PeakHour     float64 `json:"busiest_hour_requests"`
	MeanHour     float64 `json:"mean_hour_requests"`
	Machines     int     `json:"machines"` // serving machines of the namespace in the bill
	// Tokens is the pool's cost of a million tokens as held, when its requests file counts
	// tokens; nil otherwise.
	Tokens *PoolTokens `json:"tokens,omitempty"`
	tokens *traffic.TokenCounts
}

// PoolTokens prices a pool's tokens: its machines' monthly cost over a month of its tokens
// (the mean requests of each hour of the week, at the requests file's mean tokens a request).
// Input and output split the cost by GPU time when the pool gives prefill and decode rates.
type PoolTokens struct {
	InputPerRequest  float64        `json:"input_tokens_per_request"`
	OutputPerRequest float64        `json:"output_tokens_per_request"`
	PerMillion       gpucost.Money  `json:"cost_per_1m_tokens"`
	PerMillionInput  *gpucost.Money `json:"cost_per_1m_input_tokens,omitempty"`
	PerMillionOutput *gpucost.Money `json:"cost_per_1m_output_tokens,omitempty"`
}

// ReadFile reads and checks the pools of the --serving file.
func ReadFile(file string) ([]Pool, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "--serving: %v; give a YAML file of serving pools (see gpucost recommend --help)", err)
	}
	return ParsePools(file, data)
}

// Load reads the pools' request counts over [from, to); from is moved back to its midnight
// UTC, as the fleet's period is (bills are by day). file names the --serving file in messages.
func Load(ctx context.Context, file string, pools []Pool, from, to time.Time) (*Input, error) {
	from = from.Truncate(24 * time.Hour)
	in := &Input{File: file}
	for i, p := range pools {
		week, desc, tokens, err := poolRequests(ctx, p, from, to)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: pools[%d] (namespace %s): %w", file, p.Line, i, p.Namespace, err)
		}
		in.Traffic = append(in.Traffic, recommend.ServingTraffic{Namespace: p.Namespace, Requests: week, ServiceTime: p.ServiceTime, Spread: p.Spread,
			Quantile: p.Quantile, SLO: p.SLO, Concurrency: p.Concurrency, GPUsPerReplica: p.GPUsPerReplica, Profile: p.Profile})
		s := PoolSummary{Namespace: p.Namespace, SLO: fmt.Sprintf("p%g ≤ %v", p.Quantile*100, p.SLO),
			ServiceTimeS: p.ServiceTime.Seconds(), Source: desc, tokens: tokens}
		for d := range 7 {
			for h := range 24 {
				s.PeakHour = max(s.PeakHour, week[d][h])
				s.MeanHour += week[d][h] / 168
			}
		}
		in.Pools = append(in.Pools, s)
		in.pools = append(in.pools, p)
	}
	return in, nil
}

// Section is the serving section of recommend's answer: the changes by request counts and the
// pools they come from.
type Section struct {
	Note            string                   `json:"note"`
	Pools           []PoolSummary            `json:"pools"`
	Recommendations []gpucost.Recommendation `json:"recommendations"`
}

// sectionNote says why the section's savings stand apart.
const sectionNote = "These overlap with the utilisation-based serving changes above and with each other: they are not added to the total, nor to gpucost report savings."

// Section sizes the pools of in against the fleet v and counts each pool's serving machines
// in the bill.
func (in *Input) Section(v recommend.FleetView, p recommend.Prices, o recommend.Options) (Section, error) {
	recs, err := recommend.ServingRecommendations(v, p, in.Traffic, o)
	if err != nil {
		return Section{}, err
	}
	if recs == nil {
		recs = []gpucost.Recommendation{}
	}
	for i := range in.Pools {
		var monthly gpucost.Money
		for _, r := range v.Resources {
			if r.Kind == recommend.KindServing && r.Namespace == in.Pools[i].Namespace {
				in.Pools[i].Machines++
				monthly = monthly.Add(r.Monthly)
			}
		}
		in.Pools[i].priceTokens(monthly, in.pools[i])
	}
	return Section{Pools: in.Pools, Recommendations: recs, Note: sectionNote}, nil
}

// priceTokens sets the pool's cost of a million tokens from its monthly cost, when its requests
// counted tokens.
func (s *PoolSummary) priceTokens(monthly gpucost.Money, p Pool) {
	t := s.tokens
	if t == nil || t.Requests <= 0 || monthly.IsZero() {
		return
	}
	in, out := t.Input/t.Requests, t.Output/t.Requests
	perMonth := s.MeanHour * recommend.HoursPerMonth // requests a month
	tokens := perMonth * (in + out)
	if tokens <= 0 {
		return
	}
	pt := &PoolTokens{InputPerRequest: in, OutputPerRequest: out, PerMillion: monthly.MulFloat(1e6 / tokens)}
	if p.PrefillRate > 0 && p.DecodeRate > 0 {
		tp := plan.TokenPlan{Model: plan.TokenModel{PrefillRate: p.PrefillRate, DecodeRate: p.DecodeRate, Concurrency: 1},
			Moments: plan.TokenMoments{Requests: t.Requests, Input: t.Input, Output: t.Output}}
		share := tp.PrefillShare()
		if in > 0 {
			m := monthly.MulFloat(share * 1e6 / (perMonth * in))
			pt.PerMillionInput = &m
		}
		if out > 0 {
			m := monthly.MulFloat((1 - share) * 1e6 / (perMonth * out))
			pt.PerMillionOutput = &m
		}
	}
	s.Tokens = pt
}
