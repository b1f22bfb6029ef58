package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// helpCSVExample returns the CSV file and the command that `import telemetry --help` shows, as
// printed.
func helpCSVExample(t *testing.T, dir string) (file string, args []string) {
	t.Helper()
	code, help, errOut := runCLI(t, dir, "import", "telemetry", "--help")
	if code != exitOK {
		t.Fatalf("import telemetry --help: exit %d\n%s", code, errOut)
	}
	_, rest, ok := strings.Cut(help, "A CSV file util.csv such as\n")
	body, cmdLine, ok2 := strings.Cut(rest, "is imported with\n")
	if !ok || !ok2 {
		t.Fatalf("import telemetry --help shows no CSV example:\n%s", help)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(body, "\n"), "\n") {
		lines = append(lines, strings.TrimPrefix(l, "  "))
	}
	cmdLine, _, _ = strings.Cut(cmdLine, "\n")
	f := strings.Fields(cmdLine)
	if len(f) < 3 || f[0] != "gpucost" {
		t.Fatalf("example command %q is not a gpucost command", cmdLine)
	}
	return strings.Join(lines, "\n") + "\n", f[1:]
}

// TestImportTelemetryCSVHelpExample imports the CSV file `import telemetry --help` shows with
// the command it shows, and reads the GPUs back.
func TestImportTelemetryCSVHelpExample(t *testing.T) {
	dir := t.TempDir()
	file, args := helpCSVExample(t, dir)
	path := filepath.Join(dir, "util.csv")
	if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, a := range args {
		if a == "util.csv" {
			args[i] = path
		}
	}
	code, out, errOut := runCLI(t, dir, append(args, "--output", "json")...)
	var st []fileStats
	if code != exitOK || json.Unmarshal([]byte(out), &st) != nil || len(st) != 1 {
		t.Fatalf("%v: exit %d\n%s%s", args, code, out, errOut)
	}
	if s := st[0]; s.Lines != 3 || s.Samples != 3 || s.Skipped != 0 || s.Rollups == 0 {
		t.Errorf("%v = %+v; want 3 lines, 3 samples, none skipped", args, s)
	}
	code, out, errOut = runCLI(t, dir, "report", "utilization", "--since", "2026-11-02", "--until", "2026-11-02", "--by", "gpu", "--output", "json")
	if code != exitOK {
		t.Fatalf("report utilization: exit %d\n%s", code, errOut)
	}
	var rep struct {
		Groups []struct {
			Key, Model, Host string
			Samples          int
			UtilMax          float64  `json:"util_max"`
			MemTotalMiB      float64  `json:"mem_total_mib"`
			PowerMaxW        *float64 `json:"power_max_w"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Groups) != 2 {
		t.Fatalf("report utilization = %v\n%s", err, out)
	}
	a, l4 := rep.Groups[0], rep.Groups[1]
	if a.Key != "GPU-7f3a" || a.Host != "node-1" || a.Model != "A100-80GB" || a.Samples != 2 || a.UtilMax != 87.5 || a.PowerMaxW == nil || *a.PowerMaxW != 310.5 {
		t.Errorf("report utilization: first GPU %+v; want GPU-7f3a on node-1, an A100-80GB, 2 samples, max 87.5%%, 310.5 W", a)
	}
	if l4.Key != "gpu0" || l4.Host != "node-2" || l4.Model != "L4" || l4.MemTotalMiB != 23034 || l4.PowerMaxW != nil {
		t.Errorf("report utilization: second GPU %+v; want gpu0 on node-2, an L4 of 23034 MiB, no power", l4)
	}
}

// TestImportTelemetryCSVRefusesWhole refuses a CSV file with one bad line, naming where and
// what to do, and stores none of its lines.
func TestImportTelemetryCSVRefusesWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "trace.csv")
	body := "timestamp,gpu,util,memory used [MiB],memory total [MiB]\n2026-11-02T10:00:00Z,GPU-1,50,1,2\n2026-11-02T10:01:00Z,GPU-1,0.5x,1,2\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, dir, "import", "telemetry", "--format", "csv", path)
	want := path + ` line 3 column 3 (util): "0.5x" is not a number: write a plain decimal such as 42.5, without its unit`
	if code != exitInvalid || !strings.Contains(errOut, want) {
		t.Errorf("import telemetry --format csv: exit %d\n%s%s\nwant exit %d and %q", code, out, errOut, exitInvalid, want)
	}
	if code, _, errOut := runCLI(t, dir, "report", "utilization", "--since", "2026-11-02", "--until", "2026-11-02"); code == exitOK {
		t.Errorf("report utilization after a refused import: exit 0; want no telemetry stored\n%s", errOut)
	}
}
