package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/internal/jsonschema"
	"github.com/gpucost/gpucost/server"
)

// apiWriteUnchecked are the answers openapi.json documents for a write operation ("OPERATION
// STATUS") that TestSchemasAPIWrites does not get, each with why; a whole operation may be
// named too. Every other documented answer of every write operation must be got, so that an
// operation or answer added to openapi.json fails the test until it is checked or excused here.
var apiWriteUnchecked = map[string]string{
	"POST /api/v1/samples 408":                    "a push stopped past a minute or by its client going away (httpapi TestSamplesStopWhenClientGoes)",
	"POST /api/v1/samples 503":                    "the store cannot be reached",
	"POST /api/v1/bills 503":                      "a server without a bill importer, which gpucost serve always gives (httpapi TestPostBill)",
	"POST /api/v1/bills 507":                      "the disk short of room for the bill (httpapi TestBillInsufficientStorage)",
	"DELETE /api/v1/bills/{id} 503":               "a server without a bill importer, which gpucost serve always gives",
	"PUT /api/v1/budgets 503":                     "the store cannot be reached",
	"POST /api/v1/recommendations/{id}/apply 503": "a server without a store of applied steps, which gpucost serve always gives",
}

// apiWriteAudits are the audit actions the write operations' successes keep (docs/architecture.md
// "Audit trail"), or why one keeps none: every destructive write must leave one.
var apiWriteAudits = map[string]struct{ action, why string }{
	"POST /api/v1/samples":                    {why: "adds samples; the same samples sent again are stored once"},
	"POST /api/v1/bills":                      {action: gpucost.AuditBillReplace, why: "a new bill adds an import; only replace=true is destructive"},
	"DELETE /api/v1/bills/{id}":               {action: gpucost.AuditBillRemove},
	"PUT /api/v1/budgets":                     {action: gpucost.AuditBudgetsReplace},
	"POST /api/v1/recommendations/{id}/apply": {action: gpucost.AuditStepApply},
}

// openAPIOp is what TestSchemasAPIWrites reads of an operation in httpapi/openapi.json.
type openAPIOp struct {
	Roles     []gpucost.Role `json:"x-gpucost-roles"`
	Responses map[string]any `json:"responses"`
}

// readOpenAPI reads httpapi/openapi.json's operations, keyed "METHOD /path", and the error codes
// its Error schema lists.
func readOpenAPI(t *testing.T) (map[string]openAPIOp, []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "httpapi", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths      map[string]map[string]openAPIOp `json:"paths"`
		Components struct {
			Schemas struct {
				Error struct {
					Properties struct {
						Error struct {
							Properties struct {
								Code struct {
									Examples []string `json:"examples"`
								} `json:"code"`
							} `json:"properties"`
						} `json:"error"`
					} `json:"properties"`
				} `json:"Error"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	ops := map[string]openAPIOp{}
	for p, methods := range doc.Paths {
		for m, op := range methods {
			ops[strings.ToUpper(m)+" "+p] = op
		}
	}
	return ops, doc.Components.Schemas.Error.Properties.Error.Properties.Code.Examples
}

// isWrite reports whether op ("METHOD /path") changes what the server keeps.
func isWrite(op string) bool {
	m, _, _ := strings.Cut(op, " ")
	return m != "GET" && m != "HEAD"
}

// writeChecker sends write requests to a server and checks each answer: the status wanted and
// documented in openapi.json, and the body against the operation's schema (docs/schema), or
// the error schema with the code that goes with the status.
type writeChecker struct {
	t       *testing.T
	s       *viewServer
	ops     map[string]openAPIOp
	codes   []string          // the error codes openapi.json's Error lists
	got     map[string]bool   // "OPERATION STATUS" answers got
	success map[string]string // operation → its success answer's schema
}

// errorCodeOf is the error code each error status carries (httpapi's statusOf, and the
// authorization's).
var errorCodeOf = map[int]string{400: gpucost.EInvalid, 401: "unauthorized", 403: "forbidden", 404: gpucost.ENotFound,
	409: gpucost.EConflict, 413: gpucost.EInvalid, 415: gpucost.EInvalid, 429: "too_many_requests", 503: gpucost.EUnavailable}

// do sends op's method to path as role (no token where role is "") with body and the header
// pairs, checks the answer is want, validates it, and returns its body.
func (w *writeChecker) do(op string, role gpucost.Role, path string, body []byte, want int, header ...string) []byte {
	t := w.t
	t.Helper()
	method, _, _ := strings.Cut(op, " ")
	status, out := w.s.do(t, method, path, role, body, header...)
	what := fmt.Sprintf("%s %s as %q", method, path, role)
	if status != want {
		t.Errorf("%s = %d %s; want %d", what, status, out, want)
		return out
	}
	w.got[op+" "+strconv.Itoa(status)] = true
	if _, ok := w.ops[op].Responses[strconv.Itoa(status)]; !ok {
		t.Errorf("%s = %d, which httpapi/openapi.json does not document for %s", what, status, op)
	} else {
		checkAgainstOpenAPI(t, what, op, status, out)
	}
	if status < 300 {
		checkAgainstSchema(t, what, w.success[op], loadSchema(t, w.success[op]), out)
		return out
	}
	checkAgainstSchema(t, what, "api-error", loadSchema(t, "api-error"), out)
	var eb httpapi.ErrorBody
	json.Unmarshal(out, &eb)
	if code := errorCodeOf[status]; eb.Error.Code != code || eb.Error.Message == "" {
		t.Errorf("%s = %d with error %+v; want code %q and a message", what, status, eb.Error, code)
	}
	if !slices.Contains(w.codes, eb.Error.Code) {
		t.Errorf("%s = error code %q, which httpapi/openapi.json's Error does not list (%q)", what, eb.Error.Code, w.codes)
	}
	return out
}

// refused checks that every role op does not allow, and no token, is refused.
func (w *writeChecker) refused(op, path string, body []byte, header ...string) {
	w.t.Helper()
	for _, role := range []gpucost.Role{gpucost.RoleViewer, gpucost.RoleIngest} {
		if !slices.Contains(w.ops[op].Roles, role) {
			w.do(op, role, path, body, http.StatusForbidden, header...)
		}
	}
	w.do(op, "", path, body, http.StatusUnauthorized, header...)
}

// least is the least role op allows, as openapi.json says.
func (w *writeChecker) least(op string) gpucost.Role {
	w.t.Helper()
	for _, role := range []gpucost.Role{gpucost.RoleViewer, gpucost.RoleIngest, gpucost.RoleAdmin} {
		if slices.Contains(w.ops[op].Roles, role) {
			return role
		}
	}
	w.t.Fatalf("%s: openapi.json names no role (x-gpucost-roles)", op)
	return ""
}

// TestSchemasAPIWrites performs every write operation of httpapi/openapi.json on a server over a
// copy of the 3-day demo store, with the least role that may and with the roles that may not,
// and checks each answer against its schema in docs/schema and the one openapi.json gives it:
// the successes, and every error openapi.json documents for the operation (bad input, an
// unknown id, a conflict, the limits) but those apiWriteUnchecked excuses. Each destructive
// write must leave its entry in the audit trail, by the token that made it; the refused ones
// none.
func TestSchemasAPIWrites(t *testing.T) {
	ops, codes := readOpenAPI(t)
	success := map[string]string{}
	for _, r := range apiRoutes {
		success[r.op] = r.name
	}
	dir := loadDemo(t)
	s := startViewServer(t, filepath.Join(dir, "gpucost.db"), serveOptions{flush: time.Second, viewsEvery: time.Minute, maxBill: 1 << 20})
	w := &writeChecker{t: t, s: s, ops: ops, codes: codes, got: map[string]bool{}, success: success}

	writeSamples(w)
	writeBills(w)
	writeBudgets(w)
	writeApply(w)

	writeStrict(t, &writeChecker{t: t, ops: ops, codes: codes, got: w.got, success: success})

	checkWritesCovered(t, ops, w.got)
	checkWritesAudited(t, w)
}

// writeStrict serves a store with its budgets from serve --budgets FILE, which wins over budgets
// stored through the API, so that a PUT is a conflict, and with one sample push and one bill
// upload per token, on a clock that does not move, so that a second of each is over its limit.
func writeStrict(t *testing.T, w *writeChecker) {
	file := filepath.Join(t.TempDir(), "budgets.yaml")
	if err := os.WriteFile(file, []byte("budgets:\n  - {name: all, period: monthly, amount: 9}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := serveOptions{flush: time.Second, viewsEvery: time.Minute, maxBill: 1 << 20, budgets: file}
	o.security.sec = &server.Security{IngestLimit: httpapi.Limit{Rate: 1e-6, Burst: 1}, BillLimit: httpapi.Limit{Rate: 1e-6, Burst: 1}, AuthFailures: -1}
	w.s = startViewServer(t, filepath.Join(t.TempDir(), "gpucost.db"), o)
	w.do("PUT /api/v1/budgets", gpucost.RoleAdmin, "/api/v1/budgets", []byte(testBudgets), http.StatusConflict, "Content-Type", "application/yaml")

	push := samplesBody(demoNow.Add(-time.Minute), 1, 40)
	jsonType := []string{"Content-Type", "application/json"}
	w.do("POST /api/v1/samples", gpucost.RoleIngest, "/api/v1/samples", push, http.StatusOK, jsonType...)
	w.do("POST /api/v1/samples", gpucost.RoleIngest, "/api/v1/samples", push, http.StatusTooManyRequests, jsonType...)

	bill, err := os.ReadFile("../../billing/focus/testdata/focus_1_2.csv")
	if err != nil {
		t.Fatal(err)
	}
	w.do("POST /api/v1/bills", gpucost.RoleIngest, "/api/v1/bills?name=focus-schema.csv", bill, http.StatusCreated, "Content-Type", "text/csv")
	w.do("POST /api/v1/bills", gpucost.RoleIngest, "/api/v1/bills?name=focus-schema.csv", bill, http.StatusTooManyRequests, "Content-Type", "text/csv")
}

// samplesBody is an agent's push of one sample of GPU-schema-N at, for each of utils.
func samplesBody(at time.Time, n int, utils ...float64) []byte {
	var b strings.Builder
	b.WriteString(`{"samples": [`)
	for i, u := range utils {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `{"time": %q, "gpu": {"uuid": "GPU-schema-%d", "host": "schema-host"}, "util": %g}`, at.Format(time.RFC3339), n+i, u)
	}
	b.WriteString("]}")
	return []byte(b.String())
}

// testBudgets is a valid budgets document.
const testBudgets = "budgets:\n  - name: research\n    scope: {team: research}\n    period: monthly\n    amount: 50000\n"

// writeSamples pushes an agent's batch: one good sample and one skipped, then a malformed body.
func writeSamples(w *writeChecker) {
	const op = "POST /api/v1/samples"
	batch := samplesBody(demoNow.Add(-time.Minute), 1, 40, 400)
	jsonType := []string{"Content-Type", "application/json"}
	w.refused(op, "/api/v1/samples", batch, jsonType...)
	out := w.do(op, w.least(op), "/api/v1/samples", batch, http.StatusOK, jsonType...)
	if !strings.Contains(string(out), `"accepted":1`) || !strings.Contains(string(out), `"skipped":1`) {
		w.t.Errorf("POST /api/v1/samples = %s; want one accepted and the one over 100%% skipped", out)
	}
	w.do(op, w.least(op), "/api/v1/samples", []byte(`{"samples": [`), http.StatusBadRequest, jsonType...)
	w.do(op, w.least(op), "/api/v1/samples", batch, http.StatusUnsupportedMediaType, "Content-Type", "text/plain")
	labels := map[string]string{}
	for i := range httpapi.MaxLabelsPerSample + 1 {
		labels[fmt.Sprintf("l%d", i)] = "v"
	}
	many, err := json.Marshal(map[string]any{"samples": []any{map[string]any{"time": demoNow.Add(-time.Minute), "labels": labels,
		"gpu": map[string]string{"uuid": "GPU-schema-3", "host": "schema-host"}}}})
	if err != nil {
		w.t.Fatal(err)
	}
	w.do(op, w.least(op), "/api/v1/samples", many, http.StatusRequestEntityTooLarge, jsonType...)
}

// writeBills uploads a bill, the same again, a malformed one and a restatement (refused, then
// replaced by an admin), and removes the import.
func writeBills(w *writeChecker) {
	t := w.t
	const up, rm = "POST /api/v1/bills", "DELETE /api/v1/bills/{id}"
	bill, err := os.ReadFile("../../billing/focus/testdata/focus_1_2.csv")
	if err != nil {
		t.Fatal(err)
	}
	restated := append(bytes.Clone(bill), bill[bytes.IndexByte(bill, '\n')+1:]...)
	csv := []string{"Content-Type", "text/csv"}
	w.refused(up, "/api/v1/bills?name=focus-schema.csv", bill, csv...)
	ingest := w.least(up)
	w.do(up, ingest, "/api/v1/bills?name=big.csv", bytes.Repeat([]byte("x"), 1<<20+1), http.StatusRequestEntityTooLarge, csv...)
	w.do(up, ingest, "/api/v1/bills?name=focus-schema.csv", bill, http.StatusUnsupportedMediaType, "Content-Type", "text/csv", "Content-Encoding", "br")
	w.do(up, ingest, "/api/v1/bills?name=focus-schema.csv", bill, http.StatusCreated, csv...)
	w.do(up, ingest, "/api/v1/bills?name=focus-schema-again.csv", bill, http.StatusOK, csv...)
	w.do(up, ingest, "/api/v1/bills?name=broken.csv", bytes.Replace(bill, []byte("\n"), []byte("\nnot,a,bill\n"), 1), http.StatusBadRequest, csv...)
	w.do(up, ingest, "/api/v1/bills?name=focus-schema.csv", restated, http.StatusConflict, csv...)
	if ingest != gpucost.RoleAdmin {
		w.do(up, ingest, "/api/v1/bills?name=focus-schema.csv&replace=true", restated, http.StatusForbidden, csv...)
	}
	out := w.do(up, gpucost.RoleAdmin, "/api/v1/bills?name=focus-schema.csv&replace=true", restated, http.StatusCreated, csv...)
	var imp struct {
		ImportID int64  `json:"import_id"`
		Status   string `json:"status"`
	}
	if err := json.Unmarshal(out, &imp); err != nil || imp.ImportID == 0 {
		t.Fatalf("POST a restated bill with replace=true = %s (%v); want its import id", out, err)
	}

	path := fmt.Sprintf("/api/v1/bills/%d", imp.ImportID)
	w.refused(rm, path, nil)
	w.do(rm, w.least(rm), "/api/v1/bills/first", nil, http.StatusBadRequest)
	w.do(rm, w.least(rm), "/api/v1/bills/999999", nil, http.StatusNotFound)
	out = w.do(rm, w.least(rm), path, nil, http.StatusOK)
	if err := json.Unmarshal(out, &imp); err != nil || imp.Status != "removed" {
		t.Errorf("DELETE %s = %s (%v); want the import with status removed", path, out, err)
	}
}

// writeBudgets replaces the budgets, and is refused an invalid document.
func writeBudgets(w *writeChecker) {
	const op = "PUT /api/v1/budgets"
	yaml := []string{"Content-Type", "application/yaml"}
	w.refused(op, "/api/v1/budgets", []byte(testBudgets), yaml...)
	w.do(op, w.least(op), "/api/v1/budgets", []byte(`{"budgets": [{"name": "research", "period": "monthly", "amount": -5}]}`),
		http.StatusBadRequest, "Content-Type", "application/json")
	w.do(op, w.least(op), "/api/v1/budgets", bytes.Repeat([]byte("#"), httpapi.MaxBudgetsBody+1), http.StatusRequestEntityTooLarge, yaml...)
	w.do(op, w.least(op), "/api/v1/budgets", []byte(testBudgets), http.StatusUnsupportedMediaType, "Content-Type", "image/png")
	out := w.do(op, w.least(op), "/api/v1/budgets", []byte(testBudgets), http.StatusOK, yaml...)
	if !strings.Contains(string(out), `"budget":"research"`) {
		w.t.Errorf("PUT /api/v1/budgets = %s; want the research budget's status", out)
	}
}

// writeApply records a step of the demo's plan applied, then again (a conflict), an unknown
// step and a malformed body.
func writeApply(w *writeChecker) {
	t := w.t
	const op = "POST /api/v1/recommendations/{id}/apply"
	status, out := w.s.do(t, "GET", "/api/v1/recommendations?since=3d", gpucost.RoleViewer, nil)
	var recs struct {
		Plan struct {
			Groups []struct {
				Steps []struct{ ID string }
			}
		}
	}
	if err := json.Unmarshal(out, &recs); status != http.StatusOK || err != nil || len(recs.Plan.Groups) == 0 || len(recs.Plan.Groups[0].Steps) == 0 {
		t.Fatalf("GET /api/v1/recommendations = %d %.300s (%v); want a plan with steps", status, out, err)
	}
	id := recs.Plan.Groups[0].Steps[0].ID
	path := "/api/v1/recommendations/" + strings.ReplaceAll(id, "/", "%2F") + "/apply"
	body := []byte(`{"at": "` + demoNow.Add(-time.Hour).Format(time.RFC3339) + `", "note": "schema check"}`)
	jsonType := []string{"Content-Type", "application/json"}
	w.refused(op, path, body, jsonType...)
	admin := w.least(op)
	w.do(op, admin, path, []byte(`{"at": 3}`), http.StatusBadRequest, jsonType...)
	w.do(op, admin, path, bytes.Repeat([]byte(" "), httpapi.MaxApplyBody+1), http.StatusRequestEntityTooLarge, jsonType...)
	w.do(op, admin, "/api/v1/recommendations/no-such%2Fspot%2Fspot/apply", nil, http.StatusNotFound)
	w.do(op, admin, path, body, http.StatusCreated, jsonType...)
	w.do(op, admin, path, body, http.StatusConflict, jsonType...)
}

// checkWritesCovered fails for a write operation of openapi.json, or a documented answer of one,
// that the test did not get and apiWriteUnchecked gives no reason for.
func checkWritesCovered(t *testing.T, ops map[string]openAPIOp, got map[string]bool) {
	t.Helper()
	for op, o := range ops {
		if !isWrite(op) || apiWriteUnchecked[op] != "" {
			continue
		}
		if _, ok := apiWriteAudits[op]; !ok {
			t.Errorf("%s: say in apiWriteAudits which audit action it keeps, or why it keeps none", op)
		}
		for status := range o.Responses {
			key := op + " " + status
			if !got[key] && apiWriteUnchecked[key] == "" {
				t.Errorf("%s: openapi.json documents %s, which TestSchemasAPIWrites does not get: add a request, or say why in apiWriteUnchecked", op, status)
			}
			if got[key] && apiWriteUnchecked[key] != "" {
				t.Errorf("%s: TestSchemasAPIWrites gets %s, which apiWriteUnchecked excuses: remove it there", op, status)
			}
		}
	}
	for key := range apiWriteUnchecked {
		op := key
		if f := strings.Fields(key); len(f) == 3 {
			op = f[0] + " " + f[1]
		}
		if _, ok := ops[op]; !ok {
			t.Errorf("apiWriteUnchecked names %q, which openapi.json does not describe", key)
		}
	}
}

// checkWritesAudited reads the audit trail through GET /api/v1/audit: each destructive write the
// test made is there once, by the admin token that made it, and nothing else is.
func checkWritesAudited(t *testing.T, w *writeChecker) {
	t.Helper()
	status, out := w.s.do(t, "GET", "/api/v1/audit?since=30d", gpucost.RoleAdmin, nil)
	if status != http.StatusOK {
		t.Fatalf("GET /api/v1/audit = %d %s", status, out)
	}
	checkAgainstSchema(t, "GET /api/v1/audit", "api-audit", loadSchema(t, "api-audit"), out)
	var resp httpapi.AuditResponse
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatal(err)
	}
	byAction := map[string][]gpucost.AuditEntry{}
	for _, e := range resp.Entries {
		byAction[e.Action] = append(byAction[e.Action], e)
	}
	for op, a := range apiWriteAudits {
		if a.action == "" {
			continue
		}
		es := byAction[a.action]
		if len(es) != 1 || es[0].Actor != "token 3 (admin, admin)" || es[0].Detail == "" || es[0].Source == "" {
			t.Errorf("%s: audit entries %s = %+v; want one, by token 3 (admin, admin), with its detail and source", op, a.action, es)
		}
		delete(byAction, a.action)
	}
	delete(byAction, gpucost.AuditTokenCreate) // startViewServer's tokens
	if len(byAction) > 0 {
		t.Errorf("audit trail holds %+v besides the writes'", byAction)
	}
}

// checkAgainstOpenAPI checks the JSON answer out of op with status against the schema
// httpapi/openapi.json gives it.
func checkAgainstOpenAPI(t *testing.T, what, op string, status int, out []byte) {
	t.Helper()
	s := openAPIAnswer(t, op, status)
	if s == nil {
		t.Errorf("%s = %d with a JSON body; httpapi/openapi.json gives %s's %d no application/json schema", what, status, op, status)
		return
	}
	validateJSON(t, what, "httpapi/openapi.json", s, out)
}

// openAPIAnswer is the schema httpapi/openapi.json gives the JSON answer of op with status, its
// references resolved; nil where it gives none.
func openAPIAnswer(t *testing.T, op string, status int) jsonschema.Schema {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "httpapi", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	method, path, _ := strings.Cut(op, " ")
	var answer any = dig(doc, "paths", path, strings.ToLower(method), "responses", strconv.Itoa(status))
	answer = resolveRefs(t, doc, answer, 0)
	s, _ := dig(answer, "content", "application/json", "schema").(map[string]any)
	return s
}

// dig follows keys down nested JSON objects; nil where one is missing.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

// resolveRefs returns v with each {"$ref": "#/components/…"} replaced by what it names.
func resolveRefs(t *testing.T, doc map[string]any, v any, depth int) any {
	t.Helper()
	if depth > 32 {
		t.Fatalf("openapi.json: references nest past 32 deep")
	}
	switch v := v.(type) {
	case map[string]any:
		if ref, ok := v["$ref"].(string); ok {
			target := dig(doc, strings.Split(strings.TrimPrefix(ref, "#/"), "/")...)
			if target == nil {
				t.Errorf("openapi.json: $ref %s names nothing", ref)
			}
			return resolveRefs(t, doc, target, depth+1)
		}
		out := map[string]any{}
		for k, c := range v {
			out[k] = resolveRefs(t, doc, c, depth+1)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, c := range v {
			out[i] = resolveRefs(t, doc, c, depth+1)
		}
		return out
	}
	return v
}
