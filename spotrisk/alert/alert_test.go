package alert

import (
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost/notify"
	"github.com/gpucost/gpucost/spotrisk"
)

func TestMessage(t *testing.T) {
	to := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	a := spotrisk.InterruptionAlert{
		Pool: spotrisk.Pool{Provider: "aws", InstanceType: "g5.xlarge", Region: "us-east-1", Zone: "us-east-1a"},
		Jobs: []string{"ft", "eval"}, From: to.Add(-6 * time.Hour), To: to, Since: to.Add(-2 * time.Hour),
		Interruptions: 3, Hours: 4, PerHour: 0.75, Low: 0.15, High: 2.2,
	}
	m := Message(a)
	for _, want := range []string{"Spot interruptions: aws g5.xlarge us-east-1/us-east-1a had 3 in 4.0 instance-hours over the 6h0m0s to 2026-11-27T12:00:00Z",
		"hitting ft, eval.", "Move away from it; no lower-risk pool of g5.xlarge is known"} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("Message(no pool to move to).Text = %q; want it to contain %q", m.Text, want)
		}
	}
	if m.Key != a.Key() || m.Kind != "spot.interruptions" || m.Severity != notify.SeverityWarning || len(m.Fields) != 3 ||
		m.Subject != "Spot pool aws g5.xlarge us-east-1/us-east-1a interrupted 3 times in 6h0m0s" {
		t.Errorf("Message = key %q kind %q severity %v, %d fields, subject %q", m.Key, m.Kind, m.Severity, len(m.Fields), m.Subject)
	}

	a.MoveTo = []spotrisk.Move{{Pool: spotrisk.Pool{Provider: "aws", InstanceType: "g5.xlarge", Region: "us-east-1", Zone: "us-east-1c"}, PerHour: 0.01, Why: "measured"}}
	m = Message(a)
	if !strings.Contains(m.Text, " Move to aws g5.xlarge us-east-1/us-east-1c (") || len(m.Fields) != 4 || m.Fields[3].Name != "Move to" {
		t.Errorf("Message(a pool to move to) = %q with %d fields; want the move named, in a field too", m.Text, len(m.Fields))
	}
	if ms := Messages([]spotrisk.InterruptionAlert{a, a}); len(ms) != 2 || ms[1].Text != m.Text {
		t.Errorf("Messages(two alerts) = %d messages; want one per alert, as Message words it", len(ms))
	}
}
