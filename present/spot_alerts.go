package present

import (
	"fmt"
	"time"

	"github.com/gpucost/gpucost/analyze/rulesfile"
	"github.com/gpucost/gpucost/spotrisk"
	"github.com/gpucost/gpucost/spotrisk/alert"
)

// SpotAlertNotes are report spot's notes on the interruption alert: each alert as its message
// words it; that the rules file turns the rule off, when it is not on; or, when runs were read
// and none fired, that no pool crossed the rule before now.
func SpotAlertNotes(alerts []spotrisk.InterruptionAlert, rule spotrisk.InterruptionRule, on bool, rulesFile string, runs bool, now time.Time) []string {
	var notes []string
	for _, a := range alerts {
		notes = append(notes, alert.Message(a).Text)
	}
	switch {
	case !on:
		notes = append(notes, "The interruption alert is off: "+rulesFile+" disables "+rulesfile.SpotInterruptions+".")
	case len(alerts) == 0 && runs:
		notes = append(notes, fmt.Sprintf("No pool was interrupted at %g%% or more in the %v before %s.", 100*rule.Threshold, rule.Window, now.UTC().Format(time.RFC3339)))
	}
	return notes
}
