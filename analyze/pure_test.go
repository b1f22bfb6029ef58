package analyze

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPure keeps the package pure: it imports the standard library and the root package only
// (no adapter, catalog or store), does no I/O and reads no clock.
func TestPure(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("list the package's files: %v (%d files)", err, len(files))
	}
	io := map[string]bool{"os": true, "os/exec": true, "net": true, "net/http": true, "io/fs": true, "database/sql": true}
	clock := map[string]bool{"Now": true, "Since": true, "Until": true, "Sleep": true, "After": true, "Tick": true,
		"NewTimer": true, "NewTicker": true}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatalf("parse %s: %v", name, err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			first, _, _ := strings.Cut(path, "/")
			if path != "github.com/gpucost/gpucost" && strings.Contains(first, ".") || io[path] {
				t.Errorf("%s imports %s: analyze imports only the standard library and the root package, and does no I/O", name, path)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "time" && clock[sel.Sel.Name] {
					t.Errorf("%s: time.%s: analyze reads no clock; take the time as an argument", fset.Position(n.Pos()), sel.Sel.Name)
				}
			}
			return true
		})
	}
}
