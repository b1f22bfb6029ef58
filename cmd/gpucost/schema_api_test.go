package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/httpapi"
)

// apiSchemas are the schemas of the API responses outputSchemas does not hold: the activity,
// audit, imports and applied-steps reads, whoami, the health checks and the writes' answers,
// each from the Go type its handler writes. TestSchemasUpToDate keeps them current with the
// others.
var apiSchemas = []struct {
	name string
	typ  reflect.Type
}{
	{"api-actions", reflect.TypeFor[httpapi.ActionsResponse]()},
	{"api-deliveries", reflect.TypeFor[httpapi.DeliveriesResponse]()},
	{"api-audit", reflect.TypeFor[httpapi.AuditResponse]()},
	{"api-imports", reflect.TypeFor[httpapi.ImportsResponse]()},
	{"api-bill-sources", reflect.TypeFor[httpapi.BillSourcesResponse]()},
	{"api-recommendations-realized", reflect.TypeFor[fleet.RealizedReport]()},
	{"api-whoami", reflect.TypeFor[gpucost.Token]()},
	{"api-health", reflect.TypeFor[map[string]string]()},
	{"api-samples", reflect.TypeFor[httpapi.SamplesResponse]()},
	{"api-bills", reflect.TypeFor[httpapi.BillImport]()},
	{"api-bills-remove", reflect.TypeFor[httpapi.BillImport]()},
	{"api-recommendations-apply", reflect.TypeFor[gpucost.AppliedStep]()},
	{"api-error", reflect.TypeFor[httpapi.ErrorBody]()},
}

// apiRoute is one API operation ("GET /api/v1/gpus"), its answer's schema and how to get one.
type apiRoute struct {
	op, name string
	path     string
	role     gpucost.Role
	why      string
}

// apiRoutes are the API's operations, as httpapi/openapi.json lists them, with the schema of
// their JSON answer and a request that gets one on the 3-day demo store (path "" where none
// does in this test: the schema then stands on the type alone, and why says so).
var apiRoutes = []apiRoute{
	{"GET /healthz", "api-health", "/healthz", "", ""},
	{"GET /readyz", "api-health", "/readyz", "", ""},
	{"GET /api/v1/whoami", "api-whoami", "/api/v1/whoami", gpucost.RoleViewer, ""},
	{"GET /api/v1/overview", "api-overview", "/api/v1/overview", gpucost.RoleViewer, ""},
	{"GET /api/v1/gpus", "api-gpus", "/api/v1/gpus?by=namespace&since=3d", gpucost.RoleViewer, ""},
	{"GET /api/v1/utilization", "api-utilization", "/api/v1/utilization?by=host&since=6h&limit=2", gpucost.RoleViewer, ""},
	{"GET /api/v1/costs", "api-costs", "/api/v1/costs?by=team&since=3d", gpucost.RoleViewer, ""},
	{"GET /api/v1/allocations", "api-costs", "/api/v1/allocations?by=namespace&since=3d", gpucost.RoleViewer, ""},
	{"GET /api/v1/idle", "api-idle", "/api/v1/idle?since=3d&limit=3", gpucost.RoleViewer, ""},
	{"GET /api/v1/alerts", "api-alerts", "/api/v1/alerts?since=6h&limit=3", gpucost.RoleViewer, ""},
	{"GET /api/v1/recommendations", "api-recommendations", "/api/v1/recommendations?since=3d&limit=3", gpucost.RoleViewer, ""},
	{"GET /api/v1/recommendations/detected", "api-recommendations-detected", "/api/v1/recommendations/detected", gpucost.RoleViewer, ""},
	{"GET /api/v1/recommendations/realized", "api-recommendations-realized", "/api/v1/recommendations/realized", gpucost.RoleViewer, ""},
	{"GET /api/v1/budgets", "api-budgets", "/api/v1/budgets", gpucost.RoleViewer, ""},
	{"GET /api/v1/jobs", "api-jobs", "/api/v1/jobs", gpucost.RoleViewer, ""},
	{"GET /api/v1/queues", "api-queues", "/api/v1/queues", gpucost.RoleViewer, ""},
	{"GET /api/v1/imports", "api-imports", "/api/v1/imports", gpucost.RoleViewer, ""},
	{"GET /api/v1/actions", "api-actions", "/api/v1/actions?since=30d", gpucost.RoleViewer, ""},
	{"GET /api/v1/deliveries", "api-deliveries", "/api/v1/deliveries?since=30d", gpucost.RoleViewer, ""},
	{"GET /api/v1/audit", "api-audit", "/api/v1/audit?since=30d", gpucost.RoleAdmin, ""},
	{"GET /api/v1/bill-sources", "api-bill-sources", "", "", "answers only a server started with --pull-bills: TestSchemasAPIBillSources checks it"},
	{"PUT /api/v1/budgets", "api-budgets", "", "", writesChecked},
	{"POST /api/v1/samples", "api-samples", "", "", writesChecked},
	{"POST /api/v1/bills", "api-bills", "", "", writesChecked},
	{"DELETE /api/v1/bills/{id}", "api-bills-remove", "", "", writesChecked},
	{"POST /api/v1/recommendations/{id}/apply", "api-recommendations-apply", "", "", writesChecked},
}

// writesChecked is why a write operation gets no request here: TestSchemasAPIWrites makes it.
const writesChecked = "a write: TestSchemasAPIWrites checks its answers"

// apiNoSchema are the operations with no JSON answer.
var apiNoSchema = map[string]string{
	"GET /api/openapi.json": "the OpenAPI document itself",
	"GET /metrics":          "Prometheus' text format",
}

// TestSchemasAPI walks httpapi/openapi.json: every operation has a schema in docs/schema or says
// why it has none, and the answers this test can get from a server on the 3-day demo store
// validate against their schemas.
func TestSchemasAPI(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "httpapi", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var ops []string
	for p, methods := range doc.Paths {
		for m := range methods {
			ops = append(ops, strings.ToUpper(m)+" "+p)
		}
	}
	slices.Sort(ops)
	for _, op := range ops {
		if _, ok := apiNoSchema[op]; ok {
			continue
		}
		i := slices.IndexFunc(apiRoutes, func(r apiRoute) bool { return r.op == op })
		if i < 0 {
			t.Errorf("%s has no schema: add it to apiRoutes (and its type to apiSchemas or outputSchemas), or say why in apiNoSchema", op)
			continue
		}
		if _, err := os.Stat(filepath.Join(schemaDir, apiRoutes[i].name+".json")); err != nil {
			t.Errorf("%s: %v: go test ./cmd/gpucost -run TestSchemas -update writes it", op, err)
		}
	}
	dir := loadDemo(t)
	s := startViewServer(t, filepath.Join(dir, "gpucost.db"), serveOptions{flush: time.Second, viewsEvery: time.Minute, maxBill: 1 << 20})
	for _, r := range apiRoutes {
		if r.path == "" {
			if r.why == "" {
				t.Errorf("%s: give the request that gets its answer, or why there is none", r.op)
			}
			continue
		}
		method, _, _ := strings.Cut(r.op, " ")
		status, out := s.do(t, method, r.path, r.role, nil)
		if status != http.StatusOK {
			t.Errorf("%s %s = %d %s", method, r.path, status, out)
			continue
		}
		checkAgainstSchema(t, method+" "+r.path, r.name, loadSchema(t, r.name), out)
		checkAgainstOpenAPI(t, method+" "+r.path, r.op, status, out)
	}
}
