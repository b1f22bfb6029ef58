package notify

import (
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

// TestReadTargetsFile checks that the targets file is read as ParseTargets reads it, and that a
// missing file and a variable that is not set are EInvalid errors naming what went wrong.
func TestReadTargetsFile(t *testing.T) {
	got, warnings, err := ReadTargetsFile("testdata/targets.yaml", getenv)
	if err != nil || len(warnings) != 0 || len(got) != 3 {
		t.Fatalf("ReadTargetsFile(targets.yaml) = %d targets, %v, %v; want 3", len(got), warnings, err)
	}
	if _, _, err := ReadTargetsFile("testdata/missing.yaml", getenv); gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.HasPrefix(err.Error(), "read notification targets: ") {
		t.Errorf("ReadTargetsFile(missing) = %v; want %s read notification targets", err, gpucost.EInvalid)
	}
	unset := func(string) string { return "" }
	if _, _, err := ReadTargetsFile("testdata/targets.yaml", unset); gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "targets.yaml") {
		t.Errorf("ReadTargetsFile(secrets unset) = %v; want %s naming the file", err, gpucost.EInvalid)
	}
}
