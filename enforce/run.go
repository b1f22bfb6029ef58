package enforce

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/notify"
)

// Results of an action, as the Runner records them.
const (
	ResultPlanned = "planned" // a dry run: nothing was changed
	ResultDone    = "done"
	ResultFailed  = "failed"
)

// Actuator carries out actions on one kind of resource: tag, stop or scale to zero. Errors
// never hold credentials.
type Actuator interface {
	Do(ctx context.Context, a Action) error
}

// Inventory lists the resources policies may act on.
type Inventory interface {
	Resources(ctx context.Context) ([]Resource, error)
}

// Notifier sends a message to named targets; *notify.Dispatcher is one.
type Notifier interface {
	Notify(ctx context.Context, m notify.Message, targets ...string) error
}

// Runner carries a plan out: dry-run actions are recorded as planned and change nothing; the
// others go to the Actuator of their resource's kind, or to the Notifier, and are recorded done
// or failed with the reason. A failed action does not stop the others.
type Runner struct {
	Actuators map[string]Actuator // by resource kind: KindEC2, KindSageMaker, KindDeployment
	Notifier  Notifier
	Log       ActionLog // required: every action is logged
	Now       func() time.Time
	// Secrets are strings never to be written to the log or returned (tokens, keys), in case a
	// lower layer quotes one in an error.
	Secrets []string
	// Audit, when set, also keeps every action carried out (not dry runs), done or failed, in
	// the audit trail as gpucost.AuditEnforce, by Actor from Source ("cli", "serve").
	Audit         gpucost.AuditLog
	Actor, Source string
}

// Run carries out p's actions in order, setting each one's Result and Error, and returns how
// many failed. It returns an error only when the log cannot be written.
func (r *Runner) Run(ctx context.Context, p *Plan) (failed int, err error) {
	if r.Log == nil {
		return 0, gpucost.Errorf(gpucost.EInternal, "enforce: Runner.Log is not set: every action must be logged")
	}
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	for i := range p.Actions {
		a := &p.Actions[i]
		a.Result, a.Error = ResultPlanned, ""
		if !a.DryRun {
			if err := r.do(ctx, *a, p); err != nil {
				a.Result, a.Error = ResultFailed, r.redact(err.Error())
				failed++
			} else {
				a.Result = ResultDone
			}
		}
		at := now()
		if _, err := r.Log.RecordAction(ctx, at, *a); err != nil {
			return failed, fmt.Errorf("log action %s of policy %s: %w", a.Action, a.Policy, err)
		}
		if r.Audit != nil && !a.DryRun {
			if _, err := r.Audit.RecordAudit(ctx, r.auditEntry(at, *a)); err != nil {
				return failed, fmt.Errorf("audit action %s of policy %s: %w", a.Action, a.Policy, err)
			}
		}
	}
	return failed, nil
}

// auditEntry is a carried-out action as the audit trail keeps it: the resource (or the notify
// targets) as target; the policy, the action and its result as detail.
func (r *Runner) auditEntry(at time.Time, a Action) gpucost.AuditEntry {
	target := "targets " + strings.Join(a.Targets, ", ")
	if a.Resource != nil {
		target = a.Resource.Kind + " " + a.Resource.ID
		if ns := a.Resource.Namespace; ns != "" {
			target = a.Resource.Kind + " " + ns + "/" + a.Resource.ID
		}
		if a.Resource.Region != "" {
			target += " (" + a.Resource.Region + ")"
		}
	}
	detail := fmt.Sprintf("policy %s: %s %s", a.Policy, a.Action, a.Result)
	if a.Error != "" {
		detail += ": " + a.Error
	}
	return gpucost.AuditEntry{At: at.UTC(), Actor: r.Actor, Action: gpucost.AuditEnforce, Target: target, Detail: detail, Source: r.Source}
}

func (r *Runner) do(ctx context.Context, a Action, p *Plan) error {
	if a.Action == ActNotify {
		if r.Notifier == nil {
			return errors.New("no notification targets are configured (give a targets file)")
		}
		return r.Notifier.Notify(ctx, Message(a, p.At), a.Targets...)
	}
	if a.Resource == nil {
		return fmt.Errorf("%s: no resource", a.Action)
	}
	act, ok := r.Actuators[a.Resource.Kind]
	if !ok {
		return fmt.Errorf("%s %s: no %s adapter is configured", a.Action, a.Resource.ID, a.Resource.Kind)
	}
	return act.Do(ctx, a)
}

// redact replaces every secret in s.
func (r *Runner) redact(s string) string {
	for _, sec := range r.Secrets {
		if len(sec) >= 4 {
			s = strings.ReplaceAll(s, sec, "[redacted]")
		}
	}
	return s
}

// Message is the alert of a notify action: the policy, its trigger and figures, and the
// resources it acts on. Its key names the policy and the budget period (or the day, for a spot
// cap), so that a Dispatcher with a delivery log alerts once per period however often
// enforcement runs.
func Message(a Action, at time.Time) notify.Message {
	ev := a.Evidence
	period := ev.Period
	if period == "" {
		period = at.UTC().Format(time.DateOnly)
	}
	m := notify.Message{Kind: "policy.triggered", Severity: notify.SeverityCritical, At: at,
		Key: "policy:" + a.Policy + ":" + period}
	mode := "will act"
	if a.DryRun {
		mode = "would act (dry run)"
	}
	m.Subject = fmt.Sprintf("Policy %s triggered: %s", a.Policy, ev.Rule)
	var text strings.Builder
	fmt.Fprintf(&text, "%s.\n", ev.Reason)
	fmt.Fprintf(&text, "The policy %s on %d resources", mode, len(ev.Resources))
	if len(ev.Resources) > 0 {
		fmt.Fprintf(&text, ": %s", strings.Join(ev.Resources, ", "))
	}
	text.WriteString(".\n")
	fmt.Fprintf(&text, "Alert key: %s", m.Key)
	m.Text = text.String()
	m.Fields = []notify.Field{{Name: "Policy", Value: a.Policy}, {Name: "Rule", Value: ev.Rule}, {Name: "Resources", Value: fmt.Sprint(len(ev.Resources))}}
	if ev.Budget != "" {
		m.Fields = append(m.Fields, notify.Field{Name: "Budget", Value: ev.Budget + " " + ev.Period},
			notify.Field{Name: "Spent", Value: fmt.Sprintf("%s (%.1f%%)", ev.Spent.Dollars(), ev.Percent)},
			notify.Field{Name: "Forecast", Value: fmt.Sprintf("%s (%.1f%%)", ev.Forecast.Dollars(), ev.ForecastPercent)},
			notify.Field{Name: "Amount", Value: ev.Amount.Dollars()})
	}
	if ev.SpotCap != nil {
		m.Fields = append(m.Fields, notify.Field{Name: "Spot instances", Value: fmt.Sprintf("%d (cap %d)", ev.SpotCount, *ev.SpotCap)})
	}
	m.Fields = append(m.Fields, notify.Field{Name: "Alert key", Value: m.Key})
	return m
}
