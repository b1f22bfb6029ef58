package budget

import (
	"cmp"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
)

// Estimate is the price of a job before it runs, with the arithmetic shown.
type Estimate struct {
	Job           Job
	Offer         gpucost.Offer // the offer priced; zero when the job gave its price
	Instances     int
	InstancePrice gpucost.Money // one instance-hour (with a price_per_hour for a GPU job: one GPU-hour)
	PerHour       gpucost.Money // all instances
	Cost          gpucost.Money // PerHour × Hours
	Basis         string        // where the price came from, for people
	Notes         []string      // caveats: lower bounds, chosen regions
}

// Price prices j from offers (a catalog's): an instance type at its cheapest matching region, or
// for a GPU count the instance type and region that give that many GPUs cheapest. Spot uses
// the spot price; committed takes the discount off on-demand. A SageMaker endpoint is priced
// from an ml. offer when the offers hold one, else from the EC2 instance it runs on, which is a
// lower bound (SageMaker bills more per hour). No offer is an EInvalid error.
func (j Job) Price(offers []gpucost.Offer) (Estimate, error) {
	e := Estimate{Job: j, Instances: j.Count}
	if j.HasPrice {
		e.InstancePrice = j.PricePerHour
		unit := "instance"
		if j.GPU != "" {
			unit = "GPU"
		}
		e.Basis = fmt.Sprintf("price_per_hour %s per %s-hour, from the job spec", j.PricePerHour.Decimal(), unit)
	} else if err := j.lookup(offers, &e); err != nil {
		return Estimate{}, err
	}
	e.PerHour = gpucost.Money{Nanos: e.InstancePrice.Nanos * int64(e.Instances), Currency: e.InstancePrice.Currency}
	e.Cost = e.PerHour.MulFloat(j.Hours)
	return e, nil
}

func (j Job) lookup(offers []gpucost.Offer, e *Estimate) error {
	var models []string
	if j.GPU != "" {
		if m, ok := catalog.Normalize(j.GPU); ok {
			models = []string{m}
		} else if c := bundled(); c != nil {
			models = c.MatchGPU(j.GPU)
		}
		if len(models) == 0 {
			return gpucost.Errorf(gpucost.EInvalid, "gpu %q: not a GPU the catalog knows; see gpucost catalog gpus", j.GPU)
		}
	}
	types := []string{j.InstanceType}
	if base, ok := strings.CutPrefix(j.InstanceType, "ml."); ok && j.Kind == KindSageMaker {
		types = append(types, base)
	}
	for i, typ := range types {
		best, n, ok := j.cheapest(offers, typ, models)
		if !ok {
			continue
		}
		e.Offer, e.Instances = best, n
		e.InstancePrice = j.offerPrice(best)
		e.Basis = fmt.Sprintf("%s %s %s %s %s/h per instance (%s)", best.Provider, best.Region, best.InstanceType, j.Pricing,
			best.OnDemand.Decimal(), best.Source)
		if j.Pricing == PricingSpot {
			e.Basis = fmt.Sprintf("%s %s %s spot %s/h per instance (%s)", best.Provider, best.Region, best.InstanceType, best.SpotPrice.Decimal(), best.Source)
		}
		if j.Pricing == PricingCommitted {
			e.Basis += fmt.Sprintf(" less the %g%% commitment discount", 100*j.Discount)
		}
		if i > 0 {
			e.Notes = append(e.Notes, fmt.Sprintf("the catalog has no SageMaker price for %s: priced as EC2 %s, a lower bound "+
				"(SageMaker charges more per hour); set price_per_hour for the real figure", j.InstanceType, typ))
		}
		if j.Region == "" {
			e.Notes = append(e.Notes, fmt.Sprintf("no region given: priced in the cheapest, %s; set region for yours", best.Region))
		}
		return nil
	}
	what := j.InstanceType
	if j.GPU != "" {
		what = fmt.Sprintf("%d × %s", j.Count, j.GPU)
	}
	where := ""
	if j.Provider != "" || j.Region != "" {
		where = strings.TrimSpace(" in " + j.Provider + " " + j.Region)
		where = " " + where
	}
	return gpucost.Errorf(gpucost.EInvalid, "no %s price for %s%s in the catalog; check the name with gpucost catalog gpus, or give price_per_hour",
		j.Pricing, what, where)
}

// cheapest returns the offer, and how many of its instances, that runs j cheapest per hour
// among the offers of instance type typ, or of the models for a GPU job.
func (j Job) cheapest(offers []gpucost.Offer, typ string, models []string) (gpucost.Offer, int, bool) {
	var best gpucost.Offer
	var bestN int
	var bestCost int64
	found := false
	for _, o := range offers {
		if j.Provider != "" && NormalizeProvider(o.Provider) != NormalizeProvider(j.Provider) ||
			j.Region != "" && !strings.EqualFold(o.Region, j.Region) {
			continue
		}
		n := j.Count
		if models != nil {
			if o.GPUCount < 1 || !containsFold(models, o.GPUModel) {
				continue
			}
			n = int(math.Ceil(float64(j.Count) / o.GPUCount))
		} else if !strings.EqualFold(o.InstanceType, typ) {
			continue
		}
		price := j.offerPrice(o)
		if price.Nanos <= 0 {
			continue
		}
		total := price.Nanos * int64(n)
		if !found || total < bestCost || total == bestCost && cmp.Or(
			cmp.Compare(o.GPUCount, best.GPUCount), cmp.Compare(o.InstanceType, best.InstanceType),
			cmp.Compare(o.Region, best.Region), cmp.Compare(o.Zone, best.Zone)) < 0 {
			best, bestN, bestCost, found = o, n, total, true
		}
	}
	return best, bestN, found
}

// offerPrice returns the price of one instance-hour of o under j's pricing model; zero if o has
// no such price.
func (j Job) offerPrice(o gpucost.Offer) gpucost.Money {
	switch j.Pricing {
	case PricingSpot:
		if o.HasSpot {
			return o.SpotPrice
		}
	case PricingCommitted:
		if o.HasOnDemand {
			return o.OnDemand.MulFloat(1 - j.Discount)
		}
	default:
		if o.HasOnDemand {
			return o.OnDemand
		}
	}
	return gpucost.Money{}
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// Line returns the cost line the job will be billed as, for matching budget scopes: its
// provider, service, instance type and tags, with its team, project and namespace as tags.
func (e Estimate) Line(start time.Time) *gpucost.CostLine {
	j := e.Job
	tags := gpucost.Labels{}
	for k, v := range j.Scope.Tags {
		tags[k] = v
	}
	for k, v := range map[string]string{"team": j.Scope.Team, "project": j.Scope.Project, "namespace": j.Scope.Namespace} {
		if v != "" {
			tags[k] = v
		}
	}
	provider := cmp.Or(j.Scope.Provider, j.Provider, e.Offer.Provider)
	service := j.Scope.Service
	if service == "" && NormalizeProvider(provider) == "aws" {
		service = "Amazon Elastic Compute Cloud"
	}
	return &gpucost.CostLine{Provider: provider, ServiceName: service, InstanceType: cmp.Or(e.Offer.InstanceType, j.InstanceType),
		RegionID: cmp.Or(j.Region, e.Offer.Region), ChargePeriodStart: start, ChargePeriodEnd: start.Add(j.Span),
		BilledCost: e.Cost, EffectiveCost: e.Cost, Tags: tags}
}

// InPeriod returns the part of the estimate's cost that falls in [start, end) for a job that
// starts at from: the cost times the share of its span inside, as if spread evenly over it.
func (e Estimate) InPeriod(from, start, end time.Time) gpucost.Money {
	dur := e.Job.Span
	if dur <= 0 {
		return gpucost.Money{Currency: e.Cost.Currency}
	}
	lo, hi := maxTime(from, start), minTime(from.Add(dur), end)
	if !lo.Before(hi) {
		return gpucost.Money{Currency: e.Cost.Currency}
	}
	if lo.Equal(from) && hi.Equal(from.Add(dur)) {
		return e.Cost
	}
	return e.Cost.MulFloat(float64(hi.Sub(lo)) / float64(dur))
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
