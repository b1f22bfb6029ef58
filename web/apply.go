package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/httpapi"
)

// applyStep records a plan step applied now from the Recommendations page's form, as POST
// /api/v1/recommendations/{id}/apply does: an admin's session, the form's CSRF token, the
// step's id and an optional note; then back to the page, where it shows as applied. The
// "Record as applied" form of a change the bill shows adds when it was made and how
// (detectedFields).
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
	at, how, err := detectedFields(r.PostForm, s.d.Now().UTC())
	if err != nil {
		s.renderError(w, r, nil, http.StatusBadRequest, "Step "+id+" was not recorded: "+err.Error())
		return
	}
	var a gpucost.AppliedStep
	switch d, detects := s.d.Applied.(httpapi.ChangeDetector); {
	case how == "":
		a, err = s.d.Applied.ApplyStep(r.Context(), id, at, actor, r.PostForm.Get("note"))
	case detects:
		a, err = d.RecordDetected(r.Context(), id, at, how, actor, r.PostForm.Get("note"))
	default:
		err = gpucost.Errorf(gpucost.EInvalid, "this dashboard records no detected steps")
	}
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

// maxHowLen bounds the how of a detected step a form records.
const maxHowLen = 200

// detectedFields reads the at and how of a "Record as applied" form: both or neither, at an
// RFC 3339 time no later than now, how a detected change's ("detected: …"). Without them the
// step is made now, by hand.
func detectedFields(form url.Values, now time.Time) (time.Time, string, error) {
	atText, how := form.Get("at"), form.Get("how")
	if atText == "" && how == "" {
		return now, "", nil
	}
	if atText == "" || how == "" {
		return time.Time{}, "", fmt.Errorf("the form gives at or how alone: a detected change records both, reload the page and try again")
	}
	at, err := time.Parse(time.RFC3339, atText)
	if err != nil {
		return time.Time{}, "", fmt.Errorf("at %q is not an RFC 3339 time: reload the page and try again", atText)
	}
	if at.After(now) {
		return time.Time{}, "", fmt.Errorf("at %s is in the future: record a step once it is made", at.Format(time.RFC3339))
	}
	if !strings.HasPrefix(how, gpucost.AppliedDetected) || len(how) > maxHowLen || strings.ContainsFunc(how, unicode.IsControl) {
		return time.Time{}, "", fmt.Errorf("how %q is not a detected change's (%q and what the bill showed, at most %d bytes)", how, gpucost.AppliedDetected+" …", maxHowLen)
	}
	return at.UTC(), how, nil
}
