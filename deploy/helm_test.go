package deploy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"go.yaml.in/yaml/v3"
)

// chartDir is the chart, relative to this package.
const chartDir = "helm/gpucost"

// helmPath returns helm, or skips (fails under CI=true) naming how to install it.
func helmPath(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("helm")
	if err != nil {
		msg := "helm is not installed; to run this test: go install helm.sh/helm/v3/cmd/helm@v3.22.0"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return bin
}

// helm runs helm with args and returns its standard output, failing the test on an error.
func helm(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	out, err := helmRun(bin, args...)
	if err != nil {
		t.Fatalf("helm %s: %v", strings.Join(args, " "), err)
	}
	return out
}

func helmRun(bin string, args ...string) ([]byte, error) {
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+os.TempDir()+"/gpucost-helm-cache", "HELM_CONFIG_HOME="+os.TempDir()+"/gpucost-helm-config")
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%w\n%s%s", err, stderr.Bytes(), out)
	}
	return out, nil
}

// object is one rendered Kubernetes object.
type object map[string]any

func (o object) kind() string { return str(o["kind"]) }
func (o object) name() string { return str(get(o, "metadata", "name")) }

// get walks maps by key and lists by index ("0").
func get(v any, path ...string) any {
	for _, k := range path {
		switch m := v.(type) {
		case map[string]any:
			v = m[k]
		case object:
			v = m[k]
		case []any:
			var i int
			if _, err := fmt.Sscan(k, &i); err != nil || i >= len(m) {
				return nil
			}
			v = m[i]
		default:
			return nil
		}
	}
	return v
}

func str(v any) string {
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

// parseObjects reads a multi-document YAML stream.
func parseObjects(t *testing.T, b []byte) []object {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var out []object
	for {
		var o object
		err := dec.Decode(&o)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("parse rendered manifests: %v", err)
		}
		if o != nil {
			out = append(out, o)
		}
	}
}

// rendered is the chart rendered with one example values file.
type rendered struct {
	name    string
	objects []object
}

func (r rendered) find(kind, suffix string) object {
	for _, o := range r.objects {
		if o.kind() == kind && strings.HasSuffix(o.name(), suffix) {
			return o
		}
	}
	return nil
}

func (r rendered) all(kind string) []object {
	var out []object
	for _, o := range r.objects {
		if o.kind() == kind {
			out = append(out, o)
		}
	}
	return out
}

// renderExamples lints and renders the chart with its default values and each file of
// examples/.
func renderExamples(t *testing.T) []rendered {
	t.Helper()
	bin := helmPath(t)
	files, err := filepath.Glob(filepath.Join(chartDir, "examples", "*.yaml"))
	if err != nil || len(files) < 3 {
		t.Fatalf("examples: %v, %d files; want sqlite-single, postgres-replicas and agent-only", err, len(files))
	}
	var out []rendered
	for _, f := range append([]string{""}, files...) {
		args := []string{chartDir}
		name := "default values"
		if f != "" {
			args = append(args, "-f", f)
			name = filepath.Base(f)
		}
		helm(t, bin, append([]string{"lint", "--strict"}, args...)...)
		b := helm(t, bin, append([]string{"template", "gpucost", "--namespace", "gpucost"}, args...)...)
		out = append(out, rendered{name: name, objects: parseObjects(t, b)})
	}
	return out
}

// TestChartExamples lints and renders the chart with each example values file and checks what
// every install needs: containers locked down, resources set, the server probed on /healthz
// and /readyz, secrets referenced (never inlined), the agent on GPU nodes only.
func TestChartExamples(t *testing.T) {
	for _, r := range renderExamples(t) {
		t.Run(r.name, func(t *testing.T) {
			if len(r.all("Secret")) > 0 {
				t.Errorf("%s: the chart renders a Secret; tokens and URLs come from Secrets the user creates", r.name)
			}
			workloads := append(r.all("Deployment"), r.all("DaemonSet")...)
			if len(workloads) == 0 {
				t.Fatalf("%s: no Deployment or DaemonSet rendered", r.name)
			}
			for _, w := range workloads {
				checkPod(t, r.name, w)
			}
			if s := r.find("Deployment", "-server"); s != nil {
				checkServer(t, r.name, r, s)
			}
			if a := r.find("DaemonSet", "-agent"); a != nil {
				checkAgent(t, r.name, a)
			}
			checkRBAC(t, r.name, r)
		})
	}
}

// checkPod checks the pod security context and every container's security context and
// resources.
func checkPod(t *testing.T, file string, w object) {
	t.Helper()
	pod := get(w, "spec", "template", "spec")
	if get(pod, "securityContext", "runAsNonRoot") != true {
		t.Errorf("%s: %s %s: pod securityContext.runAsNonRoot is not true", file, w.kind(), w.name())
	}
	containers := list(get(pod, "containers"))
	if len(containers) == 0 {
		t.Fatalf("%s: %s %s has no containers", file, w.kind(), w.name())
	}
	for _, c := range containers {
		where := fmt.Sprintf("%s: %s %s container %s", file, w.kind(), w.name(), str(get(c, "name")))
		sc := get(c, "securityContext")
		for key, want := range map[string]any{"runAsNonRoot": true, "readOnlyRootFilesystem": true, "allowPrivilegeEscalation": false} {
			if got := get(sc, key); got != want {
				t.Errorf("%s: securityContext.%s = %v, want %v", where, key, got, want)
			}
		}
		if get(sc, "privileged") == true {
			t.Errorf("%s: privileged", where)
		}
		if !slices.Contains(list(get(sc, "capabilities", "drop")), any("ALL")) {
			t.Errorf("%s: securityContext.capabilities.drop = %v, want ALL", where, get(sc, "capabilities", "drop"))
		}
		if len(list(get(sc, "capabilities", "add"))) > 0 {
			t.Errorf("%s: adds capabilities %v", where, get(sc, "capabilities", "add"))
		}
		for _, kind := range []string{"requests", "limits"} {
			for _, res := range []string{"cpu", "memory"} {
				if str(get(c, "resources", kind, res)) == "" {
					t.Errorf("%s: resources.%s.%s is not set", where, kind, res)
				}
			}
		}
		if !strings.HasPrefix(str(get(c, "image")), "ghcr.io/gpucost/gpucost:") {
			t.Errorf("%s: image %v", where, get(c, "image"))
		}
		for _, e := range list(get(c, "env")) {
			if n := str(get(e, "name")); (n == "GPUCOST_TOKEN" || n == "GPUCOST_DB") && get(e, "value") != nil {
				t.Errorf("%s: env %s has an inline value; it must come from a Secret", where, n)
			}
		}
	}
}

// envSecret returns the Secret name and key the container's env variable reads.
func envSecret(c any, name string) (string, string) {
	for _, e := range list(get(c, "env")) {
		if str(get(e, "name")) == name {
			return str(get(e, "valueFrom", "secretKeyRef", "name")), str(get(e, "valueFrom", "secretKeyRef", "key"))
		}
	}
	return "", ""
}

func args(c any) []string {
	var out []string
	for _, a := range list(get(c, "args")) {
		out = append(out, str(a))
	}
	return out
}

func checkServer(t *testing.T, file string, r rendered, d object) {
	t.Helper()
	c := get(d, "spec", "template", "spec", "containers", "0")
	for probe, path := range map[string]string{"livenessProbe": "/healthz", "readinessProbe": "/readyz"} {
		if got := str(get(c, probe, "httpGet", "path")); got != path {
			t.Errorf("%s: server %s path = %q, want %q", file, probe, got, path)
		}
		if got := str(get(c, probe, "httpGet", "port")); got != "http" {
			t.Errorf("%s: server %s port = %q, want the http port", file, probe, got)
		}
	}
	a := args(c)
	if len(a) == 0 || a[0] != "serve" || !slices.Contains(a, "--listen=0.0.0.0:8080") {
		t.Errorf("%s: server args %q, want serve --listen=0.0.0.0:8080", file, a)
	}
	replicas := str(get(d, "spec", "replicas"))
	secret, key := envSecret(c, "GPUCOST_DB")
	pvc := r.find("PersistentVolumeClaim", "-store")
	if secret != "" { // PostgreSQL
		if secret != "gpucost-postgres" || key != "url" {
			t.Errorf("%s: GPUCOST_DB from Secret %s key %s, want gpucost-postgres key url", file, secret, key)
		}
		if pvc != nil || slices.ContainsFunc(a, func(s string) bool { return strings.HasPrefix(s, "--db") }) {
			t.Errorf("%s: a PostgreSQL server with a SQLite claim or a --db argument: %q", file, a)
		}
		if !slices.Contains(a, "--wal=/var/lib/gpucost-wal") {
			t.Errorf("%s: server args %q: the write-ahead log is not on its volume", file, a)
		}
		return
	}
	if replicas != "1" || str(get(d, "spec", "strategy", "type")) != "Recreate" {
		t.Errorf("%s: SQLite server with %s replicas and strategy %v; want 1 and Recreate", file, replicas, get(d, "spec", "strategy"))
	}
	if pvc == nil || !slices.Contains(a, "--db=/var/lib/gpucost/gpucost.db") {
		t.Errorf("%s: SQLite server without its claim or --db=/var/lib/gpucost/gpucost.db: %q", file, a)
	}
}

func checkAgent(t *testing.T, file string, d object) {
	t.Helper()
	pod := get(d, "spec", "template", "spec")
	c := get(pod, "containers", "0")
	if secret, key := envSecret(c, "GPUCOST_TOKEN"); secret != "gpucost-ingest" || key != "token" {
		t.Errorf("%s: agent GPUCOST_TOKEN from Secret %q key %q, want gpucost-ingest key token", file, secret, key)
	}
	if str(get(pod, "nodeSelector", "nvidia.com/gpu.present")) != "true" {
		t.Errorf("%s: agent nodeSelector %v, want nvidia.com/gpu.present: true", file, get(pod, "nodeSelector"))
	}
	tolerates := false
	for _, tol := range list(get(pod, "tolerations")) {
		tolerates = tolerates || (str(get(tol, "key")) == "nvidia.com/gpu" && str(get(tol, "operator")) == "Exists")
	}
	if !tolerates {
		t.Errorf("%s: agent tolerations %v, want nvidia.com/gpu Exists", file, get(pod, "tolerations"))
	}
	if str(get(c, "resources", "limits", "nvidia.com/gpu")) != "" {
		t.Errorf("%s: the agent requests a GPU; it watches them through NVIDIA_VISIBLE_DEVICES", file)
	}
	a := args(c)
	if len(a) == 0 || a[0] != "agent" || !slices.ContainsFunc(a, func(s string) bool { return strings.HasPrefix(s, "--server=http") }) {
		t.Errorf("%s: agent args %q, want agent --server=URL", file, a)
	}
}

// enforcementVerbs reads the Kubernetes requests enforce/kube makes (Client.do calls) and
// returns the RBAC rules they need, resource → verbs: a GET of a collection path is list, of
// the Deployment itself get; PATCH is patch; a path ending in /scale is deployments/scale.
func enforcementVerbs(t *testing.T) map[string][]string {
	t.Helper()
	src, err := os.ReadFile("../enforce/kube/kube.go")
	if err != nil {
		t.Fatal(err)
	}
	calls := regexp.MustCompile(`k\.do\(ctx, http\.Method(\w+), ([^,]+),`).FindAllStringSubmatch(string(src), -1)
	if len(calls) == 0 {
		t.Fatal("enforce/kube/kube.go: no k.do(ctx, http.MethodX, path, …) calls found; update enforcementVerbs")
	}
	verbOf := map[string]string{"Get": "get", "Patch": "patch", "Post": "create", "Put": "update", "Delete": "delete"}
	out := map[string][]string{}
	for _, c := range calls {
		verb, path := verbOf[c[1]], c[2]
		if verb == "get" && !strings.Contains(path, "base") {
			verb = "list"
		}
		res := "deployments"
		if strings.Contains(path, `"/scale"`) {
			res = "deployments/scale"
		}
		if !slices.Contains(out[res], verb) {
			out[res] = append(out[res], verb)
		}
	}
	for _, v := range out {
		slices.Sort(v)
	}
	return out
}

// checkRBAC checks the roles grant exactly the verbs enforcement uses, and exist only with it.
func checkRBAC(t *testing.T, file string, r rendered) {
	t.Helper()
	roles := append(r.all("ClusterRole"), r.all("Role")...)
	enforcing := false
	if d := r.find("Deployment", "-server"); d != nil {
		enforcing = slices.ContainsFunc(args(get(d, "spec", "template", "spec", "containers", "0")), func(s string) bool { return strings.HasPrefix(s, "--policies") })
	}
	if !enforcing {
		if len(roles) > 0 {
			t.Errorf("%s: %d roles rendered without enforcement", file, len(roles))
		}
		return
	}
	if len(roles) == 0 {
		t.Fatalf("%s: enforcement without a role", file)
	}
	want := enforcementVerbs(t)
	for _, role := range roles {
		got := map[string][]string{}
		for _, rule := range list(role["rules"]) {
			if groups := list(get(rule, "apiGroups")); len(groups) != 1 || groups[0] != "apps" {
				t.Errorf("%s: %s %s: apiGroups %v, want [apps]", file, role.kind(), role.name(), groups)
			}
			for _, res := range list(get(rule, "resources")) {
				for _, v := range list(get(rule, "verbs")) {
					got[str(res)] = append(got[str(res)], str(v))
				}
			}
		}
		for _, v := range got {
			slices.Sort(v)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: %s %s grants %v; enforce/kube uses %v", file, role.kind(), role.name(), got, want)
		}
	}
	if len(r.all("ClusterRoleBinding"))+len(r.all("RoleBinding")) != len(roles) {
		t.Errorf("%s: %d roles but %d bindings", file, len(roles), len(r.all("ClusterRoleBinding"))+len(r.all("RoleBinding")))
	}
}

// TestChartRefusesSQLiteReplicas checks the chart refuses settings that cannot work, naming
// the value to change.
func TestChartRefusesSQLiteReplicas(t *testing.T) {
	bin := helmPath(t)
	for _, c := range []struct{ set, want string }{
		{"server.replicas=2", "server.replicas > 1 needs server.store.type: postgres"},
		{"server.store.type=mysql", `server.store.type "mysql": use sqlite or postgres`},
		{"server.enabled=false", "agent.enabled without server.enabled needs agent.serverURL"},
	} {
		_, err := helmRun(bin, "template", "gpucost", chartDir, "--set", c.set)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("helm template --set %s: %v, want an error saying %q", c.set, err, c.want)
		}
	}
}

// TestManifestsUpToDate checks deploy/manifests/gpucost.yaml is the chart rendered with its
// default values (make manifests writes it).
func TestManifestsUpToDate(t *testing.T) {
	bin := helmPath(t)
	want := append([]byte(manifestsHeader), helm(t, bin, "template", "gpucost", chartDir, "--namespace", "gpucost")...)
	got, err := os.ReadFile("manifests/gpucost.yaml")
	if err != nil {
		t.Fatalf("%v: run make manifests", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("deploy/manifests/gpucost.yaml is not the chart rendered with its default values: run make manifests")
	}
}

// manifestsHeader starts deploy/manifests/gpucost.yaml; the Makefile's manifests target writes
// the same lines.
const manifestsHeader = `# gpucost for kubectl apply, rendered from deploy/helm/gpucost with its default values by
# make manifests (helm template gpucost deploy/helm/gpucost --namespace gpucost); do not edit.
# Before applying: kubectl create namespace gpucost and the ingest token's Secret (docs/deploy.md).
`

// TestChartArgsParse runs the static gpucost with each rendered container's arguments and
// --help, so a flag the chart passes that gpucost does not know fails here, not in a
// crash-looping pod.
func TestChartArgsParse(t *testing.T) {
	bin := filepath.Join(staticBinaries(t), "gpucost")
	for _, r := range renderExamples(t) {
		for _, w := range append(r.all("Deployment"), r.all("DaemonSet")...) {
			for _, c := range list(get(w, "spec", "template", "spec", "containers")) {
				a := args(c)
				cmd := exec.Command(bin, append(a, "--help")...)
				cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+t.TempDir())
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("%s: %s %s: gpucost %s --help: %v\n%s", r.name, w.kind(), w.name(), strings.Join(a, " "), err, out)
				}
			}
		}
	}
}

// TestChartWiring runs what the chart's default values render: the server with its rendered
// arguments (its paths moved under a temporary folder, listening on a free port), answering
// its probes' paths; then the agent with its rendered arguments, pointed at that server with an
// ingest token as the Secret would give it and a demo source for GPUs, until the server has
// accepted its samples.
func TestChartWiring(t *testing.T) {
	bin := filepath.Join(staticBinaries(t), "gpucost")
	var r rendered
	for _, x := range renderExamples(t) {
		if x.name == "default values" {
			r = x
		}
	}
	server := get(r.find("Deployment", "-server"), "spec", "template", "spec", "containers", "0")
	agent := get(r.find("DaemonSet", "-agent"), "spec", "template", "spec", "containers", "0")
	dir := t.TempDir()
	env := append(os.Environ(), "XDG_DATA_HOME="+dir, "GPUCOST_DB=")
	var serveArgs []string
	for _, a := range args(server) {
		a = strings.Replace(a, "=/var/lib/gpucost/", "="+dir+"/", 1)
		if strings.HasPrefix(a, "--listen=") {
			a = "--listen=127.0.0.1:0"
		}
		serveArgs = append(serveArgs, a)
	}
	db := filepath.Join(dir, "gpucost.db")
	if !slices.Contains(serveArgs, "--db="+db) {
		t.Fatalf("server args %q: want --db under /var/lib/gpucost", args(server))
	}
	viewer := createToken(t, bin, env, db, gpucost.RoleViewer)
	ingest := createToken(t, bin, env, db, gpucost.RoleIngest)
	base := "http://" + startGpucost(t, bin, env, serveArgs...)
	for _, probe := range []string{"livenessProbe", "readinessProbe", "startupProbe"} {
		httpGet(t, base+str(get(server, probe, "httpGet", "path")), "")
	}

	var agentArgs []string
	for _, a := range args(agent) {
		switch {
		case strings.HasPrefix(a, "--source="):
			a = "--source=demo:2"
		case strings.HasPrefix(a, "--interval="):
			a = "--interval=500ms"
		case strings.HasPrefix(a, "--server="):
			a = "--server=" + base
		}
		agentArgs = append(agentArgs, a)
	}
	agentEnv := append(env, "GPUCOST_TOKEN="+ingest)
	var logs strings.Builder
	var mu sync.Mutex
	startProcess(t, bin, agentEnv, agentArgs, func(line string) {
		mu.Lock()
		logs.WriteString(line + "\n")
		mu.Unlock()
	})
	accepted := regexp.MustCompile(`(?m)^gpucost_ingest_samples_total\{result="accepted"\} ([1-9][0-9]*)`)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		if m := accepted.FindSubmatch(httpGet(t, base+"/metrics", viewer)); m != nil {
			t.Logf("the server accepted %s samples from gpucost %s", m[1], strings.Join(agentArgs, " "))
			return
		}
		if time.Now().After(deadline) {
			mu.Lock()
			defer mu.Unlock()
			t.Fatalf("gpucost %s: no sample accepted by the server within 30s; agent log:\n%s", strings.Join(agentArgs, " "), logs.String())
		}
	}
}
