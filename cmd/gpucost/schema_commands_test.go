package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost/internal/jsonschema"
	"github.com/gpucost/gpucost/present"
	"github.com/gpucost/gpucost/queue/natsserver"
	"github.com/spf13/cobra"
)

// Every command's --output json has a schema in docs/schema, named after the command
// ("report cost" is report-cost.json), checked twice by TestSchemasCommands on the 3-day demo
// store: the JSON each documented example prints (the README's and every --help's, as
// TestDocExamples runs them, and schemaRuns) validates against the committed file, and the
// committed file is what the printed values' Go types and tables' columns give now
// (docs/architecture.md "Output conventions"). A command left without a schema fails it.

// schemaRuns are command lines, beyond the documented examples, that print a command's JSON on
// the demo store and example files: the commands no example runs, and shapes none shows.
var schemaRuns = []string{
	"gpucost bills periods",
	"gpucost import remove 1",
	"gpucost bills remove 2",
	"gpucost token create --name ci --role viewer",
	"gpucost recommend applied",
	"gpucost budget check --file budgets.yaml --targets hooks.yaml --dry-run",
	"gpucost report jobs --store $EVENTS",
	"gpucost report spot --store $EVENTS",
	"gpucost queue push --queue q items.jsonl",
	"gpucost queue status --queue q",
	"gpucost queue dead --queue q",
}

// noSchema are the commands whose output no schema describes, and why.
var noSchema = map[string]string{
	"gpucost serve":           "serves the dashboard and the API until stopped; its responses have api-*.json",
	"gpucost agent":           "samples GPUs and sends them until stopped; it prints logs, not a result",
	"gpucost run":             "runs a training command; it prints the command's own output",
	"gpucost queue serve":     "serves a queue until stopped",
	"gpucost queue work":      "works a queue until stopped; it prints the commands' own output",
	"gpucost demo":            "serves the dashboard until stopped (demo --no-serve prints its tables)",
	"gpucost profile":         "profiles a command on a GPU, which the tests do not have",
	"gpucost catalog refresh": "reads the providers' price APIs",
	"gpucost enforce undo":    "acts on AWS or Kubernetes",
	"gpucost token revoke":    "prints no result: a line on stderr names the token revoked",
	"gpucost queue results":   "prints the stored results' own text, as the queue's command wrote it",
}

// tableCapture is a command's stdout that keeps the tables written to it as JSON
// (present.TableSink).
type tableCapture struct {
	bytes.Buffer
	tables []present.Table
}

func (c *tableCapture) WroteTable(t present.Table) { c.tables = append(c.tables, t) }

// schemaNow is the clock of TestSchemasCommands' runs, the demo's among them, so that what they
// print, and so the schemas their values give, is the same at any hour: a Wednesday at 00:00
// UTC, when the demo's off-hours policy triggers.
func schemaNow() time.Time { return time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC) }

// schemaRun is one command line run with --output json.
type schemaRun struct {
	where, line string
	command     string // its command's path, "gpucost report cost"
	out         string
	tables      []present.Table
}

// runJSON runs line in the current directory as runExample does, the last command of an
// "a && b" line (unless it writes a file) with --output json; the store in $GPUCOST_DB is
// demo.db. It returns the exit code and the JSON run, nil where the line printed no JSON: a
// command that exits with a code of its own after printing (enforce's 7) has its JSON run.
func runJSON(t *testing.T, root *cobra.Command, where, line string) (int, *schemaRun) {
	t.Helper()
	parts := strings.Split(exampleCommand(line), "&&")
	var got *schemaRun
	for i, part := range parts {
		part = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(part), "&"))
		redirect := ""
		if j := strings.Index(part, " > "); j >= 0 {
			part, redirect = part[:j], strings.TrimSpace(part[j+3:])
		}
		var args []string
		for _, w := range exampleWords(t, part) {
			if m, _ := filepath.Glob(w); strings.Contains(w, "*") && len(m) > 0 {
				args = append(args, m...)
				continue
			}
			args = append(args, w)
		}
		args = args[1:]
		asJSON := i == len(parts)-1 && redirect == ""
		if asJSON {
			args = append([]string{"--output", "json"}, args...)
		}
		out := &tableCapture{}
		var errb bytes.Buffer
		e := &env{stdin: strings.NewReader(""), stdout: out, stderr: &errb, now: schemaNow,
			getenv: func(k string) string {
				switch k {
				case "GPUCOST_DB":
					return "demo.db"
				case "GPUCOST_NATS":
					return os.Getenv("GPUCOST_TEST_NATS")
				}
				return ""
			}}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		code := run(ctx, args, e)
		cancel()
		if redirect != "" {
			if err := os.WriteFile(redirect, out.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if asJSON && len(out.tables) > 0 { // enforce exits 7 with its plan printed
			c, _, err := root.Find(args[2:])
			if err != nil {
				t.Fatalf("%s: %s: %v", where, part, err)
			}
			got = &schemaRun{where: where, line: part, command: c.CommandPath(), out: out.String(), tables: out.tables}
		}
		if code != exitOK {
			t.Logf("%s: %s: exit %d: %s", where, part, code, errb.String())
			return code, got
		}
	}
	return exitOK, got
}

// runnableCommands returns the path of every command of root that runs: the leaves, and the
// groups whose own run prints a result rather than help (probe).
func runnableCommands(root *cobra.Command, probe func(path string) bool) []string {
	var out []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		switch {
		case c.Hidden || c.Name() == "help" || c.Name() == "completion":
		case !c.HasSubCommands():
			out = append(out, c.CommandPath())
		case c.HasParent() && probe(c.CommandPath()):
			out = append(out, c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return out
}

// schemaName is the file name of a command's schema: "gpucost report cost" is report-cost.
func schemaName(command string) string {
	return strings.ReplaceAll(strings.TrimPrefix(command, "gpucost "), " ", "-")
}

// tableSchema describes what --output json printed for t: its JSON value, or its rows.
func tableSchema(t present.Table) jsonschema.Schema {
	if t.JSON != nil {
		s := jsonschema.Describe("", t.JSON)
		delete(s, "$schema")
		delete(s, "title")
		return jsonschema.Open(s)
	}
	props, required := jsonschema.Schema{}, []string{}
	for _, c := range present.RowColumns(t) {
		switch {
		case c.Kind == "number" && c.Words, c.Kind == "figure":
			props[c.Key] = jsonschema.Schema{"type": []any{"number", "string", "null"}}
		case c.Kind == "number":
			props[c.Key] = jsonschema.Schema{"type": []any{"number", "null"}}
		case c.Kind == "decimal" && c.Words:
			props[c.Key] = jsonschema.Schema{"type": []any{"string", "null"}}
		case c.Kind == "decimal":
			props[c.Key] = jsonschema.Schema{"type": []any{"string", "null"}, "pattern": jsonschema.DecimalPattern}
		default:
			props[c.Key] = jsonschema.Schema{"type": "string"}
		}
		required = append(required, c.Key)
	}
	slices.Sort(required)
	return jsonschema.Schema{"type": "array", "items": jsonschema.Schema{"type": "object", "properties": props,
		"required": required, "additionalProperties": false}}
}

// commandSchema merges what the runs of one command printed into its schema: each printed
// document's schema merged across the runs, and several documents as the forms one may take.
func commandSchema(command string, runs []*schemaRun) jsonschema.Schema {
	var docs []jsonschema.Schema
	for _, r := range runs {
		for i, t := range r.tables {
			if i < len(docs) {
				docs[i] = jsonschema.Merge(docs[i], tableSchema(t))
			} else {
				docs = append(docs, tableSchema(t))
			}
		}
	}
	s := docs[0]
	if len(docs) > 1 {
		forms := make([]any, len(docs))
		for i, d := range docs {
			forms[i] = d
		}
		s = jsonschema.Schema{"description": "one JSON document after another, each of one of these forms", "anyOf": forms}
	}
	s["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	s["title"] = command + " --output json"
	return s
}

// decodeAll decodes the JSON documents of out, one after another.
func decodeAll(out string) ([]any, error) {
	dec := json.NewDecoder(strings.NewReader(out))
	var docs []any
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return docs, err
		}
		docs = append(docs, v)
	}
}

func TestSchemasCommands(t *testing.T) {
	readme := readmeExamples(t)
	fixtures := exampleFixtures(t)
	schemas, err := filepath.Abs(schemaDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	for name, data := range fixtures {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root := newRootCmd(&env{getenv: func(string) string { return "" }, now: time.Now})
	if code, _ := runJSON(t, root, "demo", "gpucost demo --days 3 --no-serve --db demo.db"); code != exitOK {
		t.Fatalf("demo: exit %d", code)
	}
	if pools, err := os.ReadFile("demo-serving.yaml"); err != nil || os.WriteFile("serving.yaml", pools, 0o644) != nil {
		t.Fatalf("the demo's serving pools: %v", err)
	}
	runs := map[string][]*schemaRun{}
	add := func(where, line string) {
		if skip, _ := skipReason(line); skip != "" {
			return
		}
		if _, r := runJSON(t, root, where, line); r != nil {
			runs[r.command] = append(runs[r.command], r)
		}
	}
	for _, x := range append(readme, helpExamples(root)...) {
		add(x.where, x.line)
	}
	nats, err := natsserver.Start(natsserver.Options{DataDir: t.TempDir(), Listen: "127.0.0.1:-1"})
	if err != nil {
		t.Fatal(err)
	}
	defer nats.Shutdown()
	t.Setenv("GPUCOST_TEST_NATS", nats.URL())
	if err := os.WriteFile("items.jsonl", []byte(`{"id":"a","text":"one"}`+"\nnot json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The targets of budgets.yaml as webhooks that need no secret; a dry run sends nothing.
	hooks := "targets:\n"
	for _, name := range []string{"finops-slack", "finops-webhook", "research-leads", "cto-email"} {
		hooks += "  " + name + ":\n    webhook:\n      url: http://127.0.0.1:9/" + name + "\n      secret: not-a-secret\n"
	}
	if err := os.WriteFile("hooks.yaml", []byte(hooks), 0o644); err != nil {
		t.Fatal(err)
	}
	events := writeRunEvents(t)
	for _, line := range schemaRuns {
		line = strings.ReplaceAll(line, "$EVENTS", events)
		if _, r := runJSON(t, root, "schemaRuns", line); r != nil {
			runs[r.command] = append(runs[r.command], r)
		} else {
			t.Errorf("schemaRuns: %s printed no JSON; change it to a line that does", line)
		}
	}
	commands := runnableCommands(root, func(path string) bool {
		// A group prints its help and exits 0; a command that runs prints a result or
		// refuses to run without its flags.
		code, r := runJSON(t, root, "probe", path)
		return r != nil || code != exitOK || len(runs[path]) > 0
	})
	t.Run("current", func(t *testing.T) {
		for _, c := range commands {
			if why, ok := noSchema[c]; ok {
				if len(runs[c]) > 0 {
					t.Errorf("%s prints JSON, yet noSchema says %q: take it out of noSchema", c, why)
				}
				continue
			}
			if len(runs[c]) == 0 {
				t.Errorf("no example or schemaRuns line prints %s --output json on the demo store: add one to its --help or schemaRuns, or say why in noSchema", c)
				continue
			}
			b, err := json.MarshalIndent(commandSchema(c, runs[c]), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			want := append(b, '\n')
			path := filepath.Join(schemas, schemaName(c)+".json")
			if *update {
				if err := os.WriteFile(path, want, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
				t.Errorf("docs/schema/%s.json is not what %s --output json writes now (%v): go test ./cmd/gpucost -run TestSchemas -update rewrites it; read the diff before committing it",
					schemaName(c), c, err)
			}
		}
	})
	t.Run("csv", func(t *testing.T) {
		for _, c := range slices.Sorted(maps.Keys(runs)) {
			for _, r := range runs[c] {
				for _, tab := range r.tables {
					checkCSVCells(t, r.where+": "+r.line, tab)
				}
			}
		}
	})
	t.Run("valid", func(t *testing.T) {
		for _, c := range slices.Sorted(maps.Keys(runs)) {
			b, err := os.ReadFile(filepath.Join(schemas, schemaName(c)+".json"))
			if err != nil {
				t.Errorf("%s has no schema: %v", c, err)
				continue
			}
			var s jsonschema.Schema
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatalf("docs/schema/%s.json: %v", schemaName(c), err)
			}
			for _, r := range runs[c] {
				docs, err := decodeAll(r.out)
				if err != nil || len(docs) != len(r.tables) {
					t.Errorf("%s: %s --output json: %d JSON documents for %d tables (%v)", r.where, r.line, len(docs), len(r.tables), err)
				}
				for _, d := range docs {
					errs := jsonschema.Validate(s, d)
					for i, err := range errs {
						if i == 5 {
							t.Errorf("… and %d more", len(errs)-i)
							break
						}
						t.Errorf("%s: %s --output json against docs/schema/%s.json: %v", r.where, r.line, schemaName(c), err)
					}
				}
			}
		}
	})
}

// unitCell matches a cell that still shows a unit: money, a percentage, a size, a power, a
// temperature or a Go duration, which CSV writes as a plain number with the unit in the header.
var unitCell = regexp.MustCompile(`^[-−]?\$[0-9]|^[-−]?[0-9][0-9,.]*( ?%| GiB| GB| MiB| W| °C)$|^-?([0-9]+(\.[0-9]+)?(h|m|s|ms|µs))+$`)

// checkCSVCells writes t as --output csv does and fails on a header that is not snake_case and
// on a cell that shows its unit: CSV cells are plain numbers, units in the header
// (docs/architecture.md "Output conventions").
func checkCSVCells(t *testing.T, what string, tab present.Table) {
	t.Helper()
	if len(tab.Columns) == 0 {
		return // a result with no table: --output csv writes nothing
	}
	var out, notes bytes.Buffer
	if err := present.Write(&out, &notes, "csv", tab); err != nil {
		t.Errorf("%s: --output csv: %v", what, err)
		return
	}
	recs, err := csv.NewReader(&out).ReadAll()
	if err != nil || len(recs) == 0 {
		t.Errorf("%s: --output csv: %d records, %v", what, len(recs), err)
		return
	}
	for _, h := range recs[0] {
		if !snakeKey.MatchString(h) {
			t.Errorf("%s: --output csv: header %q is not snake_case", what, h)
		}
	}
	for _, rec := range recs[1:] {
		for j, cell := range rec {
			if unitCell.MatchString(cell) {
				t.Errorf("%s: --output csv: %s = %q shows its unit; write the plain number, the unit in the header", what, recs[0][j], cell)
			}
		}
	}
}
