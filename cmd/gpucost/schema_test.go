package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/internal/jsonschema"
)

// schemaDir holds the JSON Schemas of the outputs, one file per command or API response;
// go test ./cmd/gpucost -run TestSchemas -update writes them from the Go types.
var schemaDir = filepath.Join("..", "..", "docs", "schema")

// outputSchemas are the API responses, each from the Go type it encodes, with the files in
// testdata that hold one (goldens). The commands' schemas are TestSchemasCommands'.
var outputSchemas = []struct {
	name    string
	typ     reflect.Type
	goldens []string
}{
	{name: "api-overview", typ: reflect.TypeFor[httpapi.OverviewResponse](), goldens: []string{"api-overview"}},
	{name: "api-gpus", typ: reflect.TypeFor[httpapi.GPUsResponse](), goldens: []string{"api-gpus-namespace"}},
	{name: "api-utilization", typ: reflect.TypeFor[httpapi.HeatmapResponse](), goldens: []string{"api-utilization-host"}},
	{name: "api-costs", typ: reflect.TypeFor[httpapi.CostsResponse](), goldens: []string{"api-costs-team", "api-allocations-namespace-serving"}},
	{name: "api-idle", typ: reflect.TypeFor[httpapi.IdleResponse](), goldens: []string{"api-idle"}},
	{name: "api-alerts", typ: reflect.TypeFor[httpapi.AlertsResponse](), goldens: []string{"api-alerts"}},
	{name: "api-recommendations", typ: reflect.TypeFor[httpapi.RecommendationsResponse](), goldens: []string{"api-recommendations"}},
	{name: "api-recommendations-detected", typ: reflect.TypeFor[httpapi.DetectedResponse](), goldens: []string{"api-recommendations-detected"}},
	{name: "api-budgets", typ: reflect.TypeFor[httpapi.BudgetsResponse](), goldens: []string{"api-budgets"}},
	{name: "api-jobs", typ: reflect.TypeFor[httpapi.JobsResponse](), goldens: []string{"api-jobs"}},
	{name: "api-queues", typ: reflect.TypeFor[httpapi.QueuesResponse](), goldens: []string{"api-queues"}},
}

// schemaJSON is the schema file's text.
func schemaJSON(t *testing.T, name string, typ reflect.Type) []byte {
	t.Helper()
	b, err := json.MarshalIndent(jsonschema.For("gpucost "+strings.ReplaceAll(name, "-", " "), typ), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// loadSchema reads a checked-in schema.
func loadSchema(t *testing.T, name string) jsonschema.Schema {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(schemaDir, name+".json"))
	if err != nil {
		t.Fatalf("%v: go test ./cmd/gpucost -run TestSchemas -update writes it", err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s.json: %v", name, err)
	}
	return s
}

// TestSchemasUpToDate: the checked-in schemas are what the Go types give now, and the API
// golden files validate against theirs.
func TestSchemasUpToDate(t *testing.T) {
	all := outputSchemas
	for _, a := range apiSchemas {
		all = append(all, struct {
			name    string
			typ     reflect.Type
			goldens []string
		}{a.name, a.typ, nil})
	}
	for _, o := range all {
		want := schemaJSON(t, o.name, o.typ)
		path := filepath.Join(schemaDir, o.name+".json")
		if *update {
			if err := os.MkdirAll(schemaDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is not what %v gives (%v): go test ./cmd/gpucost -run TestSchemas -update", path, o.typ, err)
			continue
		}
		s := loadSchema(t, o.name)
		for _, g := range o.goldens {
			b, err := os.ReadFile(filepath.Join("testdata", g+".golden.json"))
			if err != nil {
				t.Fatal(err)
			}
			checkAgainstSchema(t, g+".golden.json", o.name, s, b)
		}
	}
}

// checkAgainstSchema checks the JSON b, which what printed, against docs/schema/NAME.json (s).
func checkAgainstSchema(t *testing.T, what, name string, s jsonschema.Schema, b []byte) {
	t.Helper()
	validateJSON(t, what, "docs/schema/"+name+".json", s, b)
}

// validateJSON checks the JSON b, which what printed, against s, read from the file where;
// it names the first ten differences.
func validateJSON(t *testing.T, what, where string, s jsonschema.Schema, b []byte) {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	errs := jsonschema.Validate(s, v)
	for i, err := range errs {
		if i == 10 {
			t.Errorf("%s: … and %d more", what, len(errs)-i)
			break
		}
		t.Errorf("%s against %s: %v", what, where, err)
	}
}
