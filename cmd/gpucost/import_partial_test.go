package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestImportBillingReplaceOnePart imports a CUR 2.0 export of two parts, refuses --replace with
// one of them (exit 5, naming the import, its parts and the command that replaces both) and
// leaves the store as it was, refuses --partial without --replace as a usage error, and lets
// --replace --partial replace the export with the one file.
func TestImportBillingReplaceOnePart(t *testing.T) {
	dir := t.TempDir()
	bills := filepath.Join(dir, "cur2")
	if err := os.MkdirAll(bills, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("../../billing/awscur/testdata/cur2_sample.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	head, rows := lines[0], lines[1:]
	p1, p2 := filepath.Join(bills, "cur2-00001.csv"), filepath.Join(bills, "cur2-00002.csv")
	for p, part := range map[string][][]byte{p1: rows[:len(rows)/2], p2: rows[len(rows)/2:]} {
		if err := os.WriteFile(p, append(bytes.Clone(head), bytes.Join(part, nil)...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustRun(t, dir, "import", "billing", bills)
	before, beforeTotals := storedLines(t, dir)
	code, _, errOut := runCLI(t, dir, "import", "billing", "--replace", p1)
	if code != exitConflict || !strings.Contains(errOut, "import 1 (") || !strings.Contains(errOut, "(cur2-00001.csv, cur2-00002.csv)") ||
		!strings.Contains(errOut, "gpucost import billing --replace "+bills) {
		t.Errorf("import billing --replace ONE-PART: exit %d, %s\nwant exit %d naming import 1, its parts and --replace %s", code, errOut, exitConflict, bills)
	}
	after, afterTotals := storedLines(t, dir)
	if len(after) != len(before) || !reflect.DeepEqual(afterTotals, beforeTotals) {
		t.Errorf("after the refusal the store holds %d lines, totals %v; want %d, %v", len(after), afterTotals, len(before), beforeTotals)
	}
	if code, _, errOut := runCLI(t, dir, "import", "billing", "--partial", p1); code != exitInvalid || !strings.Contains(errOut, "--partial needs --replace") {
		t.Errorf("import billing --partial without --replace: exit %d, %s; want exit %d", code, errOut, exitInvalid)
	}
	out := mustRun(t, dir, "import", "billing", "--replace", "--partial", p1)
	if !strings.Contains(out, "replaced import 1") {
		t.Errorf("import billing --replace --partial ONE-PART:\n%s\nwant import 1 replaced", out)
	}
}
