package httpapi

import (
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/budget"
)

// MaxBudgetsBody is the largest budgets document PUT /api/v1/budgets takes.
const MaxBudgetsBody = 1 << 20

// BudgetStore keeps the budgets the server evaluates, in the store every replica shares.
type BudgetStore interface {
	// PutBudgets checks a budgets document (YAML, or JSON, which is YAML too) and stores it.
	// An invalid document is an EInvalid error naming the line and field; budgets that come
	// from a file the server was started with are EConflict, and nothing is stored.
	PutBudgets(ctx context.Context, doc []byte) ([]budget.Budget, error)
}

// budgetTypes are the Content-Types a budgets document may come as.
var budgetTypes = map[string]bool{"": true, "application/yaml": true, "application/x-yaml": true, "text/yaml": true,
	"text/x-yaml": true, "application/json": true, "text/plain": true}

// putBudgets replaces the stored budgets and answers with their statuses.
func (s *Server) putBudgets(w http.ResponseWriter, r *http.Request) {
	if s.Budgets == nil || s.Views == nil {
		writeError(w, http.StatusServiceUnavailable, gpucost.EUnavailable, "this server keeps no budgets (it was started without a budget store)")
		return
	}
	if err := checkParams(r.URL.Query()); err != nil {
		s.badParam(w, err)
		return
	}
	ct := r.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	if !budgetTypes[mt] {
		writeError(w, http.StatusUnsupportedMediaType, gpucost.EInvalid, fmt.Sprintf("Content-Type %q: send application/yaml or application/json", ct))
		return
	}
	doc, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBudgetsBody))
	if err != nil {
		writeError(w, http.StatusRequestEntityTooLarge, gpucost.EInvalid, fmt.Sprintf("the budgets document is over the limit of %s", mib(MaxBudgetsBody)))
		return
	}
	bs, err := s.Budgets.PutBudgets(r.Context(), doc)
	if err != nil {
		s.writeErr(w, err, "store the budgets")
		return
	}
	tok, _ := TokenFrom(r.Context())
	s.Log.Info("budgets replaced", "budgets", len(bs), "by_token", tok.Name)
	resp, err := s.budgetStatuses(r.Context(), paging{limit: MaxPageLimit}, r)
	if err != nil {
		s.writeErr(w, err, "evaluate the stored budgets")
		return
	}
	writeJSON(w, http.StatusOK, resp)
}
