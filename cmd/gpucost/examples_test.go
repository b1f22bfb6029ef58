package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gpucost/gpucost/internal/exitcode"
	"github.com/spf13/cobra"
)

// docExample is one gpucost command line that the README or a command's --help shows.
type docExample struct {
	where string // "README.md:12" or "gpucost report idle --help"
	line  string // as written, comment and shell redirection included
}

// readmeExamples returns the gpucost lines of README.md's code blocks, and the command table's
// backticked commands that name no placeholder (FILE, a|b, [optional], ...).
func readmeExamples(t *testing.T) []docExample {
	t.Helper()
	f, err := os.Open("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []docExample
	inCode := false
	tick := regexp.MustCompile("`(gpucost [^`]+)`")
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			inCode = !inCode && strings.TrimPrefix(line, "```") == "sh" // plain blocks show output
			continue
		}
		where := fmt.Sprintf("README.md:%d", n)
		if inCode {
			if cmd := exampleCommand(line); cmd != "" {
				got = append(got, docExample{where, strings.TrimSpace(line)})
			}
			continue
		}
		if !strings.HasPrefix(line, "| `gpucost") {
			continue
		}
		for _, m := range tick.FindAllStringSubmatch(line, -1) {
			if !hasPlaceholder(m[1]) {
				got = append(got, docExample{where, m[1]})
			}
		}
	}
	return got
}

// helpExamples returns every gpucost line of every command's Example text.
func helpExamples(root *cobra.Command) []docExample {
	var got []docExample
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, line := range strings.Split(strings.ReplaceAll(c.Example, "\\\n", ""), "\n") {
			if exampleCommand(line) != "" {
				got = append(got, docExample{c.CommandPath() + " --help", strings.TrimSpace(line)})
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return got
}

// exampleCommand returns line's command without its comment, or "" when it runs no gpucost.
func exampleCommand(line string) string {
	line = strings.TrimSpace(line)
	if i := strings.Index(line, " #"); i >= 0 {
		line = strings.TrimSpace(line[:i])
	}
	for strings.Contains(strings.SplitN(line, " ", 2)[0], "=") { // GPUCOST_TOKEN=… gpucost agent
		_, line, _ = strings.Cut(line, " ")
	}
	if !strings.HasPrefix(line, "gpucost ") {
		return ""
	}
	return line
}

// hasPlaceholder reports whether a command table entry is a synopsis rather than a command.
func hasPlaceholder(s string) bool {
	if strings.ContainsAny(s, "|[…") || strings.Contains(s, "...") {
		return true
	}
	for _, w := range strings.Fields(s) {
		w, _, _ = strings.Cut(strings.Trim(w, ",.:"), ".") // FILE.csv
		if len(w) > 1 && strings.ToUpper(w) == w && strings.IndexFunc(w, func(r rune) bool { return r >= 'A' && r <= 'Z' }) >= 0 && !strings.HasPrefix(w, "-") {
			return true
		}
	}
	return false
}

// runExample runs one example line in-process in the current directory, the store in $GPUCOST_DB
// being demo.db; "a && b" runs b only when a exits 0, and "> FILE" writes FILE.
func runExample(t *testing.T, line string) (int, string) {
	t.Helper()
	return runExampleEnv(t, line, nil)
}

// runExampleEnv runs one example line as runExample does in the environment environ, over
// $GPUCOST_DB=demo.db; a "~/" word starts at its $HOME, and a command that serves until stopped
// (servingExamples) is started, found ready and stopped, or with "&" left running beside the
// next examples (exampleBackground).
func runExampleEnv(t *testing.T, line string, environ map[string]string) (int, string) {
	t.Helper()
	getenv := func(k string) string {
		if v, ok := environ[k]; ok {
			return v
		}
		if k == "GPUCOST_DB" {
			return "demo.db"
		}
		return ""
	}
	var all bytes.Buffer
	for _, part := range strings.Split(exampleCommand(line), "&&") {
		part = strings.TrimSpace(part)
		inBackground := strings.HasSuffix(part, "&")
		part = strings.TrimSpace(strings.TrimSuffix(part, "&"))
		redirect := ""
		if i := strings.Index(part, " > "); i >= 0 {
			part, redirect = part[:i], strings.TrimSpace(part[i+3:])
		}
		var args []string
		for _, w := range exampleWords(t, part) {
			if rest, ok := strings.CutPrefix(w, "~/"); ok && getenv("HOME") != "" {
				w = filepath.Join(getenv("HOME"), rest)
			}
			if m, _ := filepath.Glob(w); strings.Contains(w, "*") && len(m) > 0 {
				args = append(args, m...)
				continue
			}
			args = append(args, w)
		}
		var out, errb syncBuffer
		e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: getenv, now: time.Now}
		var code int
		if ready, after, ok := servingExample(part); ok {
			var both syncBuffer
			e.stdout, e.stderr = &both, &both
			if inBackground {
				code = startBackground(t, part, args[1:], e, &both, ready)
			} else {
				code = aside(t, args[1:], func() int { return runServing(t, args[1:], e, &both, ready, after) })
			}
			all.WriteString(both.String())
		} else {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			code = run(ctx, args[1:], e)
			cancel()
			all.WriteString(out.String() + errb.String())
		}
		if redirect != "" {
			if err := os.WriteFile(redirect, []byte(out.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if code != exitOK {
			return code, all.String()
		}
	}
	return exitOK, all.String()
}

func TestDocExamples(t *testing.T) {
	readme := readmeExamples(t)
	fixtures := exampleFixtures(t)
	dir := t.TempDir()
	t.Chdir(dir)
	t.Cleanup(func() { stopBackground(t) })
	for name, data := range fixtures {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, out := runExample(t, "gpucost demo --days 3 --no-serve --db demo.db"); code != exitOK {
		t.Fatalf("demo: exit %d\n%s", code, out)
	}
	// The serving pools the demo writes beside its store stand for the user's serving.yaml.
	if pools, err := os.ReadFile("demo-serving.yaml"); err != nil || os.WriteFile("serving.yaml", pools, 0o644) != nil {
		t.Fatalf("the demo's serving pools: %v", err)
	}
	servers := startExampleServers(t, dir)
	ex := append(readme, helpExamples(newRootCmd(&env{getenv: func(string) string { return "" }, now: time.Now}))...)
	ran := 0
	for _, x := range ex {
		line := rewriteExample(x.line, dir)
		skip, want := skipReason(line)
		if skip != "" {
			t.Logf("skipped %s: %s (%s)", x.where, x.line, skip)
			continue
		}
		line, from, missing := servers.environFor(line)
		if missing != "" {
			t.Logf("skipped %s: %s (%s)", x.where, x.line, missing)
			continue
		}
		ran++
		environ, stop := setupExample(t, line, dir)
		line, aws := startExampleAWS(t, line, dir)
		if aws != nil {
			if environ == nil {
				environ = map[string]string{}
			}
			for k, v := range aws.environ {
				environ[k] = v
			}
		}
		for k, v := range from {
			if _, ok := environ[k]; !ok {
				if environ == nil {
					environ = map[string]string{}
				}
				environ[k] = v
			}
		}
		code, out := runExampleEnv(t, line, environ)
		stop()
		if code != want && code != clockExit(line) {
			t.Errorf("%s: %s\nexit %d, want %d:\n%s", x.where, x.line, code, want, out)
		} else if code == exitOK {
			checkExampleOutput(t, x.where, line, out)
		}
		if aws != nil {
			aws.checkAWS(t, x.where, line, out)
		}
	}
	if servers.noS3 == "" && servers.alerts() == 0 {
		t.Errorf("no alert reached the targets' receivers; want report spot --targets's spot interruption alerts")
	}
	t.Logf("ran %d of the %d examples; skipped the rest (skippedExamples)", ran, len(ex))
	if ran < 190 {
		t.Errorf("ran %d examples of %d; want at least 190 (is the skip table too broad?)", ran, len(ex))
	}
}

// exampleFixtures returns the files the examples name, by the name they use, read from the
// repository's test data and the shared datasets; it skips the test when those are absent.
func exampleFixtures(t *testing.T) map[string][]byte {
	t.Helper()
	const shared = "../../../shared/datasets/"
	from := map[string]string{
		"vms.csv":                         shared + "catalog/aws_vms_gpu.csv", // no provider in the name: told by the rows
		"aws_vms.csv":                     shared + "catalog/aws_vms_gpu.csv",
		"gcp_vms.csv":                     shared + "catalog/gcp_vms_gpu.csv",
		"pricing.yml":                     "../../catalog/testdata/gcp_pricing_small.yml",
		"scrapes/rafay_T4.prom":           shared + "dcgm/samples/rafay_T4.prom",
		"scrapes/kops_aws_L4.prom":        shared + "dcgm/samples/kops_aws_L4.prom",
		"focus-2026-10.csv":               shared + "focus/focus_sample.csv",
		"budgets.yaml":                    "../../budget/testdata/budgets.yaml",
		"job.yaml":                        "../../budget/testdata/job.yaml",
		"policies.yaml":                   "../../enforce/testdata/policies.yaml",
		"targets.yaml":                    "../../notify/testdata/targets.yaml",
		"examples/policies/idle.yaml":     "../../examples/policies/idle.yaml",
		"examples/alerts/rules.yaml":      "../../examples/alerts/rules.yaml",
		"AzureLLMInferenceTrace_code.csv": shared + "azure/AzureLLMInferenceTrace_code.csv",
		"profile.csv":                     "../../plan/testdata/latency_profile.csv",
		"bert-t4.csv":                     "../../plan/testdata/latency_profile.csv",
		"bert.csv":                        "../../plan/testdata/latency_profile.csv",
		"openb_pod_list_default.csv":      shared + "alibaba/gpu-v2023/csv/openb_pod_list_default.csv",
		"pods.csv":                        shared + "alibaba/gpu-v2023/csv/openb_pod_list_default.csv",
		"pods-gpu-memory.csv":             "../../plan/testdata/share_gpu_memory.csv",
		"smi.csv":                         "../../telemetry/nvidiasmi/testdata/a100-8gpu/query-gpu.csv",
		"spot-advisor-data.json":          "../../catalog/testdata/spot-advisor-data.json",
		"azureprices/page1.json":          "../../pricing/azureprices/testdata/page1.json", // the Retail Prices API's recorded pages
		"azureprices/page2.json":          "../../pricing/azureprices/testdata/page2.json",
		// The README's tour of four bills and the import examples' files, one provider each.
		"cur2/cur2_sample.csv":     "../../billing/awscur/testdata/cur2_sample.csv",
		"gcp_export.jsonl":         "../../billing/gcp/testdata/detailed_export.jsonl",
		"gcp_billing_export.jsonl": "../../billing/gcp/testdata/detailed_export.jsonl",
		"azure_amortized.csv":      "../../billing/azure/testdata/ea_amortized.csv",
		"azure_actual.csv":         "../../billing/azure/testdata/ea_actual.csv",
		"endpoint.yaml":            "../../budget/testdata/endpoint.yaml",
		"one-scrape.prom":          shared + "dcgm/samples/rafay_T4.prom",
		"workstation-ada.prom":     shared + "dcgm/samples/kops_aws_L4.prom",
		"one-gpu.csv":              shared + "nvidia/h200-phases/nvidia-smi-1s.csv",
		"smi-q.xml":                shared + "nvidia/h200-shared/nvidia-smi-q.xml",
		"pmon.txt":                 shared + "nvidia/h200-shared/pmon.txt",
	}
	var rates, hourly strings.Builder // a day of request rates a minute; 30 days of usage an hour, busier 9–18
	rates.WriteString("timestamp,rate\n")
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for m := range 24 * 60 {
		fmt.Fprintf(&rates, "%s,%d\n", start.Add(time.Duration(m)*time.Minute).Format(time.RFC3339), 20+m%360/6)
	}
	hourly.WriteString("hour,usage\n")
	for h := range 24 * 30 {
		fmt.Fprintf(&hourly, "%d,%d\n", h, 40+20*min(1, max(0, (h%24-8)*(18-h%24))))
	}
	files := map[string][]byte{
		// The inventory and request counts name the 3-day demo fleet's machines and namespaces.
		"fleet.csv":    []byte("resource_id,host,instance_type,gpus,team\nserving-a100-01,serving-a100-01,p4d.24xlarge,8,ml-platform\n"),
		"requests.csv": []byte("namespace,requests\nserving,54422730\n"),
		"trace.csv": []byte("timestamp,gpu,util,memory_used_mib,memory_total_mib,power_w,host,model,labels\n" +
			"2026-11-02T10:00:00Z,GPU-7f3a,87.5,61440,81920,310.5,node-1,NVIDIA A100-SXM4-80GB,team=search;job=train-7\n" +
			"2026-11-02 10:01:00,GPU-7f3a,12,61440,81920,95,node-1,NVIDIA A100-SXM4-80GB,team=search;job=train-7\n"),
		"focus-from-a-spreadsheet.csv": []byte(spreadsheetBill),
		"rates.csv":                    []byte(rates.String()),
		"hourly.csv":                   []byte(hourly.String()),
		"serving.csv":                  []byte("name,memory_gb,compute_share\nchat-a,18,0.3\nchat-b,18,0.3\nembed,8,0.1\nrerank,9,0.12\nsummar,35,0.4\nvision,30,0.45\n"),
	}
	for name, src := range from {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Skipf("example file %s: %v (the shared datasets are not beside the repository?)", name, err)
		}
		files[name] = data
	}
	return files
}

// skippedExamples are the examples no test can run as written, by the start of their command
// after its comment is cut and exampleRewrites are made ("$" ending a whole command), and why;
// or that exit with a documented code other than 0 (why empty). Every other example must exit 0 against the 3-day demo store and exampleFixtures.
var skippedExamples = []struct {
	prefix string
	code   int
	why    string
}{
	{"gpucost serve --db postgres:", 0, "needs PostgreSQL at the host db"},
	{"gpucost demo --no-serve", 0, "rebuilds the 30-day demo fleet: a minute (TestDocExamples builds 3 days)"},
	{"gpucost demo", 0, "builds the 30-day demo fleet (a minute) and serves the dashboard until stopped"},
	{"gpucost agent$", 0, "samples this machine's GPUs: needs a GPU"},
	{"gpucost agent --source auto", 0, "samples this machine's GPUs: needs a GPU"},
	{"gpucost agent --source S ", 0, "S stands for a source"},
	{"gpucost agent --source prometheus=", 0, "needs dcgm-exporter's series in Prometheus (the test's holds vLLM's counters alone)"},
	{"gpucost agent --server", 0, "needs a token gpucost serve issued (gpc_… stands for it)"},
	{"gpucost profile", 0, "needs a GPU and the profiled command"},
	{"gpucost catalog refresh --provider aws", 0, "needs AWS's price API"},
	{"gpucost catalog refresh --provider gcp", 0, "needs GCP's price API and a key"},
	{"gpucost catalog refresh --provider azure --region", 0, "needs Azure's price API"},
	// A policy triggers, exit 7: spot-cap stops (or plans to stop) the fake EC2's third spot instance (awsExamples).
	{"gpucost enforce --policies policies.yaml --budgets budgets.yaml --aws-region us-east-1 --aws-profile gpu-admin", 0, "reads the user's AWS profile gpu-admin and kubeconfig ~/.kube/prod"},
	{"gpucost enforce --policies policies.yaml --budgets budgets.yaml --aws-region", exitcode.Policy, ""},
	{"gpucost recommend apply eval-p4d", 0, "applies a step of the 30-day demo's plan at 2026-11-10, before the 3-day demo's days"},
	{"gpucost report utilization --month 2025-10", exitNotFound, ""},
}

// clockExits are the examples whose exit code depends on the time of day they run at, besides
// the one skippedExamples gives: the demo's off-hours policy (Mon-Fri 18:00-09:00 UTC and
// weekends) triggers, exiting 7 as enforce does when a policy triggers, outside working hours.
var clockExits = []struct {
	prefix string
	code   int
}{
	{"gpucost enforce --policies examples/policies/idle.yaml", exitcode.Policy},
}

// clockExit returns the other exit code line may return at some times of day, or -1.
func clockExit(line string) int {
	for _, c := range clockExits {
		if strings.HasPrefix(exampleCommand(line), c.prefix) {
			return c.code
		}
	}
	return -1
}

// skipReason returns why line is not run, or "" and the exit code it must return.
func skipReason(line string) (string, int) {
	cmd := exampleCommand(line)
	for _, s := range skippedExamples {
		if whole, ok := strings.CutSuffix(s.prefix, "$"); ok && cmd == whole || !ok && strings.HasPrefix(cmd, s.prefix) {
			return s.why, s.code
		}
	}
	return "", exitOK
}

// TestCatalogImportProviderFromRows imports a Lambda vms.csv copy whose name names no provider,
// as the README's tour does: the rows tell it.
func TestCatalogImportProviderFromRows(t *testing.T) {
	dir := t.TempDir()
	file := writeLambdaCopy(t, dir, "vms.csv", "0.61")
	code, out, errOut := runCLI(t, dir, "catalog", "import", "--format", "skypilot", file, "--output", "json")
	if code != exitOK || !strings.Contains(out, `"lambda"`) {
		t.Errorf("catalog import --format skypilot vms.csv: exit %d, want lambda offers\n%s%s", code, out, errOut)
	}
}

// TestNothingSilent checks that what a user asked is not changed without a word: an
// out-of-range --min is refused naming the range, a cut list says so, plan commit's columns
// carry units, and serving plans without a price say why their money column is blank.
func TestNothingSilent(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"report", "idle", "--min", "0s"}, {"report", "idle", "--limit", "-1"}} {
		code, _, errOut := runCLI(t, dir, args...)
		if code != exitInvalid || !strings.Contains(errOut, "give ") {
			t.Errorf("%s: exit %d, %q; want exit %d naming the range", strings.Join(args, " "), code, errOut, exitInvalid)
		}
	}
	profile, err := filepath.Abs("../../plan/testdata/latency_profile.csv")
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, dir, "plan", "batching", "--rate", "300", "--batch-profile", profile, "--slo", "p99=200ms")
	if code != exitOK || !strings.Contains(out, "No price: the $/h column is blank because neither --gpu nor --price was given") {
		t.Errorf("plan batching without --gpu: exit %d; want a note on the blank $/h\n%s%s", code, out, errOut)
	}
	if trace, err := filepath.Abs("../../../shared/datasets/azure/AzureLLMInferenceTrace_code.csv"); err == nil && fileExists(trace) {
		code, out, errOut := runCLI(t, dir, "plan", "autoscale", "--trace", trace, "--service-time", "1s", "--slo", "p99=5s")
		if code != exitOK || !strings.Contains(out, "No price: the Cost column is blank") || strings.Contains(out, "$0.00") {
			t.Errorf("plan autoscale without --gpu: exit %d; want a blank Cost column and a note\n%s%s", code, out, errOut)
		}
	}
	code, out, errOut = runCLI(t, dir, "plan", "batching", "--rate", "300", "--batch-profile", profile, "--slo", "p99=200ms", "--gpu", "T4")
	if code != exitOK || strings.Contains(out, "No price") {
		t.Errorf("plan batching --gpu T4: exit %d; want no no-price note\n%s%s", code, out, errOut)
	}
}

// TestTablesFitColumns prints report alerts on the demo fleet at $COLUMNS 80 and 200: every
// table line fits and a note names the columns left out; --wide prints them all.
func TestTablesFitColumns(t *testing.T) {
	dir := loadDemo(t)
	runCols := func(cols string, args ...string) (int, string) {
		var out, errb bytes.Buffer
		e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
			getenv: func(k string) string {
				if k == "COLUMNS" {
					return cols
				}
				return ""
			},
			now: func() time.Time { return time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC) }}
		code := run(context.Background(), append([]string{"--db", filepath.Join(dir, "gpucost.db"), "report", "alerts", "--since", "7d"}, args...), e)
		return code, out.String() + errb.String()
	}
	for _, width := range []int{80, 200} {
		code, out := runCols(fmt.Sprint(width))
		if code != exitOK || !strings.Contains(out, fmt.Sprintf("Columns left out to fit %d characters", width)) || !strings.Contains(out, "--wide shows all") {
			t.Errorf("COLUMNS=%d report alerts: exit %d; want a note naming the columns left out\n%s", width, code, out)
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.ContainsRune(line, '│') && utf8.RuneCountInString(line) > width {
				t.Errorf("COLUMNS=%d report alerts: a line of %d characters: %s", width, utf8.RuneCountInString(line), line)
				break
			}
		}
	}
	code, out := runCols("80", "--wide")
	if code != exitOK || strings.Contains(out, "Columns left out") || !strings.Contains(out, "LABELS") {
		t.Errorf("COLUMNS=80 report alerts --wide: exit %d; want every column\n%s", code, out)
	}
}
