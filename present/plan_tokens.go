package present

import (
	"fmt"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/plan"
	"github.com/gpucost/gpucost/traffic"
)

// TokenTotalNote prices a million tokens in all where the trace's requests count tokens but no
// token model splits the cost: cost over requests, each of the trace's mean tokens; "" without
// tokens or a cost. who leads the sentence, such as a policy's label.
func TokenTotalNote(who string, cost gpucost.Money, requests float64, t *traffic.TokenCounts) string {
	if t == nil || !(t.Requests > 0) || !(requests > 0) || cost.IsZero() {
		return ""
	}
	in, out := t.Input/t.Requests, t.Output/t.Requests
	if !(in+out > 0) {
		return ""
	}
	per := cost.MulFloat(1e6 / (requests * (in + out)))
	return fmt.Sprintf("%s per 1M tokens: %s in all (%.0f input and %.0f output tokens a request in the trace; --service-model tokens splits it between input and output).", who, per.Dollars(), in, out)
}

// TokenPriceNote writes a million tokens' cost for people.
func TokenPriceNote(who string, p *plan.TokenPrices) string {
	return fmt.Sprintf("%s per 1M tokens: %s input, %s output, %s in all (each side bears the replica time spent on it).", who, p.Input.Dollars(), p.Output.Dollars(), p.Total.Dollars())
}
