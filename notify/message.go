package notify

import (
	"context"
	"time"
)

// Message is one alert, rendered by each Target in its own format.
type Message struct {
	Kind     string    // what happened, e.g. "budget.threshold" or "budget.forecast"
	Severity Severity  // how loud to be; empty means SeverityInfo
	Subject  string    // one line: the email subject, the Slack title
	Text     string    // the body, plain text
	Fields   []Field   // facts shown as a table, in order
	Link     string    // where to look, e.g. the budget's dashboard page
	At       time.Time // when the condition was seen
	// Key identifies the alert for dedupe and idempotency, e.g. "budget:team-a:2026-11:80%".
	// The Dispatcher sends a Message with a given Key to a given target once; an empty Key
	// turns dedupe off.
	Key string
}

// Field is one named fact of a Message, such as "Spent" = "$8,012.40".
type Field struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Severity says how urgent a Message is; targets use it for colour.
type Severity string

// Severities, quietest first.
const (
	SeverityInfo     Severity = "info"
	SeverityWarning  Severity = "warning"
	SeverityCritical Severity = "critical"
)

// Target delivers a Message to one destination. Send returns a *StatusError for an HTTP
// response that is not a success, a *textproto.Error for an SMTP refusal, and a Permanent error
// when retrying cannot help; any other error (a timeout, a refused connection) is worth a retry.
// Errors never hold the target's secrets.
type Target interface {
	Send(ctx context.Context, m Message) error
}

// defaultTimeout bounds one request when a target sets no Timeout.
const defaultTimeout = 10 * time.Second

func timeoutOr(d time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return defaultTimeout
}
