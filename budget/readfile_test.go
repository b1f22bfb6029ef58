package budget

import (
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

// TestReadFile checks that the budgets and job files are read as Load and LoadJob read them,
// that no path has no budgets, and that a missing file is an EInvalid error saying what was read.
func TestReadFile(t *testing.T) {
	bs, err := ReadFile("testdata/budgets.yaml")
	if err != nil || len(bs) == 0 {
		t.Fatalf("ReadFile(budgets.yaml) = %v, %v; want its budgets", bs, err)
	}
	if bs, err := ReadFile(""); bs != nil || err != nil {
		t.Errorf(`ReadFile("") = %v, %v; want none`, bs, err)
	}
	if _, err := ReadFile("testdata/missing.yaml"); gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.HasPrefix(err.Error(), "read budgets: ") {
		t.Errorf("ReadFile(missing) = %v; want %s read budgets", err, gpucost.EInvalid)
	}
	if j, err := ReadJobFile("testdata/job.yaml"); err != nil || j.InstanceType == "" {
		t.Errorf("ReadJobFile(job.yaml) = %+v, %v; want the job", j, err)
	}
	if _, err := ReadJobFile("testdata/missing.yaml"); gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.HasPrefix(err.Error(), "read the job spec: ") {
		t.Errorf("ReadJobFile(missing) = %v; want %s read the job spec", err, gpucost.EInvalid)
	}
}
