package deploy

import (
	"bufio"
	"go/version"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// instruction is one Dockerfile instruction, its continuation lines joined.
type instruction struct {
	cmd  string // upper case: FROM, ARG, ENV, …
	args string
}

// readDockerfile reads the repository's Dockerfile into its instructions, comments left out.
func readDockerfile(t *testing.T) []instruction {
	t.Helper()
	f, err := os.Open("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ins []instruction
	var cur string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if s, ok := strings.CutSuffix(line, `\`); ok {
			cur += s + " "
			continue
		}
		cur += line
		cmd, args, _ := strings.Cut(cur, " ")
		ins = append(ins, instruction{strings.ToUpper(cmd), strings.TrimSpace(args)})
		cur = ""
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return ins
}

// stages splits instructions at each FROM; stages[0] holds the global ARGs before the first.
func stages(ins []instruction) [][]instruction {
	st := [][]instruction{nil}
	for _, in := range ins {
		if in.cmd == "FROM" {
			st = append(st, nil)
		}
		st[len(st)-1] = append(st[len(st)-1], in)
	}
	return st
}

// argDefaults returns the stage's ARG defaults by name.
func argDefaults(st []instruction) map[string]string {
	m := map[string]string{}
	for _, in := range st {
		if in.cmd == "ARG" {
			name, def, _ := strings.Cut(in.args, "=")
			m[name] = def
		}
	}
	return m
}

// TestDockerfileBases checks that docker build . still pulls the upstream bases (the build
// arguments hack/dockerfile-build.sh sets only replace them), and that the builder's Go is
// not older than go.mod asks: golang's image sets GOTOOLCHAIN=local, so go build would refuse.
func TestDockerfileBases(t *testing.T) {
	st := stages(readDockerfile(t))
	if len(st) != 3 {
		t.Fatalf("Dockerfile has %d stages, want 2 (build and runtime)", len(st)-1)
	}
	global := argDefaults(st[0])
	for name, want := range map[string]string{
		"GOLANG_IMAGE":     "golang:${GO_VERSION}-trixie",
		"DISTROLESS_IMAGE": "gcr.io/distroless/base-debian13:nonroot",
	} {
		if global[name] != want {
			t.Errorf("Dockerfile ARG %s default %q, want %q", name, global[name], want)
		}
	}
	if got := st[1][0].args; got != "${GOLANG_IMAGE} AS build" {
		t.Errorf("Dockerfile first FROM %q, want ${GOLANG_IMAGE} AS build", got)
	}
	if got := st[2][0].args; got != "${DISTROLESS_IMAGE}" {
		t.Errorf("Dockerfile second FROM %q, want ${DISTROLESS_IMAGE}", got)
	}

	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	goVersion := global["GO_VERSION"]
	if !version.IsValid("go"+goVersion) || version.Compare("go"+goVersion, "go"+string(m[1])) < 0 {
		t.Errorf("Dockerfile ARG GO_VERSION=%s, go.mod says go %s: raise GO_VERSION to at least go.mod's",
			goVersion, m[1])
	}
}

// TestDockerfileRuntime checks the runtime stage against what the daemonless image and the
// Helm chart expect of it: nonroot, gpucost as entrypoint, the NVIDIA runtime's variables,
// the OCI labels.
func TestDockerfileRuntime(t *testing.T) {
	st := stages(readDockerfile(t))
	rt := st[len(st)-1]
	var user, entrypoint string
	var env, labels []string
	for _, in := range rt {
		switch in.cmd {
		case "USER":
			user = in.args
		case "ENTRYPOINT":
			entrypoint = in.args
		case "ENV":
			env = append(env, strings.Fields(in.args)...)
		case "LABEL":
			for _, f := range strings.Fields(in.args) {
				if k, _, ok := strings.Cut(f, "="); ok {
					labels = append(labels, k)
				}
			}
		}
	}
	if user != "65532:65532" {
		t.Errorf("Dockerfile USER %q, want 65532:65532", user)
	}
	if entrypoint != `["/usr/local/bin/gpucost"]` {
		t.Errorf("Dockerfile ENTRYPOINT %s, want [\"/usr/local/bin/gpucost\"]", entrypoint)
	}
	for _, e := range []string{"NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_DRIVER_CAPABILITIES=utility", "XDG_DATA_HOME=/tmp"} {
		if !slices.Contains(env, e) {
			t.Errorf("Dockerfile runtime ENV %q lacks %s", env, e)
		}
	}
	for _, l := range []string{"org.opencontainers.image.title", "org.opencontainers.image.source", "org.opencontainers.image.version"} {
		if !slices.Contains(labels, l) {
			t.Errorf("Dockerfile runtime LABELs %q lack %s", labels, l)
		}
	}
}

// TestDockerignore checks that .dockerignore keeps what the build reads and leaves out build
// outputs and stores in every folder, not only at the root: its patterns, unlike
// .gitignore's, match from the root only unless they start with **/.
func TestDockerignore(t *testing.T) {
	b, err := os.ReadFile("../.dockerignore")
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			patterns = append(patterns, line)
		}
	}
	// A pattern leaves out what it matches and all below it; **/ matches any folders.
	matches := func(pat, p string) bool {
		if ok, _ := path.Match(pat, p); ok {
			return true
		}
		if rest, ok := strings.CutPrefix(pat, "**/"); ok {
			parts := strings.Split(p, "/")
			for i := range parts {
				if ok, _ := path.Match(rest, strings.Join(parts[i:], "/")); ok {
					return true
				}
			}
		}
		return false
	}
	ignored := func(p string) bool {
		parts := strings.Split(p, "/")
		for k := 1; k <= len(parts); k++ {
			for _, pat := range patterns {
				if matches(pat, strings.Join(parts[:k], "/")) {
					return true
				}
			}
		}
		return false
	}
	for _, keep := range []string{"go.mod", "go.sum", "third_party/parquet-go/go.mod", "cmd/gpucost/main.go",
		"cmd/gpucost-queue-server/main.go", "catalog/data", "web/static", "sqlite/migrations"} {
		if ignored(keep) {
			t.Errorf(".dockerignore leaves out %s, which docker build needs", keep)
		}
	}
	for _, drop := range []string{".git", "bin/gpucost", "gpucost", "demo.db", "sqlite/x.db", "web/web.test",
		"cmd/gpucost/cpu.prof", "hack/bench-duckdb/node_modules/x"} {
		if !ignored(drop) {
			t.Errorf(".dockerignore sends %s to docker build", drop)
		}
	}
}
