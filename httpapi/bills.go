package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/gpucost/gpucost"
)

// DefaultMaxBill is the largest billing export POST /api/v1/bills takes, as sent.
const DefaultMaxBill = 2 << 30

// BillTimeout is how long an authorised bill upload may take to send and import: gigabytes take
// longer than the server's one-minute read and write timeouts.
const BillTimeout = 30 * time.Minute

// BillImporter imports an uploaded billing export through the same code as gpucost import
// billing: whole or not at all, and a file imported before is not imported again.
type BillImporter interface {
	// ImportBill imports the file at path, which the server deletes afterwards, as the bill o
	// names. Bad input is an EInvalid error naming o.Name, the line and the column; a bill of
	// the same name with other content is EConflict unless o.Replace.
	ImportBill(ctx context.Context, path string, o BillOptions) (BillImport, error)
}

// BillOptions say what an uploaded bill is.
type BillOptions struct {
	Name    string // the export's file name, which identifies the bill across uploads
	Format  string // auto, or a format of gpucost import billing --format
	Replace bool   // replace an earlier import of the same name (a restated bill)
}

// BillImport is what importing one uploaded bill did.
type BillImport struct {
	Name      string              `json:"name"`
	Format    string              `json:"format"`
	Version   string              `json:"version,omitempty"`
	Rows      int                 `json:"rows"`
	Lines     int                 `json:"lines_stored"`
	Totals    []gpucost.CostTotal `json:"totals"`
	Status    string              `json:"status"`    // imported, replaced import N, or skipped: imported before
	Unchanged bool                `json:"unchanged"` // the same content was imported before; nothing changed
	ImportID  int64               `json:"import_id"`
	Unknown   []string            `json:"unknown_columns,omitempty"`
}

// postBill streams a billing export to a temporary file within MaxBill and imports it.
func (s *Server) postBill(w http.ResponseWriter, r *http.Request) {
	if s.Bills == nil {
		writeError(w, http.StatusServiceUnavailable, gpucost.EUnavailable, "this server takes no bill uploads (it was started without a bill importer)")
		return
	}
	o, err := billOptions(r)
	if err != nil {
		s.badParam(w, err)
		return
	}
	enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding")))
	if enc != "" && enc != "identity" && enc != "gzip" {
		writeError(w, http.StatusUnsupportedMediaType, gpucost.EInvalid, fmt.Sprintf("Content-Encoding %q: send gzip or no encoding", enc))
		return
	}
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Now().Add(BillTimeout)) // unsupported writers keep the server's timeouts
	rc.SetWriteDeadline(time.Now().Add(BillTimeout))
	path, cleanup, err := s.spoolBill(w, r)
	if err != nil {
		var be *bodyError
		if errors.As(err, &be) {
			writeError(w, be.status, gpucost.EInvalid, be.msg)
			return
		}
		s.writeErr(w, err, "receive the bill")
		return
	}
	defer cleanup()
	imp, err := s.Bills.ImportBill(r.Context(), path, o)
	if err != nil {
		s.writeErr(w, err, "import the bill")
		return
	}
	s.Log.Info("bill uploaded", "name", imp.Name, "status", imp.Status, "rows", imp.Rows, "import_id", imp.ImportID)
	status := http.StatusCreated
	if imp.Unchanged {
		status = http.StatusOK
	}
	writeJSON(w, status, imp)
}

// billOptions reads name, format and replace.
func billOptions(r *http.Request) (BillOptions, error) {
	q := r.URL.Query()
	if err := checkParams(q, "name", "format", "replace"); err != nil {
		return BillOptions{}, err
	}
	var o BillOptions
	var err error
	if o.Name, err = single(q, "name"); err != nil {
		return o, err
	}
	if o.Name == "" {
		return o, gpucost.Errorf(gpucost.EInvalid, "parameter name is missing: give the export's file name, such as ?name=focus-2026-10.csv.gz; it identifies the bill, so a restated bill of the same name is refused unless replace=true")
	}
	if len(o.Name) > 255 || strings.ContainsFunc(o.Name, unicode.IsControl) {
		return o, paramError("name", o.Name, "use a file name of at most 255 characters without control characters")
	}
	if o.Format, err = single(q, "format"); err != nil {
		return o, err
	}
	if o.Format == "" {
		o.Format = "auto"
	}
	rep, err := single(q, "replace")
	if err != nil {
		return o, err
	}
	if rep != "" {
		if o.Replace, err = strconv.ParseBool(rep); err != nil {
			return o, paramError("replace", rep, "use true or false")
		}
	}
	return o, nil
}

// checkParams refuses parameters other than names.
func checkParams(q map[string][]string, names ...string) error {
	for k := range q {
		found := false
		for _, n := range names {
			found = found || k == n
		}
		if !found {
			takes := "no parameters"
			if len(names) > 0 {
				takes = strings.Join(names, ", ")
			}
			return gpucost.Errorf(gpucost.EInvalid, "unknown parameter %s: this endpoint takes %s; see /api/openapi.json", k, takes)
		}
	}
	return nil
}

// spoolBill writes the body, as sent (a gzip body stays compressed: the importer reads gzip by
// its magic), to a temporary file, refusing it past MaxBill.
func (s *Server) spoolBill(w http.ResponseWriter, r *http.Request) (string, func(), error) {
	dir, err := os.MkdirTemp(s.TempDir, "gpucost-bill-")
	if err != nil {
		return "", nil, fmt.Errorf("spool the bill: %w", err)
	}
	cleanup := func() { os.RemoveAll(dir) }
	path := filepath.Join(dir, "bill")
	f, err := os.Create(path)
	if err != nil {
		cleanup()
		return "", nil, fmt.Errorf("spool the bill: %w", err)
	}
	body := http.MaxBytesReader(w, r.Body, s.MaxBill)
	n, err := io.Copy(f, body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		cleanup()
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return "", nil, &bodyError{http.StatusRequestEntityTooLarge, fmt.Sprintf(
				"the bill is over the limit of %s as sent; gzip it, split it by month, or raise serve --max-bill-size", mib(s.MaxBill))}
		}
		return "", nil, &bodyError{http.StatusBadRequest, "read the bill: " + err.Error()}
	}
	if n == 0 {
		cleanup()
		return "", nil, &bodyError{http.StatusBadRequest, "the body is empty: send the billing export (CSV, gzip CSV, JSON lines or Parquet)"}
	}
	return path, cleanup, nil
}
