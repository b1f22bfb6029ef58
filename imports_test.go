package gpucost_test

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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
	"catalog":  {"."},
	"queue":    {"."},
	"notify":   {"."},
	"sqlite":   {".", "internal/storeutil"},
	"postgres": {".", "internal/storeutil"},
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
