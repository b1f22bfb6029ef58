package enforce

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/notify"
)

// memLog is an ActionLog in memory.
type memLog struct{ entries []LogEntry }

func (l *memLog) RecordAction(_ context.Context, at time.Time, a Action) (int64, error) {
	if _, err := Record(at, a); err != nil {
		return 0, err
	}
	l.entries = append(l.entries, LogEntry{ID: int64(len(l.entries) + 1), At: at, Action: a})
	return int64(len(l.entries)), nil
}

func (l *memLog) Actions(context.Context, gpucost.ActionFilter) ([]LogEntry, error) {
	return l.entries, nil
}

// recorder is an Actuator that records what it was asked and fails for one resource with an
// error quoting a secret.
type recorder struct {
	done   []string
	failID string
}

func (r *recorder) Do(_ context.Context, a Action) error {
	if a.Resource.ID == r.failID {
		return errors.New("refused: token s3cr3t-token-value is not allowed to stop " + a.Resource.ID)
	}
	r.done = append(r.done, a.Action+" "+a.Resource.ID)
	return nil
}

type notifier struct{ msgs []notify.Message }

func (n *notifier) Notify(_ context.Context, m notify.Message, targets ...string) error {
	n.msgs = append(n.msgs, m)
	return nil
}

func TestRunnerAppliesAndLogs(t *testing.T) {
	plan := Evaluate(testPolicies(t), testSnapshot(t), true)
	ec2, sm, k8s := &recorder{failID: "i-spot3"}, &recorder{}, &recorder{}
	n := &notifier{}
	log := &memLog{}
	r := &Runner{Actuators: map[string]Actuator{KindEC2: ec2, KindSageMaker: sm, KindDeployment: k8s}, Notifier: n, Log: log,
		Now: func() time.Time { return now }, Secrets: []string{"s3cr3t-token-value"}}
	failed, err := r.Run(context.Background(), &plan)
	if err != nil || failed != 1 {
		t.Fatalf("Run() = %d failed, %v; want 1 failed (i-spot3)", failed, err)
	}
	if got := strings.Join(ec2.done, ","); got != "tag i-train1,tag i-spot1,stop i-train1,stop i-spot1" {
		t.Errorf("EC2 actions = %s", got)
	}
	if got := strings.Join(sm.done, ","); got != "tag llm-serve,tag old-serve,scale-to-zero llm-serve" {
		t.Errorf("SageMaker actions = %s", got)
	}
	if got := strings.Join(k8s.done, ","); got != "tag research/vllm,scale-to-zero research/vllm" {
		t.Errorf("Kubernetes actions = %s", got)
	}
	if len(log.entries) != len(plan.Actions) {
		t.Fatalf("logged %d actions, want all %d", len(log.entries), len(plan.Actions))
	}
	last := log.entries[len(log.entries)-1].Action
	if last.Result != ResultFailed || !strings.Contains(last.Error, "[redacted] is not allowed") || strings.Contains(last.Error, "s3cr3t") {
		t.Errorf("failed action logged as %+v, want failed with the secret redacted", last)
	}
	if first := log.entries[0].Action; first.Action != ActNotify || first.Result != ResultDone {
		t.Errorf("notify logged as %+v", first)
	}
	if len(n.msgs) != 1 || n.msgs[0].Key != "policy:research-over-budget:2026-11" ||
		!strings.Contains(n.msgs[0].Text, "will act on 5 resources: i-train1, i-spot1, llm-serve, old-serve, research/vllm") {
		t.Errorf("notify messages = %+v", n.msgs)
	}
}

func TestRunnerDryRunChangesNothing(t *testing.T) {
	plan := Evaluate(testPolicies(t), testSnapshot(t), false)
	ec2 := &recorder{}
	n := &notifier{}
	log := &memLog{}
	r := &Runner{Actuators: map[string]Actuator{KindEC2: ec2}, Notifier: n, Log: log, Now: func() time.Time { return now }}
	failed, err := r.Run(context.Background(), &plan)
	if err != nil || failed != 0 || len(ec2.done) != 0 || len(n.msgs) != 0 {
		t.Fatalf("dry run: %d failed, %v, actions %v, messages %d; want nothing done", failed, err, ec2.done, len(n.msgs))
	}
	if len(log.entries) != len(plan.Actions) || len(log.entries) == 0 {
		t.Fatalf("dry run logged %d of %d actions", len(log.entries), len(plan.Actions))
	}
	for _, e := range log.entries {
		if e.Action.Result != ResultPlanned || !e.Action.DryRun || !e.At.Equal(now) {
			t.Errorf("dry-run entry = %+v", e)
		}
	}
}

func TestRunnerMissingAdapter(t *testing.T) {
	plan := Evaluate(testPolicies(t), testSnapshot(t), true)
	log := &memLog{}
	failed, err := (&Runner{Log: log}).Run(context.Background(), &plan)
	if err != nil || failed != len(plan.Actions) {
		t.Fatalf("Run without adapters = %d failed, %v; want all %d failed", failed, err, len(plan.Actions))
	}
	if !strings.Contains(log.entries[0].Action.Error, "no notification targets") || !strings.Contains(log.entries[1].Action.Error, "no ec2-instance adapter") {
		t.Errorf("errors = %q, %q", log.entries[0].Action.Error, log.entries[1].Action.Error)
	}
	if _, err := (&Runner{}).Run(context.Background(), &plan); err == nil {
		t.Error("Run without a log succeeded; every action must be logged")
	}
}

// memAudit is a gpucost.AuditLog in memory.
type memAudit struct{ entries []gpucost.AuditEntry }

func (l *memAudit) RecordAudit(_ context.Context, e gpucost.AuditEntry) (int64, error) {
	if err := e.Check(); err != nil {
		return 0, err
	}
	l.entries = append(l.entries, e)
	return int64(len(l.entries)), nil
}

func (l *memAudit) Audit(context.Context, gpucost.AuditFilter) ([]gpucost.AuditEntry, error) {
	return l.entries, nil
}

func TestRunnerAuditsActionsTaken(t *testing.T) {
	for _, apply := range []bool{true, false} {
		plan := Evaluate(testPolicies(t), testSnapshot(t), apply)
		audit := &memAudit{}
		r := &Runner{Actuators: map[string]Actuator{KindEC2: &recorder{failID: "i-spot3"}, KindSageMaker: &recorder{}, KindDeployment: &recorder{}},
			Notifier: &notifier{}, Log: &memLog{}, Now: func() time.Time { return now }, Secrets: []string{"s3cr3t-token-value"},
			Audit: audit, Actor: "cli root@ops-1", Source: "cli"}
		if _, err := r.Run(context.Background(), &plan); err != nil {
			t.Fatalf("Run(apply=%v) = %v", apply, err)
		}
		var want []string
		for _, a := range plan.Actions {
			if !a.DryRun {
				want = append(want, a.Policy+" "+a.Action)
			}
		}
		if !apply && len(want) != 0 {
			t.Fatalf("Evaluate(apply=false) planned %v not as dry runs", want)
		}
		var got []string
		for _, e := range audit.entries {
			if e.Action != gpucost.AuditEnforce || e.Actor != "cli root@ops-1" || e.Source != "cli" || !e.At.Equal(now) {
				t.Errorf("audit entry = %+v", e)
			}
			policy, rest, _ := strings.Cut(strings.TrimPrefix(e.Detail, "policy "), ": ")
			action, _, _ := strings.Cut(rest, " ")
			got = append(got, policy+" "+action)
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("Run(apply=%v) audited %v, want the actions carried out %v", apply, got, want)
		}
		if !apply {
			continue
		}
		last := audit.entries[len(audit.entries)-1]
		if last.Target != "ec2-instance i-spot3 (us-west-2)" || !strings.Contains(last.Detail, "stop failed: refused: token [redacted]") || strings.Contains(last.Detail, "s3cr3t") {
			t.Errorf("failed action audited as %+v, want its resource and the failure, secret redacted", last)
		}
		if first := audit.entries[0]; !strings.HasPrefix(first.Target, "targets ") {
			t.Errorf("notify audited as %+v, want its targets", first)
		}
	}
}
