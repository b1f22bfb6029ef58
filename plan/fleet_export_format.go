package plan

import "github.com/gpucost/gpucost"

// ExportFleet writes the fleet plan r in format: ec2-fleet (EC2FleetRequest) or karpenter
// (KarpenterNodePool). Another format is an EInvalid error naming plan fleet's --export.
func ExportFleet(r FleetResult, format string) ([]byte, error) {
	switch format {
	case "ec2-fleet":
		return EC2FleetRequest(r)
	case "karpenter":
		return KarpenterNodePool(r)
	}
	return nil, gpucost.Errorf(gpucost.EInvalid, "--export %q: use ec2-fleet or karpenter", format)
}
