package httpapi

import (
	"net/http"
	"strings"

	"github.com/gpucost/gpucost"
)

// AuditResponse is GET /api/v1/audit: one page of the audit trail, newest first.
type AuditResponse struct {
	Entries []gpucost.AuditEntry `json:"entries"`
	Page    Page                 `json:"page"`
}

// getAudit serves the audit trail to admins: the entries of the period (since, default
// DefaultActivitySince) that action (a name or a prefix such as "bill.") and actor select,
// newest first, a page at a time.
func (s *Server) getAudit(w http.ResponseWriter, r *http.Request) {
	if s.Audit == nil {
		writeError(w, http.StatusServiceUnavailable, gpucost.EUnavailable, "this server keeps no audit log (it was started without a store)")
		return
	}
	q := r.URL.Query()
	vals, since, err := parseActivity(q, s.Now(), []string{"action", "actor"})
	if err != nil {
		s.badParam(w, err)
		return
	}
	if gpucost.CheckAuditAction(vals["action"]) != nil {
		s.badParam(w, paramError("action", vals["action"], "use one of "+strings.Join(gpucost.AuditActions, ", ")+", or a prefix such as bill."))
		return
	}
	pg, err := parsePaging(q)
	if err != nil {
		s.badParam(w, err)
		return
	}
	entries, err := s.Audit.Audit(r.Context(), gpucost.AuditFilter{Since: since, Action: vals["action"], Actor: vals["actor"]})
	if err != nil {
		s.writeErr(w, err, "read the audit log")
		return
	}
	list, page := pageOf(entries, pg, r.URL)
	writeJSON(w, http.StatusOK, AuditResponse{Entries: list, Page: page})
}
