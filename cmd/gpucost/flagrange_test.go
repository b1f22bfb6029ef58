package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagRange is what the sweep tries on one flag: values it must refuse, or why every value
// the flag's type parses is a valid one.
type flagRange struct {
	bad    []string
	anyVal string
}

// Bad values shared by many flags.
var (
	negInt      = []string{"-1"}
	negZeroInt  = []string{"-1", "0"}
	negDur      = []string{"-1s"}
	negZeroDur  = []string{"-1s", "0s"}
	badFloat    = []string{"-1", "NaN", "Inf"}
	badPosFloat = []string{"-1", "0", "NaN", "Inf"}
	badShare    = []string{"-1", "101%", "1.01", "NaN"}
)

// flagRanges are the numeric, duration, percentage and enum flags of every command, keyed by
// "COMMAND --flag" (the path after gpucost) or, for a flag that means the same everywhere,
// "--flag". TestFlagRanges fails on a flag of such a type that is in neither this table nor
// textFlags, so a new flag is swept from its first commit.
var flagRanges = map[string]flagRange{
	// Listings: 0 is "all"; each cut says so (TestListCutSays).
	"--limit": {bad: negInt},
	// The cost split and the recommendations' data move.
	"--weight":       {bad: []string{"-0.1", "1.5", "NaN"}},
	"--move-data-gb": {bad: []string{"-1", "NaN", "Inf"}},
	"--min-saving":   {bad: []string{"-1", "NaN", "abc"}},
	"--policy":       {bad: []string{"bogus"}},
	"--since":        {bad: []string{"-7d", "bogus"}},
	"--until":        {bad: []string{"bogus"}},
	"--month":        {bad: []string{"2025-13", "bogus"}},
	"--quarter":      {bad: []string{"2025Q5", "bogus"}},
	"--service-cv":   {bad: []string{"-1", "NaN"}},
	"--price":        {bad: []string{"-1", "NaN"}}, // 0: hardware already paid for

	"agent --interval":     {bad: negZeroDur},
	"agent --flush":        {bad: negZeroDur},
	"agent --keep-minutes": {bad: negZeroDur},

	"budget check --attempts": {bad: negZeroInt},
	"budget check --backoff":  {bad: negDur},

	"demo --days": {bad: []string{"-1", "0", "100000"}},

	"export focus --policy": {bad: []string{"bogus"}},

	"import telemetry --interval": {bad: negDur},
	"import billing --grain":      {bad: []string{"week", "0s"}},

	"plan autoscale --batch-size":         {bad: negInt},
	"plan autoscale --concurrency":        {bad: negZeroInt},
	"plan autoscale --decode-rate":        {bad: badFloat},
	"plan autoscale --evaluation":         {bad: negZeroDur},
	"plan autoscale --gpus-per-replica":   {bad: negZeroInt},
	"plan autoscale --idle-timeout":       {bad: negDur},
	"plan autoscale --max-queue-wait":     {bad: negDur},
	"plan autoscale --max-replicas":       {bad: negInt},
	"plan autoscale --min-replicas":       {bad: negInt},
	"plan autoscale --prefill-rate":       {bad: badFloat},
	"plan autoscale --provisioning":       {bad: negDur},
	"plan autoscale --replicas":           {bad: negInt},
	"plan autoscale --scale-in-window":    {bad: negDur},
	"plan autoscale --scale-out-cooldown": {bad: negDur},
	"plan autoscale --season":             {bad: negZeroDur},
	"plan autoscale --seed":               {anyVal: "any seed draws a valid sequence of spot interruptions"},
	"plan autoscale --service-time":       {bad: negDur},
	"plan autoscale --warmup":             {bad: negDur},
	"plan autoscale --headroom":           {bad: []string{"-10%", "NaN"}},
	"plan autoscale --spot-share":         {bad: badShare},
	"plan autoscale --step-up":            {bad: []string{"-1%", "101%", "NaN"}},
	"plan autoscale --step-down":          {bad: []string{"-1%", "101%", "NaN"}},
	"plan autoscale --spot-price":         {bad: []string{"-1", "NaN"}},
	"plan autoscale --interruption-rate":  {bad: []string{"-5%/h", "NaN", "Inf"}},
	"plan autoscale --gaps":               {bad: []string{"bogus"}},
	"plan autoscale --service-model":      {bad: []string{"bogus"}},
	"plan autoscale --policy":             {bad: []string{"bogus"}},
	"plan autoscale --step":               {bad: []string{"-1m", "0s"}},

	"plan batching --alpha":            {bad: negDur},
	"plan batching --batch-size":       {bad: negInt},
	"plan batching --beta":             {bad: negDur},
	"plan batching --decode-rate":      {bad: badFloat},
	"plan batching --gpus-per-replica": {bad: negZeroInt},
	"plan batching --max-batch":        {bad: negInt},
	"plan batching --prefill-rate":     {bad: badFloat},
	"plan batching --rate":             {bad: badPosFloat},
	"plan batching --service-time":     {bad: negDur},
	"plan batching --service-model":    {bad: []string{"bogus"}},

	"plan capacity --batch-size":       {bad: negInt},
	"plan capacity --concurrency":      {bad: negZeroInt},
	"plan capacity --decode-rate":      {bad: badFloat},
	"plan capacity --gpus-per-replica": {bad: negZeroInt},
	"plan capacity --max-replicas":     {bad: negInt},
	"plan capacity --per-gpu-qps":      {bad: badFloat},
	"plan capacity --prefill-rate":     {bad: badFloat},
	"plan capacity --rate":             {bad: []string{"-1", "NaN", "Inf", "1e15"}}, // 0: an idle service
	"plan capacity --service-time":     {bad: negDur},
	"plan capacity --headroom":         {bad: []string{"-10%", "NaN"}},
	"plan capacity --gaps":             {bad: []string{"bogus"}},
	"plan capacity --service-model":    {bad: []string{"bogus"}},
	"plan capacity --step":             {bad: []string{"-1m", "0s"}},

	"plan checkpoint --checkpoint-time":   {bad: negDur},
	"plan checkpoint --mtbi":              {bad: negDur},
	"plan checkpoint --notice":            {bad: negDur},
	"plan checkpoint --restart":           {bad: negDur},
	"plan checkpoint --work":              {bad: negDur},
	"plan checkpoint --interruption-rate": {bad: []string{"-5%/h", "NaN", "Inf"}},
	"plan checkpoint --bandwidth":         {bad: []string{"-1GB/s", "NaNGB/s"}},
	"plan checkpoint --size":              {bad: []string{"-1GB", "InfGB"}},

	"plan share --gpu-memory-gib": {bad: badPosFloat},

	"plan commit --discount": {bad: []string{"-0.1", "1", "NaN"}},
	"plan commit --term":     {bad: []string{"2y"}},
	"plan commit --payment":  {bad: []string{"some"}},
	"plan commit --lookback": {bad: []string{"-7d", "bogus"}},
	"plan commit --period":   {bad: []string{"-7d", "bogus"}},
	"plan commit --rule":     {bad: []string{"bogus"}},
	"plan commit --price":    {bad: []string{"-1", "0", "NaN"}},
	"plan commit --layer":    {bad: []string{"3y=-0.5", "3y=1.5", "3y=NaN", "3y=0.5:-8"}},

	"plan commit roi --hours":     {bad: []string{"-1", "0", "745"}},
	"plan commit roi --instances": {bad: negZeroInt},

	"plan fleet --count":     {bad: negZeroInt},
	"plan fleet --diversify": {bad: negInt}, // 0: the default, 6

	"plan fleet --min-vram":          {bad: badFloat},
	"plan fleet --max-pool-share":    {bad: badShare},
	"plan fleet --on-demand-base":    {bad: badShare},
	"plan fleet --max-risk":          {bad: []string{"-1%", "NaN"}},
	"plan fleet --interruption-rate": {bad: []string{"bogus"}},

	"plan instance --batch":     {bad: negZeroInt},                          // not given: 1
	"plan instance --mfu":       {bad: []string{"-0.1", "0", "1.5", "NaN"}}, // not given: 0.40
	"plan instance --seq":       {bad: negZeroInt},                          // not given: 4096
	"plan instance --mode":      {bad: []string{"bogus"}},
	"plan instance --precision": {bad: []string{"fp64"}},
	"plan instance --params":    {bad: []string{"-7B", "NaN"}},

	"profile --interval": {bad: negZeroDur},

	"queue push --item-timeout":   {bad: negDur},
	"queue work --batch":          {bad: negZeroInt},
	"queue work --concurrency":    {bad: negZeroInt},
	"queue work --item-timeout":   {bad: negDur},
	"queue work --max-deliveries": {bad: negZeroInt},
	"queue work --visibility":     {bad: negZeroDur},

	"report anomalies --k":         {bad: []string{"-1", "0", "NaN"}},
	"report anomalies --min-days":  {bad: negInt},
	"report anomalies --quantile":  {bad: []string{"-0.1", "1.5", "NaN"}},
	"report anomalies --weekly":    {bad: []string{"-2"}},
	"report anomalies --window":    {bad: negZeroInt},
	"report anomalies --min-delta": {bad: []string{"-1", "NaN"}},
	"report anomalies --by":        {bad: []string{"bogus"}},

	"report alerts --state":         {bad: []string{"bogus"}},
	"report cost --by":              {bad: []string{"bogus"}},
	"report idle --min":             {bad: []string{"0s", "-1m"}},
	"report kpi --by":               {bad: []string{"bogus"}},
	"report untagged --owner":       {bad: []string{"bogus"}},
	"report idle --provider":        {bad: []string{"bogus"}},
	"report utilization --provider": {bad: []string{"bogus"}},
	"report alerts --provider":      {bad: []string{"bogus"}},
	"plan checkpoint --provider":    {bad: []string{"bogus"}},
	"catalog refresh --provider":    {bad: []string{"bogus"}},
	"catalog gpus --provider":       {bad: []string{"bogus"}},
	"plan fleet --provider":         {bad: []string{"bogus"}},
	"plan instance --provider":      {bad: []string{"bogus"}},
	"plan batching --provider":      {bad: []string{"bogus"}},
	"plan capacity --provider":      {bad: []string{"bogus"}},
	"budget deliveries --target":    {anyVal: "a target's name to filter the attempts by: one matching nothing lists nothing"},
	"enforce log --policy":          {anyVal: "a policy's name to filter the log by: one matching nothing lists nothing"},
	"plan autoscale --target":       {bad: []string{"-1%", "101%", "NaN"}},
	"plan autoscale --compare":      {bad: []string{"some"}},
	"plan autoscale --trace-shape":  {bad: []string{"bogus"}},
	"plan capacity --trace-shape":   {bad: []string{"bogus"}},
	"plan autoscale --schedule":     {bad: []string{"0-7=-2", "0-7=2"}},
	"--slo":                         {bad: []string{"p100=1s", "p99=-1s", "p99=0s"}},
	"plan commit roi --on-demand":   {bad: []string{"-1", "0", "NaN"}},
	"plan commit roi --reserved-1y": {bad: []string{"-1", "NaN"}},
	"plan commit roi --reserved-3y": {bad: []string{"-1", "NaN"}},

	"report kpi --output-token-weight": {bad: badPosFloat},

	"report spot --alert-window": {bad: negZeroDur},
	"report spot --bill-since":   {bad: []string{"-7d", "bogus"}},

	"report spot --alert-threshold": {bad: []string{"-25%", "NaN"}},

	"report utilization --by": {bad: []string{"bogus"}},

	"run --grace":         {bad: negDur},
	"run --max-restarts":  {bad: negInt},
	"run --poll":          {bad: negZeroDur},
	"run --sync-interval": {bad: negZeroDur},
	"run --upload-floor":  {bad: negDur},
	"run --cloud":         {bad: []string{"bogus"}},
	"run --notice-signal": {bad: []string{"SIGBOGUS"}},
	"run --price":         {bad: []string{"-1", "NaN"}},

	"serve --bill-burst":        {bad: negZeroInt},
	"serve --bill-rate":         {bad: badFloat},
	"serve --check-every":       {bad: negZeroDur},
	"serve --flush":             {bad: negZeroDur},
	"serve --ingest-burst":      {bad: negZeroInt},
	"serve --ingest-rate":       {bad: badFloat},
	"serve --keep-minutes":      {bad: negZeroDur},
	"serve --max-auth-failures": {bad: negInt},
	"serve --pull-every":        {bad: negZeroDur},
	"serve --views-every":       {bad: negDur},
	"serve --max-bill-size":     {bad: []string{"-1GB", "0GB"}},

	"catalog import --format":   {bad: []string{"bogus"}},
	"import billing --format":   {bad: []string{"bogus"}},
	"import telemetry --format": {bad: []string{"bogus"}},
	"estimate --against":        {bad: []string{"bogus"}},
	"token create --role":       {bad: []string{"bogus"}},
}

// textFlags are the string flags whose values are names, files, URLs, filters or times the
// command reads as given, each listed with why the sweep does not try out-of-range values on
// it: a bad file or name fails where it is read, with its own error.
var textFlags = map[string][]string{
	"a file, directory or URL, which fails where it is opened": {
		"db", "store", "events", "jobs-store", "targets", "rules", "policies", "budgets", "batch-profile",
		"token-profile", "trace", "workloads", "usage", "zones", "chart", "out", "file", "export",
		"kubeconfig", "kube-token-file", "kube-ca-file", "tls-key", "tls-cert", "token-file", "wal",
		"checkpoint-dir", "results", "data", "serving", "pull-bills", "requests", "tokens", "source",
		"server", "nats", "aws-endpoint", "gce-endpoint", "azure-endpoint", "azure-metadata-url",
		"base-url", "kube-server", "tokens-server", "tokens-prometheus", "requests-prometheus", "listen", "to",
	},
	"a time, parsed where it is read (its error names the flag)": {"at", "start"},
	"a name or filter matched against what the store, catalog or cloud holds: one matching nothing lists nothing and says so": {
		"gpu", "provider", "region", "zone", "instance-type", "tag-keys", "queue", "name", "job",
		"aws-profile", "context", "kube-selector", "kube-namespace", "aws-region", "gce-project",
		"azure-subscription", "keep-columns", "model", "budget", "actor", "action",
		"resource", "host", "note", "remove", "gcp-cud", "requests-query", "input-tokens-query",
		"output-tokens-query", "trusted-proxy", "bill-since", "id",
	},
}

// flagRangeBase are the arguments that make each command otherwise valid against the 3-day
// demo store, so a refusal comes from the flag under test; paths name files in the store's
// directory (writeFlagFixtures).
func flagRangeBase(dir string) map[string][]string {
	f := func(name string) string { return filepath.Join(dir, name) }
	return map[string][]string{
		"plan autoscale":   {"--trace", f("rates.csv"), "--service-time", "100ms", "--slo", "p99=5s"},
		"plan batching":    {"--rate", "300", "--batch-profile", f("profile.csv"), "--slo", "p99=200ms"},
		"plan capacity":    {"--rate", "100", "--service-time", "30ms", "--slo", "p99=200ms"},
		"plan checkpoint":  {"--checkpoint-time", "45s", "--restart", "5m", "--mtbi", "6h"},
		"plan commit":      {"--usage", f("hourly.csv"), "--price", "3.06", "--discount", "0.4", "--term", "1y"},
		"plan commit roi":  {"--on-demand", "3.06", "--reserved-1y", "1.82", "--reserved-3y", "1.31"},
		"plan fleet":       {"--gpu", "A100", "--count", "8"},
		"plan instance":    {"--params", "7e9"},
		"plan mig":         {"--gpu", "A100-80GB", "--workloads", f("serving.csv")},
		"queue push":       {"--queue", "q", f("items.jsonl")},
		"queue work":       {"--queue", "q", "--results", f("results"), "--", "true"},
		"queue status":     {"--queue", "q"},
		"queue dead":       {"--queue", "q"},
		"profile":          {"--", "true"},
		"run":              {"--checkpoint-dir", f("ckpt"), "--store", f("jobs"), "--cloud", "none", "--", "true"},
		"serve":            {"--listen", "127.0.0.1:0"},
		"agent":            {"--source", "nvidia-smi"},
		"catalog import":   {"--format", "skypilot", f("aws_vms.csv")},
		"import billing":   {f("focus-2026-10.csv")},
		"import telemetry": {f("trace.csv"), "--format", "csv"},
		"export focus":     {"--out", f("out.csv")},
		"estimate":         {f("job.yaml"), "--budgets", f("budgets.yaml")},
		"token create":     {"--name", "n", "--role", "viewer"},
		"recommend apply":  {"eval-p4d"},
		"enforce undo":     {"1"},
		"report jobs":      {"--store", f("jobs")},
		"budget check":     {"--file", f("budgets.yaml"), "--dry-run"},
	}
}

// writeFlagFixtures writes the files flagRangeBase names into dir.
func writeFlagFixtures(t *testing.T, dir string) {
	t.Helper()
	files := exampleFixtures(t)
	files["items.jsonl"] = []byte("{\"id\":1}\n")
	for name, data := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// rangeWords are what an error naming a flag's accepted range says.
var rangeWords = regexp.MustCompile(`(?i)\bgive\b|\bwant\b|\buse\b|at most|at least|or more|or less|between|one of|\bfrom\b.*\bto\b|\bwrite\b|\bsuch as\b|\bsay\b|\bcover\b|\btakes\b`)

// sweptFlag is one flag of one command, as the tree holds it.
type sweptFlag struct {
	cmd  string // the path after "gpucost", such as "report idle"
	flag *pflag.Flag
}

// sweptFlags walks the command tree and returns every flag of every runnable command, the
// global ones once at the root.
func sweptFlags() []sweptFlag {
	root := newRootCmd(&env{getenv: func(string) string { return "" }})
	var out []sweptFlag
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		path := strings.TrimPrefix(strings.TrimPrefix(c.CommandPath(), "gpucost"), " ")
		if c.Runnable() {
			c.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) { out = append(out, sweptFlag{path, f}) })
		}
		c.PersistentFlags().VisitAll(func(f *pflag.Flag) { out = append(out, sweptFlag{path, f}) })
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	sort.Slice(out, func(i, j int) bool { return out[i].cmd+" "+out[i].flag.Name < out[j].cmd+" "+out[j].flag.Name })
	return out
}

// rangeOf returns the table's entry for f, by command and flag or by flag alone.
func rangeOf(f sweptFlag) (flagRange, bool) {
	if r, ok := flagRanges[f.cmd+" --"+f.flag.Name]; ok {
		return r, true
	}
	r, ok := flagRanges["--"+f.flag.Name]
	return r, ok
}

// isText reports whether name is one of textFlags.
func isText(name string) bool {
	for _, names := range textFlags {
		for _, n := range names {
			if n == name {
				return true
			}
		}
	}
	return false
}

// runFlag runs gpucost with args against the store in dir, stopped after a while: a server or
// sampler that took a bad value would otherwise run on.
func runFlag(dir string, args ...string) (int, string) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(string) string { return "" },
		now: func() time.Time { return time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC) }}
	code := run(ctx, append([]string{"--db", filepath.Join(dir, "gpucost.db")}, args...), e)
	return code, errb.String() + out.String()
}

// TestFlagRanges is issue 23's sweep: every numeric, duration, percentage or enum flag of every
// command, tried with values out of its range on the 3-day demo store, exits 2 with a message
// naming the flag and what it takes; none is clamped, replaced or run with.
func TestFlagRanges(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command several hundred times")
	}
	dir := loadDemo(t)
	writeFlagFixtures(t, dir)
	base := flagRangeBase(dir)
	tried := 0
	for _, f := range sweptFlags() {
		if f.flag.Value.Type() == "bool" {
			continue // every value of a switch is valid
		}
		r, ok := rangeOf(f)
		if !ok {
			if f.flag.Value.Type() == "string" || f.flag.Value.Type() == "stringSlice" {
				if isText(f.flag.Name) {
					continue
				}
			}
			if f.cmd == "" && f.flag.Name == "output" {
				r = flagRange{bad: []string{"yaml"}}
			} else {
				t.Errorf("gpucost %s --%s (%s): not in flagRanges or textFlags; say which values it refuses, or why it takes any", f.cmd, f.flag.Name, f.flag.Value.Type())
				continue
			}
		}
		if r.anyVal != "" {
			continue
		}
		cmd := strings.Fields(f.cmd)
		if f.cmd == "" {
			cmd = []string{"report", "idle"}
		}
		for _, v := range r.bad {
			args := withFlag(slices.Concat(cmd, base[strings.Join(cmd, " ")]), "--"+f.flag.Name+"="+v)
			tried++
			code, out := runFlag(dir, args...)
			first, _, _ := strings.Cut(out, "\n")
			if code != exitInvalid || !strings.Contains(out, "--"+f.flag.Name) || !rangeWords.MatchString(first) {
				t.Errorf("gpucost %s: exit %d, %q; want exit %d naming --%s and the values it takes", strings.Join(args, " "), code, first, exitInvalid, f.flag.Name)
			}
		}
	}
	if tried < flagRangesTried {
		t.Errorf("tried %d out-of-range values; want at least %d: has the walk of the command tree lost commands?", tried, flagRangesTried)
	}
	t.Logf("tried %d out-of-range values", tried)
}

// flagRangesTried is how many values TestFlagRanges tries at least: a walk of the tree that
// found fewer flags than the table lists has lost commands.
const flagRangesTried = 300

// withFlag returns args with flag last among gpucost's own, before a "--" that starts a
// command's, so it wins over the base's value of the same flag.
func withFlag(args []string, flag string) []string {
	i := slices.Index(args, "--")
	if i < 0 {
		i = len(args)
	}
	return slices.Concat(args[:i], []string{flag}, args[i:])
}

// TestFlagCombinations tries values that are out of range only beside another flag.
func TestFlagCombinations(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"report", "cost", "--policy", "weighted", "--weight", "0"}, // 0 would become the default 0.5
		{"export", "focus", "--out", filepath.Join(dir, "x.csv"), "--policy", "weighted", "--weight", "0"},
	} {
		code, out := runFlag(dir, args...)
		if first, _, _ := strings.Cut(out, "\n"); code != exitInvalid || !strings.Contains(first, "--weight") || !rangeWords.MatchString(first) {
			t.Errorf("gpucost %s: exit %d, %q; want exit %d naming --weight and the values it takes", strings.Join(args, " "), code, first, exitInvalid)
		}
	}
}

// TestFlagRangesCoverTheTree fails when the tables name a flag no command has, so they do not
// keep entries for flags that are gone.
func TestFlagRangesCoverTheTree(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range sweptFlags() {
		seen[f.cmd+" --"+f.flag.Name] = true
		seen["--"+f.flag.Name] = true
	}
	for key := range flagRanges {
		if !seen[key] {
			t.Errorf("flagRanges[%q]: no command has this flag", key)
		}
	}
	for why, names := range textFlags {
		for _, n := range names {
			if !seen["--"+n] {
				t.Errorf("textFlags[%q] %q: no command has this flag", why, n)
			}
		}
	}
}

// TestListCutSays runs each listing whose --limit cuts it on the 3-day demo store: cut, the
// output says so and names --limit 0 (under the table, or on stderr beside CSV); with
// --limit 0 nothing is cut and the note is gone.
func TestListCutSays(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the demo store")
	}
	dir := loadDemo(t)
	for range 2 { // two audited entries, so audit --limit 1 cuts
		if code, _, errOut := runCLI(t, dir, "token", "create", "--name", "n", "--role", "viewer"); code != exitOK {
			t.Fatalf("token create: exit %d\n%s", code, errOut)
		}
	}
	for _, args := range [][]string{
		{"report", "idle"}, // the default --limit 20
		{"report", "idle", "--output", "csv"},
		{"plan", "instance", "--params", "7e9"}, // the default --limit 10
		{"report", "untagged", "--limit", "1"},
		{"audit", "--limit", "1"},
	} {
		code, out, errOut := runCLI(t, dir, args...)
		if code != exitOK || !strings.Contains(out+errOut, "--limit 0") {
			t.Errorf("gpucost %s: exit %d; want a note that the list was cut and --limit 0 shows all\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
		all := append(slices.DeleteFunc(slices.Clone(args), func(a string) bool { return a == "--limit" || a == "1" }), "--limit", "0")
		code, out, errOut = runCLI(t, dir, all...)
		if code != exitOK || strings.Contains(out+errOut, "--limit 0") {
			t.Errorf("gpucost %s: exit %d; want every row and no cut note\n%s%s", strings.Join(all, " "), code, out, errOut)
		}
	}
}
