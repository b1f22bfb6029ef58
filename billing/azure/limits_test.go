package azure

import (
	"fmt"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/billtest"
)

func discard(*gpucost.CostLine) error { return nil }

// A 15 MiB ResourceId in the first row of a cost details file is refused before it is buffered.
func TestReadLongField(t *testing.T) {
	for _, quoted := range []bool{true, false} {
		in, col := billtest.LongCSVField(t, "testdata/ea_actual.csv", "ResourceId", billtest.LongValue, quoted)
		var err error
		alloc := billtest.Allocated(func() { _, err = Read(in, "bomb.csv", discard) })
		billtest.TooLong(t, err, alloc, "bomb.csv", fmt.Sprintf("bomb.csv:2: column %d (ResourceId): ", col))
	}
}
