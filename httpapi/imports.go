package httpapi

import (
	"context"
	"net/http"

	"github.com/gpucost/gpucost"
)

// ImportLister lists the stored bill imports: what GET /api/v1/imports serves.
// gpucost.CostStore has it.
type ImportLister interface {
	// CostImports lists the imports, oldest first.
	CostImports(ctx context.Context) ([]gpucost.CostImport, error)
}

var _ ImportLister = gpucost.CostStore(nil)

// ImportsResponse is GET /api/v1/imports: every bill import, oldest first, as gpucost import
// list --output json prints it.
type ImportsResponse struct {
	Imports []gpucost.ImportListing `json:"imports"`
}

// getImports serves the stored bill imports to viewers: file, SHA-256, providers, billing
// accounts, billing periods, charge period span, rows, lines and totals per currency.
func (s *Server) getImports(w http.ResponseWriter, r *http.Request) {
	if s.Imports == nil {
		writeError(w, http.StatusServiceUnavailable, gpucost.EUnavailable, "this server keeps no bills (it was started without a store)")
		return
	}
	if err := checkParams(r.URL.Query()); err != nil {
		s.badParam(w, err)
		return
	}
	all, err := s.Imports.CostImports(r.Context())
	if err != nil {
		s.writeErr(w, err, "list the bill imports")
		return
	}
	out := ImportsResponse{Imports: make([]gpucost.ImportListing, len(all))}
	for i, imp := range all {
		out.Imports[i] = imp.Listing()
	}
	writeJSON(w, http.StatusOK, out)
}
