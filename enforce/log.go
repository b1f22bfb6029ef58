package enforce

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
)

// LogEntry is one action in the action log: what was planned or done, when, its result and its
// evidence.
type LogEntry struct {
	ID     int64     `json:"id"`
	At     time.Time `json:"at"`
	Action Action    `json:"action"`
}

// ActionLog keeps every action, dry runs included: a Log over a store, or a log in memory.
type ActionLog interface {
	// RecordAction stores one action with its result and returns its id.
	RecordAction(ctx context.Context, at time.Time, a Action) (int64, error)
	// Actions returns the entries f selects, oldest first.
	Actions(ctx context.Context, f gpucost.ActionFilter) ([]LogEntry, error)
}

// Log is a store's action log (gpucost.ActionLog) read and written as Actions: the store keeps
// each as a gpucost.ActionRecord, Record's columns and the whole action as JSON.
type Log struct{ Store gpucost.ActionLog }

var _ ActionLog = Log{}

// RecordAction stores a, taken at at, and returns its id.
func (l Log) RecordAction(ctx context.Context, at time.Time, a Action) (int64, error) {
	r, err := Record(at, a)
	if err != nil {
		return 0, err
	}
	return l.Store.RecordAction(ctx, r)
}

// Actions returns the entries f selects, oldest first.
func (l Log) Actions(ctx context.Context, f gpucost.ActionFilter) ([]LogEntry, error) {
	rs, err := l.Store.Actions(ctx, f)
	if err != nil {
		return nil, err
	}
	out := make([]LogEntry, 0, len(rs))
	for _, r := range rs {
		e, err := EntryOf(r)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// Record returns what the action log keeps of a, taken at at: the columns it filters by (the
// resource's kind and id, empty for notify) and the whole action as JSON. It refuses an action
// without a policy, an action name or a result.
func Record(at time.Time, a Action) (gpucost.ActionRecord, error) {
	r := gpucost.ActionRecord{At: at, Policy: a.Policy, Action: a.Action, DryRun: a.DryRun, Result: a.Result, Error: a.Error}
	if a.Resource != nil {
		r.ResourceKind, r.ResourceID = a.Resource.Kind, a.Resource.ID
	}
	if a.Policy == "" || a.Action == "" || a.Result == "" {
		return r, gpucost.Errorf(gpucost.EInvalid, "record action: policy %q, action %q and result %q must all be set", a.Policy, a.Action, a.Result)
	}
	detail, err := json.Marshal(a)
	if err != nil {
		return r, fmt.Errorf("record action %s of policy %s: %w", a.Action, a.Policy, err)
	}
	r.Detail = detail
	return r, r.Check()
}

// EntryOf reads an action back from what the log kept of it (see Record).
func EntryOf(r gpucost.ActionRecord) (LogEntry, error) {
	e := LogEntry{ID: r.ID, At: r.At}
	if err := json.Unmarshal(r.Detail, &e.Action); err != nil {
		return e, fmt.Errorf("action %d: decode its detail: %w", r.ID, err)
	}
	return e, nil
}
