package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/fleet"
)

// StepApplier records the plan steps teams made and measures them on the bill
// (docs/architecture.md "Realized savings"): server.AppliedSteps.
type StepApplier interface {
	// ApplyStep records step id of the plan over the 30 days before at as applied at at.
	ApplyStep(ctx context.Context, id string, at time.Time, actor, note string) (gpucost.AppliedStep, error)
	// Realized measures the recorded steps on the bill up to the end of q's period.
	Realized(ctx context.Context, q Query) (fleet.RealizedReport, error)
}

// ApplyRequest is the body of POST /api/v1/recommendations/{id}/apply; both fields may be left out.
type ApplyRequest struct {
	At   time.Time `json:"at"`   // when the step was made; now if zero
	Note string    `json:"note"` // what to keep with the record
}

// MaxApplyBody bounds an apply request's body.
const MaxApplyBody = 16 << 10

func (s *Server) appliedRoutes() []route {
	return append([]route{
		{"POST", "/api/v1/recommendations/{id}/apply", []gpucost.Role{}, s.postApply},
		{"GET", "/api/v1/recommendations/realized", []gpucost.Role{gpucost.RoleViewer}, s.getRealized},
	}, s.detectedRoutes()...)
}

// postApply records a plan step as applied (admin only: it changes what the store keeps) and
// keeps it in the audit log. The step's id holds slashes: a client escapes them (%2F).
func (s *Server) postApply(w http.ResponseWriter, r *http.Request) {
	if s.Applied == nil {
		writeError(w, http.StatusServiceUnavailable, gpucost.EUnavailable, "this server records no applied steps (it was started without a store for them)")
		return
	}
	if err := checkParams(r.URL.Query()); err != nil {
		s.badParam(w, err)
		return
	}
	var req ApplyRequest
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxApplyBody))
	if err != nil {
		writeError(w, http.StatusRequestEntityTooLarge, gpucost.EInvalid, fmt.Sprintf("the apply request is over the limit of %s", mib(MaxApplyBody)))
		return
	}
	if len(body) > 0 {
		if err := json.Unmarshal(body, &req); err != nil {
			writeError(w, http.StatusBadRequest, gpucost.EInvalid, fmt.Sprintf(`the apply request: %v; send {"at": "2026-11-10T00:00:00Z", "note": "…"}, each optional`, err))
			return
		}
	}
	now := s.Now().UTC()
	if req.At.IsZero() {
		req.At = now
	}
	if req.At.After(now) {
		writeError(w, http.StatusBadRequest, gpucost.EInvalid, fmt.Sprintf("at %s is in the future: record a step once it is made", req.At.Format(time.RFC3339)))
		return
	}
	id := r.PathValue("id")
	a, err := s.Applied.ApplyStep(r.Context(), id, req.At, Actor(r.Context()), req.Note)
	if err != nil {
		s.writeErr(w, err, "record step "+id+" applied")
		return
	}
	s.audit(r, gpucost.AuditStepApply, "step "+a.ID, fmt.Sprintf("applied %s (%s), predicted %s a month", a.At.Format(time.RFC3339), a.How, a.Predicted.Dollars()))
	writeJSON(w, http.StatusCreated, a)
}

// getRealized is report savings --realized: the applied steps measured on the bill.
func (s *Server) getRealized(w http.ResponseWriter, r *http.Request) {
	if s.Applied == nil {
		writeError(w, http.StatusServiceUnavailable, gpucost.EUnavailable, "this server records no applied steps (it was started without a store for them)")
		return
	}
	q, err := parseQuery(r.URL.Query(), s.Now(), readParams{period: true})
	if err != nil {
		s.badParam(w, err)
		return
	}
	rep, err := s.Applied.Realized(r.Context(), q)
	if err != nil {
		s.writeErr(w, err, "measure the applied steps")
		return
	}
	writeJSON(w, http.StatusOK, rep)
}
