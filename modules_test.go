package gpucost_test

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

var updateModules = flag.Bool("update-modules", false, "rewrite docs/modules.txt from the gpucost binary's dependencies")

// modulesFile lists the modules the gpucost binary links, one "path version" a line: a new
// dependency of the binary is a visible decision, made by changing this file with it
// (docs/architecture.md "Chosen dependencies").
const modulesFile = "docs/modules.txt"

// modulesCommand is how the list is made, for the Linux build with cgo (NVML) that the release
// is; test-only modules are not in it.
const modulesCommand = `go list -deps -f '{{with .Module}}{{.Path}} {{.Version}}{{end}}' ./cmd/gpucost | sort -u`

// TestModules fails when the modules the gpucost binary links differ from docs/modules.txt,
// naming those added and removed.
func TestModules(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command on PATH to list the binary's modules: %v", err)
	}
	cmd := exec.Command(goCmd, "list", "-deps", "-f", "{{with .Module}}{{.Path}} {{.Version}}{{end}}", "./cmd/gpucost")
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=amd64", "CGO_ENABLED=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", modulesCommand, err, stderr.String())
	}
	var got []string
	for _, line := range strings.Split(string(out), "\n") {
		if line = strings.TrimSpace(line); line != "" && line != module {
			got = append(got, line)
		}
	}
	slices.Sort(got)
	got = slices.Compact(got)
	if len(got) < 10 {
		t.Fatalf("%s found %d modules: %q; want the binary's whole list", modulesCommand, len(got), got)
	}
	text := strings.Join(got, "\n") + "\n"
	if *updateModules {
		if err := os.WriteFile(modulesFile, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(modulesFile)
	if err != nil {
		t.Fatalf("%v: write it with go test -run TestModules -update-modules .", err)
	}
	want := strings.Split(strings.TrimSpace(string(b)), "\n")
	added, removed := difference(got, want), difference(want, got)
	if len(added) > 0 || len(removed) > 0 {
		t.Errorf("the gpucost binary's modules differ from %s:\n  added:   %s\n  removed: %s\n"+
			"If the change is meant, check what it adds with make size, say why in docs/architecture.md \"Chosen dependencies\" "+
			"and rewrite the list: go test -run TestModules -update-modules .",
			modulesFile, strings.Join(added, ", "), strings.Join(removed, ", "))
	}
}

// difference returns the lines of a that b lacks.
func difference(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}
