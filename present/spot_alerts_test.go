package present

import (
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost/spotrisk"
)

func TestSpotAlertNotes(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	rule := spotrisk.DefaultInterruptionRule
	a := spotrisk.InterruptionAlert{Pool: spotrisk.Pool{Provider: "aws", InstanceType: "g5.xlarge", Region: "us-east-1"}, Jobs: []string{"ft"},
		From: now.Add(-6 * time.Hour), To: now, Interruptions: 2, Hours: 3, PerHour: 0.6}
	for _, tc := range []struct {
		name   string
		alerts []spotrisk.InterruptionAlert
		on     bool
		runs   bool
		want   []string
	}{
		{"fired", []spotrisk.InterruptionAlert{a}, true, true, []string{"Spot interruptions: aws g5.xlarge us-east-1 had 2"}},
		{"quiet", nil, true, true, []string{"No pool was interrupted at 25% or more in the 6h0m0s before 2026-11-27T12:00:00Z."}},
		{"no runs", nil, true, false, nil},
		{"off", nil, false, true, []string{"The interruption alert is off: rules.yaml disables spot_interruptions."}},
	} {
		got := SpotAlertNotes(tc.alerts, rule, tc.on, "rules.yaml", tc.runs, now)
		if len(got) != len(tc.want) {
			t.Errorf("%s: SpotAlertNotes = %q, want %q", tc.name, got, tc.want)
			continue
		}
		for i := range got {
			if !strings.HasPrefix(got[i], tc.want[i]) {
				t.Errorf("%s: SpotAlertNotes[%d] = %q, want it to start %q", tc.name, i, got[i], tc.want[i])
			}
		}
	}
}
