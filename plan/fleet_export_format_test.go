package plan

import (
	"bytes"
	"testing"

	"github.com/gpucost/gpucost"
)

// TestExportFleet writes each format as its own function does and refuses another.
func TestExportFleet(t *testing.T) {
	r, err := Fleet(fleetOffers(t), a100Fleet)
	if err != nil {
		t.Fatal(err)
	}
	for format, direct := range map[string]func(FleetResult) ([]byte, error){"ec2-fleet": EC2FleetRequest, "karpenter": KarpenterNodePool} {
		got, err := ExportFleet(r, format)
		want, werr := direct(r)
		if err != nil || werr != nil || !bytes.Equal(got, want) {
			t.Errorf("ExportFleet(%s) = %d bytes, %v; want the %d bytes of its function", format, len(got), err, len(want))
		}
	}
	if _, err := ExportFleet(r, "terraform"); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("ExportFleet(terraform) error = %v, want %s", err, gpucost.EInvalid)
	}
}
