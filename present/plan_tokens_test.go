package present

import (
	"slices"
	"strings"
	"testing"
	"time"

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

// TestAutoscaleServiceNotes puts the token model's note and each run's split price first with a
// token model, the batch note and each run's price in all without one, then the trace's summary.
func TestAutoscaleServiceNotes(t *testing.T) {
	tr := &traffic.Trace{Name: "log.csv", Step: time.Minute, Rates: []float64{1}, Tokens: &traffic.TokenCounts{Requests: 10, Input: 9000, Output: 1000}}
	summary := tr.Summary()
	runs := []plan.AutoscaleResult{{Policy: "static", Cost: gpucost.USD(10e9), Requests: 1000,
		PerMillionTokens: &plan.TokenPrices{Input: gpucost.USD(1e9), Output: gpucost.USD(4e9), Total: gpucost.USD(2e9)}}}
	got := AutoscaleServiceNotes(runs, "Token model: …", true, tr)
	want := append([]string{"Token model: …", TokenPriceNote("static", runs[0].PerMillionTokens)}, summary...)
	if !slices.Equal(got, want) {
		t.Errorf("AutoscaleServiceNotes(token model) = %q\nwant %q", got, want)
	}
	got = AutoscaleServiceNotes(runs, "Batches of 8.", false, tr)
	want = append([]string{"Batches of 8. Batches planned at the trace's peak rate.", TokenTotalNote("static", runs[0].Cost, 1000, tr.Tokens)}, summary...)
	if !slices.Equal(got, want) || want[1] == "" {
		t.Errorf("AutoscaleServiceNotes(batches) = %q\nwant %q", got, want)
	}
}

// TestCapacityOn puts the service note first and prices a million tokens under the table.
func TestCapacityOn(t *testing.T) {
	hour := gpucost.USD(3600e9)
	r := plan.CapacityResult{Rate: 1, PerHour: &hour}
	tr := &traffic.Trace{Tokens: &traffic.TokenCounts{Requests: 1, Input: 500, Output: 500}}
	got := CapacityOn(r, "Batches of 8.", tr).Notes
	// $3,600 an hour at 1 request/s of 1,000 tokens: $1 a request, $1,000 per 1M tokens.
	if len(got) < 2 || got[0] != "Batches of 8." || got[len(got)-1] != TokenTotalNote("At this rate", hour, 3600, tr.Tokens) ||
		!strings.Contains(got[len(got)-1], "$1,000.00 in all") {
		t.Errorf("CapacityOn notes = %q; want the service note first and $1,000.00 per 1M tokens last", got)
	}
	if n, m := len(CapacityOn(r, "", nil).Notes), len(Capacity(r).Notes); n != m {
		t.Errorf("CapacityOn(no note, no trace) has %d notes, Capacity %d; want the same", n, m)
	}
}
