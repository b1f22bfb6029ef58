package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/query"
)

// ChangeDetector is a StepApplier that also finds the changes the bill shows and records them
// applied (docs/architecture.md "Realized savings"): server.AppliedSteps. The API and the
// dashboard ask a StepApplier for it, as net/http asks a ResponseWriter for a Flusher.
type ChangeDetector interface {
	// DetectedChanges finds the changes the bill of q's period shows (30 days by default), each
	// with the step of the plan before it that it made and whether that step is recorded.
	DetectedChanges(ctx context.Context, q Query) ([]query.DetectedStep, error)
	// RecordDetected records step id of the plan over the 30 days before at as applied at at,
	// how the bill showed it ("detected: pricing became spot").
	RecordDetected(ctx context.Context, id string, at time.Time, how, actor, note string) (gpucost.AppliedStep, error)
}

// DetectedResponse is GET /api/v1/recommendations/detected: what gpucost recommend applied
// --detect --output json prints over the same period.
type DetectedResponse = []query.DetectedStep

// DetectedPeriod is the period GET /api/v1/recommendations/detected reads without since or from.
const DetectedPeriod = 30 * 24 * time.Hour

func (s *Server) detectedRoutes() []route {
	return []route{
		{"GET", "/api/v1/recommendations/detected", []gpucost.Role{gpucost.RoleViewer}, s.getDetected},
	}
}

// getDetected is gpucost recommend applied --detect: the changes the bill shows and the plan
// steps they made; recording them stays with an admin (POST .../apply, the dashboard).
func (s *Server) getDetected(w http.ResponseWriter, r *http.Request) {
	d, ok := s.Applied.(ChangeDetector)
	if !ok {
		writeError(w, http.StatusServiceUnavailable, gpucost.EUnavailable, "this server detects no applied steps (it was started without a store for them)")
		return
	}
	q, err := parseQuery(r.URL.Query(), s.Now(), readParams{period: true})
	if err != nil {
		s.badParam(w, err)
		return
	}
	changes, err := d.DetectedChanges(r.Context(), q)
	if err != nil {
		s.writeErr(w, err, "detect the changes the bill shows")
		return
	}
	writeJSON(w, http.StatusOK, DetectedResponse(changes))
}
