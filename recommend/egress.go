package recommend

import (
	"fmt"
	"strings"

	"github.com/gpucost/gpucost"
)

// egressRate is what a provider charges per GB leaving a region, at list price for the first
// volume tier in North America, from the providers' network pricing pages as summarised in 2026:
// AWS $0.02 between regions and $0.09 to the internet (first 10 TB); Google Cloud $0.02 between
// regions on one continent and $0.12 to the internet (Premium tier, first TB); Azure $0.02 between
// regions on one continent and $0.087 to the internet (first 10 TB). Lambda, CoreWeave and Nebius
// publish no egress charge. Another provider is reached over the internet.
type egressRate struct{ interRegion, internet gpucost.Money }

var egressRates = map[string]egressRate{
	"aws":       {gpucost.USD(20_000_000), gpucost.USD(90_000_000)},
	"gcp":       {gpucost.USD(20_000_000), gpucost.USD(120_000_000)},
	"azure":     {gpucost.USD(20_000_000), gpucost.USD(87_000_000)},
	"lambda":    {gpucost.USD(0), gpucost.USD(0)},
	"coreweave": {gpucost.USD(0), gpucost.USD(0)},
	"nebius":    {gpucost.USD(0), gpucost.USD(0)},
}

// egress is the one-time cost of moving a workload's data out of one place into another.
type egress struct {
	cost  gpucost.Money
	rate  gpucost.Money // per GB
	route string        // "between aws regions", "aws to the internet"
	known bool          // the source provider's rate is in egressRates
}

// moveEgress prices copying gb gigabytes from provider fromP to another region (same provider)
// or another provider; ingress is free on every provider here.
func moveEgress(fromP, toP string, gb float64) egress {
	r, ok := egressRates[strings.ToLower(fromP)]
	e := egress{rate: r.internet, route: fromP + " to the internet", known: ok}
	if strings.EqualFold(fromP, toP) {
		e.rate, e.route = r.interRegion, "between "+fromP+" regions"
	}
	e.cost = e.rate.MulFloat(gb)
	if !ok {
		e.rate, e.cost = gpucost.USD(0), gpucost.USD(0)
	}
	return e
}

// paybackDays returns how many days of saving repay cost, rounded up; 0 when there is nothing to
// repay.
func paybackDays(cost, monthly gpucost.Money) int {
	if cost.Nanos <= 0 || monthly.Nanos <= 0 {
		return 0
	}
	return int((cost.Nanos*30 + monthly.Nanos - 1) / monthly.Nanos)
}

// egressEvidence says what the move's data costs to carry and when the saving repays it.
func egressEvidence(e egress, gb float64, monthly gpucost.Money) string {
	if !e.known {
		return fmt.Sprintf("egress of %s's %.0f GB is not priced: its rate is not known here", e.route, gb)
	}
	return fmt.Sprintf("data egress: %.0f GB %s at %s/GB costs %s once, repaid in %d days of the saving",
		gb, e.route, e.rate, e.cost, paybackDays(e.cost, monthly))
}
