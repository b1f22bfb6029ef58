package gcp

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/billtest"
	"github.com/gpucost/gpucost/billing/internal/limits"
)

func discard(*gpucost.CostLine) error { return nil }

// A 15 MiB value in the first row of an export is refused before it is buffered: a resource
// name in the CSV export, a resource's global name in the JSON lines one.
func TestReadLongValue(t *testing.T) {
	for _, quoted := range []bool{true, false} {
		in, col := billtest.LongCSVField(t, "testdata/detailed_export_underscore.csv", "resource_name", billtest.LongValue, quoted)
		var err error
		alloc := billtest.Allocated(func() { _, err = Read(in, "bomb.csv", discard) })
		billtest.TooLong(t, err, alloc, "bomb.csv", fmt.Sprintf("bomb.csv:2: column %d (resource_name): ", col))
	}
	in, col := billtest.LongJSONValue(t, "testdata/detailed_export.jsonl", "global_name", billtest.LongValue)
	var err error
	alloc := billtest.Allocated(func() { _, err = Read(in, "bomb.jsonl", discard) })
	billtest.TooLong(t, err, alloc, "bomb.jsonl", fmt.Sprintf("bomb.jsonl:1: column resource.global_name at byte %d: ", col))
}

// A JSON row over the line limit is refused, naming the member it had reached; one whose long
// string fits in the buffer is refused once read.
func TestReadLongJSON(t *testing.T) {
	for _, tc := range []struct {
		name, row, where string
	}{
		{"many labels", `{"labels":[` + strings.Repeat(`{"key":"k","value":"v"},`, limits.MaxLine/20) + "{}]}\n", "column labels at byte"},
		{"long string", `{"cost":1,"service":{"description":"` + strings.Repeat("x", limits.MaxField+1) + `"}}` + "\n", "big.jsonl:1: column service.description at byte 36: "},
	} {
		_, err := Read(io.MultiReader(strings.NewReader(tc.row)), "big.jsonl", discard)
		billtest.Invalid(t, err, "big.jsonl", tc.where, "export it again")
	}
}
