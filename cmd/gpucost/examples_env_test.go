package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// exampleRewrites are the only words of examples that a test changes before it runs them: each
// names a place outside the test's directory, where a test must not write or that it cannot
// reach, and becomes a place inside it. "{dir}" is the test's directory.
var exampleRewrites = []struct{ old, new, why string }{
	{"/tmp/demo.db", "demo.db", "the store the demo example builds in /tmp is the 3-day demo store the test builds"},
	{"/tmp/try.db", "try.db", "a test writes only in its own directory"},
	{"/scratch/ckpt", "scratch/ckpt", "a test writes only in its own directory"},
	{"/data/captions", "data/captions", "a test writes only in its own directory"},
	{"/var/lib/gpucost/", "var/lib/gpucost/", "the service's data directory needs root; the test's stands in"},
	{"http://prometheus:9090", "{prometheus}", "the host prometheus is the test's Prometheus on loopback (startExamplePrometheus): rewritten twice, to the placeholder and then to its URL"},
	{"file:///mnt/nfs/jobs", "file://{dir}/nfs-jobs", "the shared jobs store is a directory of the test's (exampleSetups fills it)"},
	{"https://10.0.0.1:6443", "{kube}", "the cluster at 10.0.0.1 is internal/fakecloud's Kubernetes API on loopback (awsExamples starts it): rewritten twice, to the placeholder and then to its URL"},
	{"/var/run/secrets/kubernetes.io/serviceaccount/token", "var/run/secrets/kubernetes.io/serviceaccount/token", "the pod's service account token is a file of the test's (awsExamples writes it)"},
}

// rewriteExample returns line with exampleRewrites made, inside the test's directory dir.
func rewriteExample(line, dir string) string {
	for _, r := range exampleRewrites {
		line = strings.ReplaceAll(line, r.old, strings.ReplaceAll(r.new, "{dir}", dir))
	}
	return line
}

// exampleSetups prepare what an example names before it runs, by the start of its command:
// setup returns the environment it runs in over the demo's, and starts the loopback servers it
// names (stopped when it ends).
var exampleSetups = []struct {
	prefix string
	setup  func(t *testing.T, dir string) (environ map[string]string, stop func())
}{
	// Each removes import 12 of a store of its own where import 12 is the one bill left.
	{"gpucost import remove 12", storeWithImport12},
	{"gpucost bills remove 12", storeWithImport12},
	// Each imports bills the demo store does not hold into a new store, as a user's first import.
	{"gpucost import billing --format aws-cur exports/", newStore},
	{"gpucost import billing exports/", newStore},
	{"gpucost import billing jan.csv feb.csv mar.csv", newStore},
	{"gpucost import billing azure://", newStore}, // the tour imported the account's bill by hand
	// A DCGM exporter on the port the examples name, serving one recorded scrape.
	{"gpucost agent --source dcgm=http://localhost:9400/metrics", dcgmExporter},
	// The step the example forgets, recorded as applied first, as its user did.
	{"gpucost recommend applied --remove research-p3.8xlarge/spot/spot-g6e.2xlarge", recordedStep},
	// The results store the example reads, filled before the work example that fills it runs.
	{"gpucost queue results --results data/captions --id img-0042", queueResultsFilled},
	// The Azure Retail Prices API where --base-url points, answering its recorded pages.
	{"gpucost catalog refresh --provider azure --base-url http://localhost:8080", azurePrices},
}

// setupExample runs line's setup, if any, and returns the environment to add.
func setupExample(t *testing.T, line, dir string) (map[string]string, func()) {
	t.Helper()
	for _, s := range exampleSetups {
		if strings.HasPrefix(exampleCommand(line), s.prefix) {
			return s.setup(t, dir)
		}
	}
	return nil, func() {}
}

var newStoreN int

// newStore gives the example a store of its own with nothing in it yet.
func newStore(t *testing.T, dir string) (map[string]string, func()) {
	newStoreN++
	return map[string]string{"GPUCOST_DB": filepath.Join(dir, fmt.Sprintf("new-%d.db", newStoreN))}, func() {}
}

// storeWithImport12 gives the example a new store whose import 12 is the Azure EA bill: the
// bill imported and removed eleven times before, import IDs never being used twice.
func storeWithImport12(t *testing.T, dir string) (map[string]string, func()) {
	t.Helper()
	env, _ := newStore(t, dir)
	bill := filepath.Join(dir, "azure_amortized.csv")
	for id := 1; id <= 12; id++ {
		if code, out := runExampleEnv(t, "gpucost import billing "+bill, env); code != exitOK {
			t.Fatalf("import %d of %s: exit %d\n%s", id, bill, code, out)
		}
		if id == 12 {
			break
		}
		if code, out := runExampleEnv(t, fmt.Sprintf("gpucost import remove %d", id), env); code != exitOK {
			t.Fatalf("import remove %d: exit %d\n%s", id, code, out)
		}
	}
	return env, func() {}
}

// recordedStep records the 3-day demo plan's step research-p3.8xlarge/spot/spot-g6e.2xlarge as
// applied in the demo store, for the example that forgets it.
func recordedStep(t *testing.T, dir string) (map[string]string, func()) {
	t.Helper()
	line := "gpucost recommend apply research-p3.8xlarge/spot/spot-g6e.2xlarge"
	if code, out := runExampleEnv(t, line, nil); code != exitOK {
		t.Fatalf("%s: exit %d\n%s", line, code, out)
	}
	return nil, func() {}
}

// listenAt serves h on addr for the example, or fails the test naming who holds the port.
func listenAt(t *testing.T, addr string, h http.Handler) func() {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("the example names %s, which is taken: %v", addr, err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(l)
	return func() { srv.Close() }
}

func dcgmExporter(t *testing.T, dir string) (map[string]string, func()) {
	scrape, err := os.ReadFile(filepath.Join(dir, "scrapes/kops_aws_L4.prom"))
	if err != nil {
		t.Fatal(err)
	}
	return nil, listenAt(t, "127.0.0.1:9400", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		w.Write(scrape)
	}))
}

func azurePrices(t *testing.T, dir string) (map[string]string, func()) {
	return nil, listenAt(t, "127.0.0.1:8080", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := "page1.json"
		if r.URL.Query().Get("$skip") == "100" {
			name = "page2.json"
		}
		http.ServeFile(w, r, filepath.Join(dir, "azureprices", name))
	}))
}

// servingExamples are the examples that serve or sample until stopped, by the start of their
// command: each is started, found ready, stopped as Ctrl-C stops it, and must then exit 0 with
// its output matching after.
var servingExamples = []struct {
	prefix string
	ready  func() func(out string) bool // a new check for each run
	after  string                       // a regular expression its output matches once stopped
}{
	{"gpucost serve --db gpucost.db --listen 127.0.0.1:8080", answersAt("http://127.0.0.1:8080/readyz"), ""},
	{"gpucost serve --db var/lib/gpucost/gpucost.db --listen 0.0.0.0:8080", answersAt("http://127.0.0.1:8080/readyz"), ""},
	{"gpucost serve --budgets budgets.yaml --targets targets.yaml --check-every 15m", answersAt("http://127.0.0.1:8080/readyz"), ""},
	{"gpucost serve --jobs-store s3://my-bucket/jobs --targets targets.yaml", answersAt("http://127.0.0.1:8080/readyz"), ""},
	{"gpucost serve --pull-bills sources.yaml", answersAt("http://127.0.0.1:8080/readyz"), ""},
	{"gpucost serve --budgets budgets.yaml --targets targets.yaml --policies policies.yaml", printedAt("enforcement run"), `enforcement action done.*policy=spot-cap action=stop resource=i-spot3`},
	{"gpucost serve --tls-cert cert.pem --tls-key key.pem --listen 0.0.0.0:8443", answersAt("https://127.0.0.1:8443/readyz"), ""},
	{"gpucost queue serve", printedAt("queue server listening at"), ""},
	{"gpucost queue work --queue captions", func() func(string) bool { return printedThenWaited("", 2*time.Second) }, ` done, `},
	{"gpucost queue work --queue q --results out/", func() func(string) bool { return printedThenWaited("", time.Second) }, ` done, `},
	{"gpucost agent --source demo:8", func() func(string) bool { return printedThenWaited("agent started", 1200*time.Millisecond) }, `agent stopped.* samples=[1-9]`},
	{"gpucost agent --source dcgm=", func() func(string) bool { return printedThenWaited("agent started", 1200*time.Millisecond) }, `agent stopped.* samples=[1-9]`},
}

// servingExample returns how to find line's command ready, or nil where it ends by itself.
func servingExample(line string) (ready func(string) bool, after string, ok bool) {
	for _, s := range servingExamples {
		if strings.HasPrefix(exampleCommand(line), s.prefix) {
			return s.ready(), s.after, true
		}
	}
	return nil, "", false
}

// printedAt returns a readiness check for each run: the output shows said.
func printedAt(said string) func() func(string) bool {
	return func() func(string) bool { return func(out string) bool { return strings.Contains(out, said) } }
}

// answersAt returns answers(url) for each run.
func answersAt(url string) func() func(string) bool {
	return func() func(string) bool { return answers(url) }
}

// answers returns a readiness check: url answers 200 OK (any certificate: the test's own).
func answers(url string) func(string) bool {
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	return func(string) bool {
		resp, err := client.Get(url)
		if err != nil {
			return false
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}
}

// printedThenWaited returns a readiness check that holds once d has passed since the output
// showed said: an agent that has started samples a few times.
func printedThenWaited(said string, d time.Duration) func(string) bool {
	var start time.Time
	return func(out string) bool {
		if start.IsZero() && strings.Contains(out, said) {
			start = time.Now()
		}
		return !start.IsZero() && time.Since(start) >= d
	}
}

// runServing runs args until ready holds, then stops it as Ctrl-C does, and returns its exit
// code and output; after must match the output.
func runServing(t *testing.T, args []string, e *env, out *syncBuffer, ready func(string) bool, after string) int {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() { done <- run(ctx, args, e) }()
	for giveUp := time.Now().Add(30 * time.Second); !ready(out.String()); time.Sleep(50 * time.Millisecond) {
		select {
		case code := <-done:
			t.Errorf("%s exited %d before it was ready", strings.Join(args, " "), code)
			return code
		default:
		}
		if time.Now().After(giveUp) {
			t.Errorf("%s not ready after 30 s", strings.Join(args, " "))
			break
		}
	}
	cancel()
	select {
	case code := <-done:
		if after != "" && !regexp.MustCompile(after).MatchString(out.String()) {
			t.Errorf("%s: output does not match %q:\n%s", strings.Join(args, " "), after, out.String())
		}
		return code
	case <-time.After(30 * time.Second):
		t.Fatalf("%s still running 30 s after Ctrl-C", strings.Join(args, " "))
		return -1
	}
}

// writeSelfSigned writes a certificate for localhost and 127.0.0.1 and its key, as the TLS
// example's cert.pem and key.pem.
func writeSelfSigned(t *testing.T, certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "localhost"},
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644) != nil ||
		os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600) != nil {
		t.Fatal("write cert.pem and key.pem")
	}
}

// exampleEnvironment writes the files the examples below name beside the fixtures and returns
// the environment every example runs in: $HOME in the test's directory, metadata services that
// refuse at once (the test runs on no cloud machine), the targets' secrets and the queue
// server's binary; alerts counts the alerts the targets' receivers got.
func exampleEnvironment(t *testing.T, dir string) (environ map[string]string, alerts func() int) {
	t.Helper()
	environ = map[string]string{
		"HOME":                              filepath.Join(dir, "home"),
		"AWS_EC2_METADATA_SERVICE_ENDPOINT": "http://127.0.0.1:1",
		"GCE_METADATA_HOST":                 "127.0.0.1:1",
	}
	write := func(name string, data []byte) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyTo := func(src, dst string) {
		t.Helper()
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		write(dst, data)
	}
	// A SkyPilot catalog checkout in $HOME.
	copyTo("aws_vms.csv", filepath.Join(dir, "home/skypilot-catalog/catalogs/v8/aws/vms.csv"))
	// A CUR 2.0 export as Data Exports lays it out: a manifest naming its execution's data file.
	cur := "exports/cur2/data/BILLING_PERIOD=2026-10/exec-1/cur2-00001.csv"
	copyTo("cur2/cur2_sample.csv", cur)
	manifest := `{"executionId":"exec-1","dataFiles":["s3://billing-bucket/` + cur + `"]}`
	write("exports/cur2/metadata/BILLING_PERIOD=2026-10/cur2-Manifest.json", []byte(manifest))
	// Three months' bills, one provider's each.
	copyTo("cur2/cur2_sample.csv", "jan.csv")
	copyTo("azure_amortized.csv", "feb.csv")
	copyTo("focus-2026-10.csv", "mar.csv")
	writeSelfSigned(t, "cert.pem", "key.pem")
	write("train.sh", []byte("#!/bin/sh\necho one epoch\n"))
	secrets, alerts := exampleTargets(t)
	for k, v := range secrets {
		environ[k] = v
	}
	for k, v := range writeQueueFixtures(t, dir) {
		environ[k] = v
	}
	// The bill sources serve --pull-bills reads: docs/bill-sources.md's AWS and Azure exports.
	write("sources.yaml", []byte("sources:\n  - name: aws-cur\n    url: s3://billing-bucket/exports/cur2/\n  - name: azure-actual\n    url: azure://costsacct/exports/gpu-actual\n"))
	write("train.py", []byte("print('one epoch')\n"))
	// aws ec2 describe-availability-zones --output json, as report spot --zones reads it.
	write("zones.json", []byte(`{"AvailabilityZones": [{"ZoneName": "us-east-1a", "ZoneId": "use1-az4"}, {"ZoneName": "us-east-1b", "ZoneId": "use1-az2"}]}`))
	// The shared jobs store: the demo's spot jobs, and a run of llama-ft.
	if err := os.CopyFS("nfs-jobs", os.DirFS("demo-jobs")); err != nil {
		t.Fatalf("copy the demo's jobs store: %v", err)
	}
	line := "gpucost run --name llama-ft --checkpoint-dir ckpt-llama --store file://" + filepath.Join(dir, "nfs-jobs") + " -- ./train.sh"
	if code, out := runExampleEnv(t, line, environ); code != exitOK {
		t.Fatalf("%s: exit %d\n%s", line, code, out)
	}
	return environ, alerts
}

// exampleOutputs are what the examples run against loopback servers and fixture stores must
// print, by the start of their command once rewritten: a cheap check that each did its work.
var exampleOutputs = []struct{ prefix, want string }{
	{"gpucost import remove 12", `removed import 12 \(`},
	{"gpucost bills remove 12", `removed import 12 \(`},
	{"gpucost import billing --format aws-cur exports/", `cur2-00001\.csv .*imported \(import 1\)`},
	{"gpucost import billing exports/", `cur2-00001\.csv .*imported \(import 1\)`},
	{"gpucost import billing jan.csv feb.csv mar.csv", `(?s)jan\.csv.*imported.*feb\.csv.*imported.*mar\.csv.*imported`},
	{"gpucost import billing s3://billing-bucket/exports/", `cur2-00001\.csv`},
	{"gpucost catalog import --format skypilot ~/", `Imported 1608 offers`},
	{"gpucost catalog refresh --provider azure --base-url", `3 offers added`},
	{"gpucost report jobs --store s3://bucket/jobs", `│ llama-ft +│ done`},
	{"gpucost report jobs --store s3://my-bucket/jobs", `│ llm-finetune +│ done`},
	{"gpucost report jobs --store file://", `"job": "llama-ft"`},
	{"gpucost report spot --store s3://my-bucket/jobs", `aws g5\.12xlarge us-east-1/us-east-1a`},
	{"gpucost plan checkpoint --checkpoint-time 45s --restart 5m --instance-type g5.12xlarge --region us-east-1 --events s3:", `measured on g5\.12xlarge us-east-1: 6 interruptions`},
	{"gpucost budget check --file budgets.yaml --targets targets.yaml", `research-gpus: `},
	{"gpucost run --name llama-ft", `one epoch`},
	{"gpucost run --checkpoint-dir ckpt --store file:", `one epoch`},
	{"gpucost queue push --queue captions images.jsonl", `Pushed to queue captions`},
	{"gpucost queue results --results s3://bucket/captions --to", `50 results`},
	{"gpucost queue results --results data/captions --id img-0042", `"id":"img-0042"`},
	{"gpucost queue serve", `queue server listening at nats://`},
	{"gpucost recommend applied --remove research-p3.8xlarge/spot/spot-g6e.2xlarge", `Removed the record of step research-p3\.8xlarge/spot/spot-g6e\.2xlarge`},
	{"gpucost import billing azure://costsacct/exports/gpu-actual", `part_0_0001\.csv .*imported \(import`},
	{"gpucost report kpi --by namespace --requests-prometheus ", `Request counts from http://127\.0\.0\.1:`},
	{"gpucost report kpi --by namespace --tokens-prometheus ", `Token counts from http://127\.0\.0\.1:`},
}

// checkExampleOutput reports an example whose output lacks what exampleOutputs wants of it.
func checkExampleOutput(t *testing.T, where, line, out string) {
	t.Helper()
	for _, o := range exampleOutputs {
		if strings.HasPrefix(exampleCommand(line), o.prefix) {
			if !regexp.MustCompile(o.want).MatchString(out) {
				t.Errorf("%s: %s\noutput does not match %q:\n%s", where, line, o.want, out)
			}
			return
		}
	}
}

// exampleServers are the environment every example runs in, the loopback servers some reach
// (their environments over it), and why each server is missing where it is.
type exampleServers struct {
	base, s3, azure             map[string]string
	prometheus                  string
	noS3, noAzure, noPrometheus string
	noPython                    error
	alerts                      func() int // alerts the targets' receivers got
}

// startExampleServers writes the examples' files and starts the servers they reach.
func startExampleServers(t *testing.T, dir string) *exampleServers {
	t.Helper()
	s := &exampleServers{}
	s.base, s.alerts = exampleEnvironment(t, dir)
	s.s3, s.noS3 = startExampleS3(t, dir, s.base)
	s.prometheus, s.noPrometheus = startExamplePrometheus(t)
	s.azure, s.noAzure = startExampleAzure(t)
	_, s.noPython = exec.LookPath("python")
	return s
}

// environFor returns line with the Prometheus URL in place and the environment it runs in, or
// the missing server or tool it needs.
func (s *exampleServers) environFor(line string) (string, map[string]string, string) {
	from := s.base
	if isPrometheusExample(line) {
		if s.noPrometheus != "" {
			return line, nil, s.noPrometheus
		}
		line = strings.ReplaceAll(line, "{prometheus}", s.prometheus)
	}
	if isS3Example(line) {
		if s.noS3 != "" {
			return line, nil, s.noS3
		}
		from = s.s3
	}
	if isAzureExample(line) || strings.Contains(line, "--pull-bills sources.yaml") { // sources.yaml names S3 and Azure
		if s.noAzure != "" || s.noS3 != "" {
			return line, nil, strings.TrimSpace(s.noAzure + " " + s.noS3)
		}
		from = map[string]string{}
		for _, m := range []map[string]string{s.s3, s.azure} {
			for k, v := range m {
				from[k] = v
			}
		}
	}
	if strings.Contains(line, "-- python ") && s.noPython != nil {
		return line, nil, "python is not on $PATH"
	}
	return line, from, ""
}
