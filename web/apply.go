package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/httpapi"
)

// applyStep records a plan step applied now from the Recommendations page's form, as POST
// /api/v1/recommendations/{id}/apply does: an admin's session, the form's CSRF token, the
// step's id and an optional note; then back to the page, where it shows as applied.
func (s *site) applyStep(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "the apply form could not be read", http.StatusBadRequest)
		return
	}
	sess, tok, ok, err := s.current(r)
	switch {
	case err != nil:
		s.d.Log.Error("dashboard: check session token", "err", err)
		s.renderError(w, r, nil, http.StatusServiceUnavailable, "The token store could not be reached; try again shortly.")
		return
	case !ok:
		http.Redirect(w, r, "/login?next="+url.QueryEscape("/recommendations"), http.StatusSeeOther)
		return
	case !checkToken(r.PostForm.Get("csrf"), s.keys.csrfToken(sess)):
		s.renderError(w, r, nil, http.StatusForbidden, "The form did not come from this session: reload the page and try again.")
		return
	case tok.Role != gpucost.RoleAdmin:
		s.renderError(w, r, nil, http.StatusForbidden, "Only an admin token records a step applied: log out and use one.")
		return
	case s.d.Applied == nil:
		s.renderError(w, r, nil, http.StatusServiceUnavailable, "This dashboard records no applied steps.")
		return
	}
	id, actor := r.PostForm.Get("step"), httpapi.TokenActor(tok)
	a, err := s.d.Applied.ApplyStep(r.Context(), id, s.d.Now().UTC(), actor, r.PostForm.Get("note"))
	if err != nil {
		status := http.StatusInternalServerError
		switch gpucost.ErrorCode(err) {
		case gpucost.ENotFound:
			status = http.StatusNotFound
		case gpucost.EConflict:
			status = http.StatusConflict
		case gpucost.EInvalid:
			status = http.StatusBadRequest
		}
		s.d.Log.Warn("dashboard: apply step", "step", id, "err", err)
		s.renderError(w, r, nil, status, "Step "+id+" was not recorded: "+err.Error())
		return
	}
	if s.d.Audit != nil {
		e := gpucost.AuditEntry{At: s.d.Now().UTC(), Actor: actor, Action: gpucost.AuditStepApply, Target: "step " + a.ID,
			Detail: fmt.Sprintf("applied %s (%s), predicted %s a month", a.At.Format(time.RFC3339), a.How, a.Predicted.Dollars()),
			Source: httpapi.ClientAddr(r)}
		if _, err := s.d.Audit.RecordAudit(context.WithoutCancel(r.Context()), e); err != nil {
			s.d.Log.Error("dashboard: record an applied step", "err", err)
		}
	}
	http.Redirect(w, r, "/recommendations", http.StatusSeeOther)
}
