package gpucost_test

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/gpucost/gpucost"

// importRules are docs/architecture.md's "Packages and what they import", as a test: for each
// package, the gpucost packages its non-test files may import. A package not listed may import
// any but cmd/gpucost, which nothing imports.
var importRules = map[string][]string{
	".":        {},
	"analyze":  {"."},
	"plan":     {"."},
	"fleet":    {".", "analyze", "catalog", "recommend"},
	"query":    {".", "analyze", "catalog", "fleet", "plan", "recommend"},
	"catalog":  {"."},
	"queue":    {"."},
	"notify":   {"."},
	"sqlite":   {".", "internal/storeutil"},
	"postgres": {".", "internal/storeutil"},

	"internal/storeutil": {"."},
	"internal/exitcode":  {"."},
	"queue/natsserver":   {"."},

	"cmd/gpucost-queue-server": {"queue", "queue/natsserver"},

	// storeopen is the one place that knows the kinds of store a --db, --store or --results value names.
	"internal/storeopen": {".", "file", "postgres", "s3", "sqlite"},
	// telemetry/source opens the collector a --source value names: the demo fleet among them.
	"telemetry/source": {".", "demo", "telemetry/dcgm", "telemetry/nvidiasmi", "telemetry/nvml", "telemetry/promql"},

	// server assembles gpucost serve from the packages its views, bill upload, budgets,
	// alerts, write-ahead log and enforcer need; never cmd, the stores or the NATS server.
	"server": {".", "agent", "analyze", "billing", "billing/billimport", "billing/cloudsource", "budget", "budget/alert", "catalog",
		"enforce", "fleet", "httpapi", "notify", "present", "query", "queue", "recommend", "spot", "telemetry",
		"telemetry/wal", "web"},
}

// TestImportRules fails when a package imports what docs/architecture.md says it must not: the
// root only the standard library, the pure packages only the root, nothing cmd/gpucost.
func TestImportRules(t *testing.T) {
	imports := packageImports(t)
	if len(imports) < 20 {
		t.Fatalf("found %d packages; want the whole tree", len(imports))
	}
	for pkg, deps := range imports {
		allowed, ruled := importRules[pkg]
		for _, d := range deps {
			own, ok := strings.CutPrefix(d, module)
			if !ok {
				if pkg == "." && strings.Contains(strings.SplitN(d, "/", 2)[0], ".") {
					t.Errorf("the root package imports %s: it may import the standard library only", d)
				}
				continue
			}
			own = strings.TrimPrefix(own, "/")
			if own == "" {
				own = "."
			}
			if strings.HasPrefix(own, "cmd/") {
				t.Errorf("%s imports %s: nothing imports cmd", pkg, own)
			}
			if ruled && !slices.Contains(allowed, own) {
				t.Errorf("%s imports %s; docs/architecture.md allows it %v", pkg, own, allowed)
			}
		}
	}
}

// packageImports returns the imports of the non-test files of every package in the tree, by
// path relative to the module ("." for the root).
func packageImports(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		p, err := build.Default.ImportDir(path, 0)
		if _, none := err.(*build.NoGoError); none {
			return nil
		}
		if err != nil {
			return err
		}
		out[filepath.ToSlash(path)] = p.Imports
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return out
}

// storePackages are the packages that may hold SQL, under their folders: the stores, what they
// share, their suite and their test helpers (docs/architecture.md "Packages and what they
// import").
var storePackages = []string{"sqlite", "postgres", "internal/storeutil", "internal/storetest"}

func isStorePackage(pkg string) bool {
	return slices.ContainsFunc(storePackages, func(p string) bool { return pkg == p || strings.HasPrefix(pkg, p+"/") })
}

// TestStoresImportNoFeature fails when a store reaches a feature package (enforce, notify,
// telemetry, budget, queue, spot …) through any chain of imports: the stores keep the root
// package's types, and the features use the stores through the root's contract.
func TestStoresImportNoFeature(t *testing.T) {
	imports := packageImports(t)
	allowed := []string{".", "internal/storeutil", "sqlite", "postgres"}
	for _, store := range []string{"sqlite", "postgres"} {
		for pkg, via := range ownDeps(imports, store) {
			if !slices.Contains(allowed, pkg) {
				t.Errorf("%s reaches %s (through %s); a store may import %v only", store, pkg, via, allowed[:2])
			}
		}
	}
}

// TestAPIDoesNotLinkNATSServer fails when the gpucost binary, the API server, the dashboard or
// the server's assembly reaches a package that imports the NATS server: they read queues
// through package queue, and only cmd/gpucost-queue-server runs the server (queue/natsserver),
// which gpucost queue serve starts (docs/architecture.md "Binary size").
func TestAPIDoesNotLinkNATSServer(t *testing.T) {
	imports := packageImports(t)
	for _, pkg := range []string{"cmd/gpucost", "httpapi", "web", "server"} {
		deps := ownDeps(imports, pkg)
		deps[pkg] = pkg
		for dep, via := range deps {
			for _, imp := range imports[dep] {
				if strings.HasPrefix(imp, "github.com/nats-io/nats-server") {
					t.Errorf("%s links the NATS server: %s (reached through %s) imports %s", pkg, dep, via, imp)
				}
			}
		}
	}
}

// ownDeps returns the gpucost packages pkg imports, directly or not, each with the package
// that imports it first on the way.
func ownDeps(imports map[string][]string, pkg string) map[string]string {
	out := map[string]string{}
	queue := []string{pkg}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, imp := range imports[p] {
			own, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			own = cmpOr(strings.TrimPrefix(own, "/"), ".")
			if _, seen := out[own]; !seen && own != pkg {
				out[own] = p
				queue = append(queue, own)
			}
		}
	}
	return out
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// sqlText matches the SQL a Go string literal holds: a statement, or a condition of a WHERE
// clause built piece by piece (" AND at_ns >= "). Keywords are matched in capitals, as
// gpucost's SQL writes them, so prose that names a keyword does not match.
var sqlText = regexp.MustCompile(`\bSELECT\b[^"]*\bFROM\s+[a-z_]|\bINSERT\s+INTO\b|\b(CREATE|ALTER|DROP)\s+(TABLE|INDEX)\b|` +
	`\bUPDATE\s+[a-z_]+\s+SET\b|\bDELETE\s+FROM\b|\bWHERE\s+[a-z_(]|^\s*AND\s+[a-z_(]+[a-z_, 0-9]*\s*(=|>|<|IN\b)`)

func TestSQLText(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"SELECT id, at_ns FROM audit WHERE 1=1", true},
		{"INSERT INTO deliveries(key) VALUES (?)", true},
		{"CREATE TABLE IF NOT EXISTS schema_migrations (", true},
		{"DELETE FROM revoked_sessions WHERE expires_ns < ?", true},
		{" AND at_ns >= ", true},
		{" AND substr(action, 1, ", false}, // half a condition: the whole one is below
		{" AND (actor = ", true},
		{"export every column of the table (SELECT *), flattening records", false},
		{"check that PostgreSQL runs there and the --db URL's host", false},
		{"Select the rows that match", false},
	} {
		if got := sqlText.MatchString(tc.s); got != tc.want {
			t.Errorf("sqlText.MatchString(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

// TestNoSQLOutsideStores fails when a non-test Go file outside the store packages holds SQL in
// a string literal: queries belong to the stores, behind the root package's contract.
func TestNoSQLOutsideStores(t *testing.T) {
	fset := token.NewFileSet()
	scanned := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" || isStorePackage(filepath.ToSlash(path))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		scanned++
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && sqlText.MatchString(s) {
				t.Errorf("%s holds SQL %.60q: move it into a store package (%s)", fset.Position(lit.Pos()), s, strings.Join(storePackages, ", "))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if scanned < 100 {
		t.Fatalf("scanned %d files; want the whole tree", scanned)
	}
}

// pureIOFree are the packages that decide without touching the world: the analyses, the
// planners, the recommender, the application core (fleet), its queries of a period (query) and
// the presentation of results. Time, files, stores and writers come in as arguments.
var pureIOFree = []string{"analyze", "plan", "recommend", "fleet", "query", "present", "spotrisk"}

// ioImports are the standard packages that reach outside the process.
var ioImports = []string{"os", "os/exec", "os/signal", "net", "net/http", "database/sql", "syscall", "io/ioutil", "path/filepath", "log", "log/slog", "runtime"}

// clockCalls are the functions that read the clock or wait on it.
var clockCalls = []string{"Now", "Since", "Until", "Sleep", "After", "AfterFunc", "Tick", "NewTicker", "NewTimer"}

// TestPurePackagesDoNoIOAndReadNoClock fails when a pure package (docs/architecture.md
// "Packages and what they import") imports a package that reaches outside the process or calls
// the clock: their results depend on their arguments only, so every report, the API and the
// demo get the same figures from the same inputs.
func TestPurePackagesDoNoIOAndReadNoClock(t *testing.T) {
	imports := packageImports(t)
	for _, pkg := range pureIOFree {
		deps, ok := imports[pkg]
		if !ok {
			t.Errorf("pure package %s not found", pkg)
			continue
		}
		for _, d := range deps {
			if slices.Contains(ioImports, d) {
				t.Errorf("%s imports %s: a pure package does no I/O; take what it reads or writes as an argument", pkg, d)
			}
		}
		files, err := filepath.Glob(filepath.Join(pkg, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, call := range clockUses(file) {
				t.Errorf("%s uses %s: a pure package reads no clock; take the time as an argument", f, call)
			}
		}
	}
}

// clockUses returns the clock calls in file ("time.Now" …), whatever name it imports time by.
func clockUses(file *ast.File) []string {
	timeName := ""
	for _, im := range file.Imports {
		if path, _ := strconv.Unquote(im.Path.Value); path == "time" {
			timeName = "time"
			if im.Name != nil {
				timeName = im.Name.Name
			}
		}
	}
	if timeName == "" {
		return nil
	}
	var uses []string
	ast.Inspect(file, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == timeName && slices.Contains(clockCalls, sel.Sel.Name) {
				uses = append(uses, "time."+sel.Sel.Name)
			}
		}
		return true
	})
	return uses
}

// TestClockCheckCatches makes sure the clock check can fail: calls under another import name
// are found, and a time.Duration or time.Time is not a clock read.
func TestClockCheckCatches(t *testing.T) {
	src := "package p\nimport clock \"time\"\nvar x = clock.Now()\nvar d clock.Duration = clock.Hour\nfunc f(t clock.Time) { clock.Sleep(d) }\n"
	file, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := clockUses(file); !slices.Equal(got, []string{"time.Now", "time.Sleep"}) {
		t.Errorf("clockUses = %v, want [time.Now time.Sleep]", got)
	}
}
