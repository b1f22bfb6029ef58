package httpapi

import (
	"net/http"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/promtext"
)

// BillSources is the state of the bill sources gpucost serve --pull-bills pulls.
type BillSources interface {
	// BillSourceStatus returns each source's state, in the order of the sources file.
	BillSourceStatus() []BillSourceStatus
}

// BillSourceStatus is one bill source's last pull: when, what it imported, and its error.
type BillSourceStatus struct {
	Name        string    `json:"name"`
	URL         string    `json:"url"`
	LastPull    time.Time `json:"last_pull,omitzero"`     // when the last pull ended; zero before the first
	LastSuccess time.Time `json:"last_success,omitzero"`  // when the last pull without an error ended
	OK          bool      `json:"ok"`                     // the last pull had no error
	Deliveries  int       `json:"deliveries"`             // current deliveries the last pull found
	Imported    int       `json:"imported"`               // of them, stored as new imports
	Replaced    int       `json:"replaced"`               // restated: replaced the stored delivery of their export and period
	Unchanged   int       `json:"unchanged"`              // stored before
	Refused     int       `json:"refused"`                // refused (Error says why)
	Error       string    `json:"error,omitempty"`        // the last pull's error
	Errors      int64     `json:"errors_total"`           // failed pulls since the server started
	FailingFrom time.Time `json:"failing_since,omitzero"` // the first failed pull since the last success
	Alerted     bool      `json:"alerted"`                // the failure was sent to the alert targets
}

// BillSourcesResponse is GET /api/v1/bill-sources.
type BillSourcesResponse struct {
	Sources []BillSourceStatus `json:"sources"`
}

func (s *Server) billSourceRoutes() []route {
	return []route{{"GET", "/api/v1/bill-sources", []gpucost.Role{gpucost.RoleViewer}, s.getBillSources}}
}

func (s *Server) getBillSources(w http.ResponseWriter, r *http.Request) {
	if s.BillSources == nil {
		writeError(w, http.StatusServiceUnavailable, gpucost.EUnavailable, "this server pulls no bills; start it with gpucost serve --pull-bills sources.yaml")
		return
	}
	writeJSON(w, http.StatusOK, BillSourcesResponse{Sources: s.BillSources.BillSourceStatus()})
}

// billSourceMetrics are the bill sources' series in /metrics.
func billSourceMetrics(b BillSources) promtext.Collector {
	return promtext.CollectorFunc(func(w *promtext.Writer) {
		st := b.BillSourceStatus()
		w.Family("gpucost_bill_pull_last_success_timestamp_seconds", "gauge", "When the last pull of a bill source without an error ended, in Unix seconds; 0 before the first.")
		for _, s := range st {
			w.Sample("gpucost_bill_pull_last_success_timestamp_seconds", unixSeconds(s.LastSuccess), "source", s.Name)
		}
		w.Family("gpucost_bill_pull_last_pull_timestamp_seconds", "gauge", "When the last pull of a bill source ended, in Unix seconds; 0 before the first.")
		for _, s := range st {
			w.Sample("gpucost_bill_pull_last_pull_timestamp_seconds", unixSeconds(s.LastPull), "source", s.Name)
		}
		w.Family("gpucost_bill_pull_errors_total", "counter", "Pulls of a bill source that failed, since the server started.")
		for _, s := range st {
			w.Sample("gpucost_bill_pull_errors_total", float64(s.Errors), "source", s.Name)
		}
		w.Family("gpucost_bill_pull_deliveries", "gauge", "The current deliveries the last pull of a bill source found, by what became of them: imported, replaced, unchanged or refused.")
		for _, s := range st {
			for _, r := range []struct {
				result string
				n      int
			}{{"imported", s.Imported}, {"replaced", s.Replaced}, {"unchanged", s.Unchanged}, {"refused", s.Refused}} {
				w.Sample("gpucost_bill_pull_deliveries", float64(r.n), "source", s.Name, "result", r.result)
			}
		}
	})
}

// unixSeconds is t in Unix seconds; 0 for the zero time.
func unixSeconds(t time.Time) float64 {
	if t.IsZero() {
		return 0
	}
	return float64(t.UnixNano()) / 1e9
}
