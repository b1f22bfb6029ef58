package web

import (
	"context"
	"net/http"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/httpapi"
)

// recordSessionEnd keeps the end of sess (a logout) in the dashboard's audit trail, if it has
// one, as the session's token: "token 3 (ivy, viewer)", named as the API names it. A failure
// to record is logged: the session has ended all the same.
func (s *site) recordSessionEnd(r *http.Request, sess session) {
	if s.d.Audit == nil {
		return
	}
	ctx := context.WithoutCancel(r.Context())
	actor := "a token no longer stored"
	if tok, err := s.d.Tokens.TokenByHash(ctx, sess.TokenHash); err == nil {
		actor = httpapi.TokenActor(tok)
	}
	e := gpucost.AuditEntry{At: s.d.Now().UTC(), Actor: actor, Action: gpucost.AuditSessionEnd,
		Target: "dashboard session", Detail: "logged out", Source: httpapi.ClientAddr(r)}
	if _, err := s.d.Audit.RecordAudit(ctx, e); err != nil {
		s.d.Log.Error("dashboard: record the end of a session", "err", err)
	}
}
