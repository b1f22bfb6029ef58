package httpapi

import (
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/budget"
)

// MaxBudgetsBody is the largest budgets document PUT /api/v1/budgets takes.
const MaxBudgetsBody = 1 << 20

// maxAuditBudgetNames is how many budget names the audit entry of a budgets replacement lists
// before and after: enough for the budgets a team keeps, while a document of hundreds still
// makes a line people can read (the counts are always whole).
const maxAuditBudgetNames = 10

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
	before := "budgets before unknown"
	if st, err := s.Views.Budgets(r.Context(), s.Now()); err == nil {
		var names []string
		for _, b := range st {
			if !slices.Contains(names, b.Budget) {
				names = append(names, b.Budget)
			}
		}
		before = budgetNames(names)
	}
	bs, err := s.Budgets.PutBudgets(r.Context(), doc)
	if err != nil {
		s.writeErr(w, err, "store the budgets")
		return
	}
	tok, _ := TokenFrom(r.Context())
	s.Log.Info("budgets replaced", "budgets", len(bs), "by_token", tok.Name)
	after := make([]string, len(bs))
	for i, b := range bs {
		after[i] = b.Name
	}
	s.audit(r, gpucost.AuditBudgetsReplace, "budgets", before+" → "+budgetNames(after))
	resp, err := s.budgetStatuses(r.Context(), paging{limit: MaxPageLimit}, r)
	if err != nil {
		s.writeErr(w, err, "evaluate the stored budgets")
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

// budgetNames is a count of budgets and their names, for the audit log: "2 budgets (fleet,
// research)", at most maxAuditBudgetNames of them named.
func budgetNames(names []string) string {
	s := fmt.Sprintf("%d budgets", len(names))
	if len(names) == 1 {
		s = "1 budget"
	}
	if len(names) == 0 {
		return s
	}
	shown := names[:min(len(names), maxAuditBudgetNames)]
	s += " (" + strings.Join(shown, ", ")
	if more := len(names) - len(shown); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s + ")"
}
