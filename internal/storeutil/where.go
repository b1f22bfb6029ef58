package storeutil

import (
	"strings"
	"unicode/utf8"

	"github.com/gpucost/gpucost"
)

// The log filters' WHERE clauses, written once in the SQL both SQLite and PostgreSQL run, so
// that both stores select the same entries. Each returns conditions that each start " AND ",
// with arg keeping a value and returning its placeholder in the store's dialect ("?", "$3").
// A prefix is matched with substr on its length in characters, not LIKE, since keys, actions
// and actors hold '_' and '%' freely.

// AuditWhere selects f's entries from the audit table (columns at_ns, actor, action). An
// Action that ends in "." matches every action it prefixes; an Actor matches the actors it is
// the whole of or the leading words of ("token 3" matches "token 3 (ci, admin)", not "token
// 31 …"). It refuses a negative Limit.
func AuditWhere(f gpucost.AuditFilter, arg func(v any) string) (string, error) {
	if f.Limit < 0 {
		return "", gpucost.Errorf(gpucost.EInvalid, "list audit entries: limit %d: give 0 (all) or more", f.Limit)
	}
	var q string
	if !f.Since.IsZero() {
		q += " AND at_ns >= " + arg(f.Since.UnixNano())
	}
	if !f.Until.IsZero() {
		q += " AND at_ns < " + arg(f.Until.UnixNano())
	}
	if strings.HasSuffix(f.Action, ".") {
		q += prefix("action", f.Action, arg)
	} else if f.Action != "" {
		q += " AND action = " + arg(f.Action)
	}
	if f.Actor != "" {
		q += " AND (actor = " + arg(f.Actor) + " OR substr(actor, 1, " + arg(utf8.RuneCountInString(f.Actor)+1) + ") = " + arg(f.Actor+" ") + ")"
	}
	return q, nil
}

// ActionWhere selects f's records from the actions table (columns at_ns, policy,
// resource_id). It refuses a filter that fails Check.
func ActionWhere(f gpucost.ActionFilter, arg func(v any) string) (string, error) {
	if err := f.Check(); err != nil {
		return "", err
	}
	var q string
	if !f.Since.IsZero() {
		q += " AND at_ns >= " + arg(f.Since.UnixNano())
	}
	if f.Policy != "" {
		q += " AND policy = " + arg(f.Policy)
	}
	if f.Resource != "" {
		q += " AND resource_id = " + arg(f.Resource)
	}
	return q, nil
}

// DeliveryWhere selects f's attempts from the deliveries table (columns at_ns, key, target).
// It refuses a negative Limit.
func DeliveryWhere(f gpucost.DeliveryFilter, arg func(v any) string) (string, error) {
	if f.Limit < 0 {
		return "", gpucost.Errorf(gpucost.EInvalid, "list deliveries: limit %d: give 0 (all) or more", f.Limit)
	}
	var q string
	if !f.Since.IsZero() {
		q += " AND at_ns >= " + arg(f.Since.UnixNano())
	}
	if f.KeyPrefix != "" {
		q += prefix("key", f.KeyPrefix, arg)
	}
	if f.Target != "" {
		q += " AND target = " + arg(f.Target)
	}
	return q, nil
}

// prefix is the condition that column starts with p.
func prefix(column, p string, arg func(v any) string) string {
	return " AND substr(" + column + ", 1, " + arg(utf8.RuneCountInString(p)) + ") = " + arg(p)
}
