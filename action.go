package gpucost

import (
	"context"
	"encoding/json"
	"time"
)

// ActionRecord is one enforcement action as the action log keeps it: the columns the log is
// filtered by, and the whole action, as package enforce writes it, in Detail. Stores keep
// Detail as JSON without reading it (PostgreSQL may reorder its keys and spaces), so that what
// an action holds (the resource, the tags set, the evidence) is enforce's to change.
type ActionRecord struct {
	ID           int64     // set by the log
	At           time.Time // when the action was planned or carried out
	Policy       string
	Action       string // notify, tag, stop or scale-to-zero
	ResourceKind string // empty for notify
	ResourceID   string // empty for notify
	DryRun       bool
	Result       string // planned, done or failed
	Error        string // why it failed, secrets redacted
	Detail       []byte // the whole action as a JSON object
}

// Check refuses, as an EInvalid, a record without a time, a policy, an action name or a result,
// or whose Detail is not a JSON object.
func (r ActionRecord) Check() error {
	if r.At.IsZero() || r.Policy == "" || r.Action == "" || r.Result == "" {
		return Errorf(EInvalid, "record action: time %v, policy %q, action %q and result %q must all be set", r.At, r.Policy, r.Action, r.Result)
	}
	if len(r.Detail) == 0 || r.Detail[0] != '{' || !json.Valid(r.Detail) {
		return Errorf(EInvalid, "record action %s of policy %s: its detail is not a JSON object", r.Action, r.Policy)
	}
	return nil
}

// ActionFilter selects entries of the action log. The zero value selects all of them.
type ActionFilter struct {
	Since    time.Time // at or after; zero: from the start
	Policy   string    // this policy's actions only
	Resource string    // actions on this resource id only
	Limit    int       // the latest Limit entries; 0: all
}

// Check refuses a negative Limit.
func (f ActionFilter) Check() error {
	if f.Limit < 0 {
		return Errorf(EInvalid, "list actions: limit %d: give 0 (all) or more", f.Limit)
	}
	return nil
}

// ActionLog is the enforcement action log: every action a guardrail policy planned or carried
// out, dry runs included, with its result and evidence. Records are only ever added.
// Implementations are safe for concurrent use.
type ActionLog interface {
	// RecordAction stores r (its ID is ignored) and returns its id, which grows with each
	// record. It refuses, as an EInvalid, a record that fails Check.
	RecordAction(ctx context.Context, r ActionRecord) (int64, error)

	// Actions returns the records f selects, oldest first (by time, then by when recorded);
	// with a Limit, the latest Limit of them. It refuses a filter that fails Check.
	Actions(ctx context.Context, f ActionFilter) ([]ActionRecord, error)
}
