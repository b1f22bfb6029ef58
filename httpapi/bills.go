package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path"
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
	// names. Bad input is an EInvalid error naming o.Name, the line and the column; another
	// file of the same bill (the same identity key, gpucost.BillIdentity) is EConflict unless
	// o.Replace.
	ImportBill(ctx context.Context, path string, o BillOptions) (BillImport, error)

	// RemoveBill deletes the import id and its lines and returns the import as it was; an id
	// not stored is ENotFound.
	RemoveBill(ctx context.Context, id int64) (gpucost.CostImport, error)
}

// BillStoreDir is implemented by a BillImporter whose store is a file on this machine (SQLite):
// StoreDir names the folder it lies in, whose free space is checked before a bill is imported.
type BillStoreDir interface {
	StoreDir() string
}

// BillOptions say what an uploaded bill is.
type BillOptions struct {
	Name    string // a label: the base name of the export's file, never a path on the server
	Format  string // auto, or a format of gpucost import billing --format
	Replace bool   // replace an earlier import of the same bill (a restated bill); admin only
	Lenient bool   // read amounts like $10,000.00 and non-ISO dates, as gpucost import billing --lenient
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
	Coerced   []BillCoercion      `json:"coerced,omitempty"` // what lenient=true rewrote

	// Replaced are the imports this one replaced, for the audit log.
	Replaced []gpucost.CostImport `json:"-"`
}

// BillCoercion counts the values of one kind a lenient import rewrote.
type BillCoercion struct {
	Kind    string   `json:"kind"`    // amounts, dates
	How     string   `json:"how"`     // what was done to them
	Columns []string `json:"columns"` // the columns they were in
	Count   int      `json:"count"`
	Summary string   `json:"summary"` // "coerced 1,204 amounts in BilledCost: currency symbol and thousands separators removed"
}

// postBill streams a billing export to a temporary file within MaxBill, checks that it
// decompresses within the bill limits and fits on the disks, and imports it.
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
	if tok, _ := TokenFrom(r.Context()); o.Replace && !tok.Role.Allows(gpucost.RoleAdmin) {
		writeError(w, http.StatusForbidden, "forbidden", "replace=true replaces a stored bill and needs role admin; "+aToken(tok.Role)+
			" may upload new bills only: ask an admin to replace it, or to remove the earlier import (DELETE /api/v1/bills/{id})")
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
	path, cleanup, err := s.receiveBill(w, r)
	if err != nil {
		var be *bodyError
		var se *storageError
		switch {
		case errors.As(err, &be):
			writeError(w, be.status, gpucost.EInvalid, be.msg)
		case errors.As(err, &se):
			s.Log.Warn("bill refused: no room", "err", se.msg)
			writeError(w, http.StatusInsufficientStorage, gpucost.EUnavailable, se.msg)
		default:
			s.writeErr(w, err, "receive the bill")
		}
		return
	}
	defer cleanup()
	imp, err := s.Bills.ImportBill(r.Context(), path, o)
	if err != nil {
		s.writeErr(w, err, "import the bill")
		return
	}
	if len(imp.Replaced) > 0 {
		now := gpucost.CostImport{ID: imp.ImportID, Name: imp.Name, Rows: imp.Rows, Totals: imp.Totals}
		s.audit(r, gpucost.AuditBillReplace, fmt.Sprintf("import %d (%s)", imp.ImportID, imp.Name), gpucost.ImportChange(imp.Replaced, &now))
	}
	s.Log.Info("bill uploaded", "name", imp.Name, "status", imp.Status, "rows", imp.Rows, "import_id", imp.ImportID)
	status := http.StatusCreated
	if imp.Unchanged {
		status = http.StatusOK
	}
	writeJSON(w, status, imp)
}

// deleteBill removes an import and its lines: admin only, recorded in the audit log.
func (s *Server) deleteBill(w http.ResponseWriter, r *http.Request) {
	if s.Bills == nil {
		writeError(w, http.StatusServiceUnavailable, gpucost.EUnavailable, "this server keeps no bills (it was started without a bill importer)")
		return
	}
	if err := checkParams(r.URL.Query()); err != nil {
		s.badParam(w, err)
		return
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		s.badParam(w, paramError("id", r.PathValue("id"), "use the import id a bill upload answered or gpucost bills lists"))
		return
	}
	imp, err := s.Bills.RemoveBill(r.Context(), id)
	if err != nil {
		s.writeErr(w, err, "remove the bill")
		return
	}
	s.audit(r, gpucost.AuditBillRemove, fmt.Sprintf("import %d (%s)", imp.ID, imp.Name), gpucost.ImportChange([]gpucost.CostImport{imp}, nil))
	s.Log.Info("bill removed", "name", imp.Name, "import_id", imp.ID)
	writeJSON(w, http.StatusOK, BillImport{Name: imp.Name, Format: imp.Format, Version: imp.Version, Rows: imp.Rows,
		Lines: imp.Lines, Totals: imp.Totals, Status: "removed", ImportID: imp.ID})
}

// billOptions reads name, format, replace and lenient. The name is a label: its base name is kept, and
// it never names a file on the server.
func billOptions(r *http.Request) (BillOptions, error) {
	q := r.URL.Query()
	if err := checkParams(q, "name", "format", "replace", "lenient"); err != nil {
		return BillOptions{}, err
	}
	var o BillOptions
	var err error
	if o.Name, err = single(q, "name"); err != nil {
		return o, err
	}
	if o.Name == "" {
		return o, gpucost.Errorf(gpucost.EInvalid, "parameter name is missing: give the export's file name, such as ?name=focus-2026-10.csv.gz; with what the file holds (format, provider, billing accounts and periods) it identifies the bill, so a restated bill of the same name is refused unless an admin sends replace=true")
	}
	if len(o.Name) > maxBillName || strings.ContainsFunc(o.Name, unicode.IsControl) {
		return o, paramError("name", o.Name, fmt.Sprintf("use a file name of at most %d characters without control characters", maxBillName))
	}
	o.Name = path.Base(strings.ReplaceAll(o.Name, `\`, "/"))
	if o.Name == "." || o.Name == ".." || o.Name == "/" {
		return o, paramError("name", o.Name, "use the export's file name, such as focus-2026-10.csv.gz")
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
	lenient, err := single(q, "lenient")
	if err != nil {
		return o, err
	}
	if lenient != "" {
		if o.Lenient, err = strconv.ParseBool(lenient); err != nil {
			return o, paramError("lenient", lenient, "use true or false")
		}
	}
	return o, nil
}

// maxBillName is the longest name parameter a bill upload takes: 255 bytes is the longest file
// name Linux, macOS and Windows file systems keep, and the name is the export's file name.
const maxBillName = 255

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
