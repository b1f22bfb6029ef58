package httpapi

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
)

type openAPIDoc struct {
	OpenAPI string                                 `json:"openapi"`
	Paths   map[string]map[string]openAPIOperation `json:"paths"`
}

type openAPIOperation struct {
	Security  []map[string][]string `json:"security"`
	Roles     []string              `json:"x-gpucost-roles"`
	Responses map[string]any        `json:"responses"`
}

// TestOpenAPICoversRoutes checks that the document describes exactly the routes served, with
// the same roles, and that every endpoint needing a token documents 401 (and 403 where a role
// may be refused).
func TestOpenAPICoversRoutes(t *testing.T) {
	var doc openAPIDoc
	if err := json.Unmarshal(OpenAPI(), &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1") {
		t.Errorf("openapi = %q; want 3.1", doc.OpenAPI)
	}
	documented := map[string]bool{}
	for path, ops := range doc.Paths {
		for method := range ops {
			documented[strings.ToUpper(method)+" "+path] = true
		}
	}
	s := &Server{}
	for _, rt := range s.routes() {
		key := rt.method + " " + rt.path
		if !documented[key] {
			t.Errorf("route %s is not in openapi.json", key)
			continue
		}
		delete(documented, key)
		op := doc.Paths[rt.path][strings.ToLower(rt.method)]
		if rt.roles == nil {
			if op.Security == nil || len(op.Security) != 0 {
				t.Errorf("%s needs no token; openapi.json must say security: []", key)
			}
			continue
		}
		var want []string
		for _, r := range rt.roles {
			want = append(want, string(r))
		}
		want = append(want, "admin")
		if !slices.Equal(op.Roles, want) {
			t.Errorf("%s x-gpucost-roles = %v; the route allows %v", key, op.Roles, want)
		}
		if len(op.Security) == 0 || op.Responses["401"] == nil {
			t.Errorf("%s needs a token; openapi.json must name the token security and a 401", key)
		}
		if len(want) < 3 && op.Responses["403"] == nil {
			t.Errorf("%s refuses some roles; openapi.json must document 403", key)
		}
	}
	for key := range documented {
		t.Errorf("openapi.json describes %s, which is not served", key)
	}
}

func TestOpenAPIServed(t *testing.T) {
	f := newFixture(t)
	status, out := f.do(t, "GET", "/api/openapi.json", "", nil)
	if status != http.StatusOK || !json.Valid(out) || !strings.Contains(string(out), "/api/v1/samples") {
		t.Errorf("GET /api/openapi.json = %d, %d bytes", status, len(out))
	}
}
