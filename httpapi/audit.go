package httpapi

import (
	"context"
	"fmt"
	"net/http"

	"github.com/gpucost/gpucost"
)

// Actor names who made a request, for the audit log: the token it was authenticated with.
func Actor(ctx context.Context) string {
	tok, ok := TokenFrom(ctx)
	if !ok {
		return "anonymous"
	}
	return TokenActor(tok)
}

// TokenActor names tok as an actor in the audit log: "token 3 (ci-admin, admin)". The
// dashboard names a session's token the same way.
func TokenActor(tok gpucost.Token) string {
	return fmt.Sprintf("token %d (%s, %s)", tok.ID, tok.Name, tok.Role)
}

// audit records an audited action of request r in s.Audit. A failure to record is logged: the
// action has already happened and its answer must still reach the client.
func (s *Server) audit(r *http.Request, action, target, detail string) {
	if s.Audit == nil {
		return
	}
	e := gpucost.AuditEntry{At: s.Now().UTC(), Actor: Actor(r.Context()), Action: action,
		Target: target, Detail: detail, Source: ClientAddr(r)}
	if _, err := s.Audit.RecordAudit(context.WithoutCancel(r.Context()), e); err != nil {
		s.Log.Error("record audit entry", "err", err, "action", action, "target", target)
	}
}
