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

// AutoscaleServiceNotes are the notes under plan autoscale's table on how a replica serves:
// the token model's note and each run's price of a million tokens where a token model
// (tokenModel) set the service time, else the batch plan's note, and each run's price of a
// million tokens in all where the trace counts tokens; then the trace's summary.
func AutoscaleServiceNotes(runs []plan.AutoscaleResult, serviceNote string, tokenModel bool, tr *traffic.Trace) []string {
	var notes []string
	switch {
	case tokenModel:
		notes = append(notes, serviceNote)
		for _, r := range runs {
			if r.PerMillionTokens != nil {
				notes = append(notes, TokenPriceNote(r.Label(), r.PerMillionTokens))
			}
		}
	case serviceNote != "":
		notes = append(notes, serviceNote+" Batches planned at the trace's peak rate.")
	}
	if !tokenModel {
		for _, r := range runs {
			if note := TokenTotalNote(r.Label(), r.Cost, r.Requests, tr.Tokens); note != "" {
				notes = append(notes, note)
			}
		}
	}
	return append(notes, tr.Summary()...)
}

// CapacityOn is plan capacity's table (Capacity) with, under it, how a replica serves
// (serviceNote, first) and the price of a million tokens: split by the token model where one
// priced them, else in all where the trace tr counts tokens.
func CapacityOn(r plan.CapacityResult, serviceNote string, tr *traffic.Trace) Table {
	t := Capacity(r)
	if serviceNote != "" {
		t.Notes = append([]string{serviceNote}, t.Notes...)
	}
	if r.PerMillionTokens != nil {
		t.Notes = append(t.Notes, TokenPriceNote("At this rate", r.PerMillionTokens))
	} else if tr != nil && r.PerHour != nil {
		if note := TokenTotalNote("At this rate", *r.PerHour, r.Rate*3600, tr.Tokens); note != "" {
			t.Notes = append(t.Notes, note)
		}
	}
	return t
}
