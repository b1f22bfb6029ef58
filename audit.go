package gpucost

import (
	"context"
	"slices"
	"strings"
	"time"
)

// Audited actions: every change that destroys or replaces stored data, or changes who may do
// what, is kept in the audit log under one of these names.
const (
	AuditBillReplace    = "bill.replace"    // a restated bill replaced an earlier import
	AuditBillRemove     = "bill.remove"     // an import and its lines were deleted
	AuditTokenCreate    = "token.create"    // an API token was made
	AuditTokenRevoke    = "token.revoke"    // an API token was revoked
	AuditBudgetsReplace = "budgets.replace" // the budgets file was replaced
	AuditEnforce        = "enforce"         // a guardrail stopped, tagged, scaled or notified (not a dry run)
	AuditSessionEnd     = "session.end"     // a dashboard session was ended (logout)
	AuditStepApply      = "step.apply"      // a plan step was recorded applied
	AuditStepRemove     = "step.remove"     // a record of an applied step was removed
)

// AuditActions are the Audit* names, for filters to check against.
var AuditActions = []string{AuditBillReplace, AuditBillRemove, AuditTokenCreate, AuditTokenRevoke, AuditBudgetsReplace, AuditEnforce, AuditSessionEnd,
	AuditStepApply, AuditStepRemove}

// CheckAuditAction refuses an action filter that is neither an Audit* name nor a prefix of
// one ending in "." ("bill."), so that a misspelt filter is an error rather than an empty list.
func CheckAuditAction(action string) error {
	if action == "" || slices.Contains(AuditActions, action) {
		return nil
	}
	if strings.HasSuffix(action, ".") && slices.ContainsFunc(AuditActions, func(a string) bool { return strings.HasPrefix(a, action) }) {
		return nil
	}
	return Errorf(EInvalid, "audit action %q: use one of %s, or a prefix such as bill.", action, strings.Join(AuditActions, ", "))
}

// AuditEntry is one audited action: who did what to what, and when. Entries are only ever added.
type AuditEntry struct {
	ID     int64     `json:"id"`
	At     time.Time `json:"at"`
	Actor  string    `json:"actor"`            // "token 3 (ci-admin, admin)" or "cli root@host"
	Action string    `json:"action"`           // one of the Audit* names
	Target string    `json:"target"`           // what it acted on: "import 12 (focus-2026-10.csv)", "token 4 (agents)"
	Detail string    `json:"detail,omitempty"` // what changed, for people: totals before and after, the role
	Source string    `json:"source,omitempty"` // where the request came from: the client's address, or "cli"
}

// AuditFilter selects audit entries. Empty fields match everything; Limit 0 means no limit.
type AuditFilter struct {
	Since, Until time.Time // entries at or after Since and before Until
	Action       string    // an Audit* name, or a prefix ending in "." ("bill.")
	Actor        string    // a whole actor, or its leading words: "token 3", "cli"
	Limit        int
}

// AuditLog keeps the audit trail of destructive and privileged actions.
type AuditLog interface {
	// RecordAudit stores e (its ID is ignored) and returns its id.
	RecordAudit(ctx context.Context, e AuditEntry) (int64, error)

	// Audit returns the entries f selects, newest first.
	Audit(ctx context.Context, f AuditFilter) ([]AuditEntry, error)
}

// Check refuses an entry that does not say who did what, and when.
func (e AuditEntry) Check() error {
	if e.At.IsZero() || e.Actor == "" || e.Action == "" {
		return Errorf(EInvalid, "record audit entry: time %v, actor %q and action %q must all be set", e.At, e.Actor, e.Action)
	}
	return nil
}
