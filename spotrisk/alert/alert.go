// Package alert words the spot interruption alerts of spotrisk.CheckInterruptions as
// notifications and sends them, each once per target as the store's delivery log records;
// report spot --targets and serve's interruption check both send them so (docs/architecture.md
// "Spot risk").
package alert

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gpucost/gpucost/notify"
	"github.com/gpucost/gpucost/spotrisk"
)

// Message is the notification of the interruption alert a: the pool, its rate with its
// interval, the jobs it hit, and the pools to move to.
func Message(a spotrisk.InterruptionAlert) notify.Message {
	text := fmt.Sprintf("Spot interruptions: %s had %d in %.1f instance-hours over the %v to %s (%s, %.0f%% interval %s–%s), hitting %s.",
		a.Pool, a.Interruptions, a.Hours, a.To.Sub(a.From), a.To.UTC().Format(time.RFC3339), spotrisk.FormatRate(a.PerHour),
		100*spotrisk.DefaultConfidence, spotrisk.FormatRate(a.Low), spotrisk.FormatRate(a.High), strings.Join(a.Jobs, ", "))
	fields := []notify.Field{{Name: "Pool", Value: a.Pool.String()}, {Name: "Rate", Value: spotrisk.FormatRate(a.PerHour)},
		{Name: "Jobs", Value: strings.Join(a.Jobs, ", ")}}
	if len(a.MoveTo) == 0 {
		text += " Move away from it; no lower-risk pool of " + a.Pool.InstanceType + " is known (catalog import --format aws-spot-advisor adds the advisor's)."
	} else {
		var to []string
		for _, m := range a.MoveTo {
			to = append(to, fmt.Sprintf("%s (%s: %s)", m.Pool, spotrisk.FormatRate(m.PerHour), m.Why))
		}
		text += " Move to " + strings.Join(to, "; ") + "."
		fields = append(fields, notify.Field{Name: "Move to", Value: strings.Join(to, "; ")})
	}
	return notify.Message{Kind: "spot.interruptions", Severity: notify.SeverityWarning, At: a.To, Key: a.Key(),
		Subject: fmt.Sprintf("Spot pool %s interrupted %d times in %v", a.Pool, a.Interruptions, a.To.Sub(a.From)), Text: text, Fields: fields}
}

// Messages are the notifications of alerts, in order.
func Messages(alerts []spotrisk.InterruptionAlert) []notify.Message {
	var out []notify.Message
	for _, a := range alerts {
		out = append(out, Message(a))
	}
	return out
}

// Send sends each alert to the targets named through d, which sends each key once per target;
// it tries every alert and returns every failure.
func Send(ctx context.Context, d *notify.Dispatcher, alerts []spotrisk.InterruptionAlert, targets ...string) error {
	var errs []error
	for _, a := range alerts {
		if err := d.Notify(ctx, Message(a), targets...); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
