package present

import (
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/plan"
	"github.com/gpucost/gpucost/traffic"
)

// TestTokenNotes prices a million tokens: in all from a cost and the trace's mean tokens, and
// split by a token plan.
func TestTokenNotes(t *testing.T) {
	counts := &traffic.TokenCounts{Requests: 10, Input: 9000, Output: 1000}
	// $10 for 1,000 requests of 1,000 tokens each: $10 per 1M tokens.
	got := TokenTotalNote("Static", gpucost.USD(10e9), 1000, counts)
	if want := "Static per 1M tokens: $10.00 in all (900 input and 100 output tokens a request in the trace; --service-model tokens splits it between input and output)."; got != want {
		t.Errorf("TokenTotalNote = %q, want %q", got, want)
	}
	for name, note := range map[string]string{
		"no counts": TokenTotalNote("x", gpucost.USD(10e9), 1000, nil),
		"no cost":   TokenTotalNote("x", gpucost.Money{}, 1000, counts),
		"no tokens": TokenTotalNote("x", gpucost.USD(10e9), 1000, &traffic.TokenCounts{Requests: 10}),
	} {
		if note != "" {
			t.Errorf("TokenTotalNote(%s) = %q, want none", name, note)
		}
	}
	got = TokenPriceNote("At this rate", &plan.TokenPrices{Input: gpucost.USD(0.5e9), Output: gpucost.USD(2e9), Total: gpucost.USD(0.65e9)})
	if want := "At this rate per 1M tokens: $0.50 input, $2.00 output, $0.65 in all (each side bears the replica time spent on it)."; got != want {
		t.Errorf("TokenPriceNote = %q, want %q", got, want)
	}
}
