package enforce

import (
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

// TestReadFile checks that the policies file is read as Load reads it, and that a missing file
// is an EInvalid error saying what was read.
func TestReadFile(t *testing.T) {
	ps, err := ReadFile("testdata/policies.yaml", testBudgets(t))
	if err != nil || len(ps) != 3 {
		t.Fatalf("ReadFile(policies.yaml) = %d policies, %v; want 3", len(ps), err)
	}
	if _, err := ReadFile("testdata/missing.yaml", nil); gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.HasPrefix(err.Error(), "read policies: ") {
		t.Errorf("ReadFile(missing) = %v; want %s read policies", err, gpucost.EInvalid)
	}
}
