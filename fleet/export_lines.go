package fleet

import (
	"context"

	"github.com/gpucost/gpucost"
)

// AllocationColumns are the columns AllocatedLines adds to a line, in the order an allocated
// FOCUS export writes them.
var AllocationColumns = []string{"x_Team", "x_Project", "x_Namespace", "x_Pod", "x_Job", "x_AllocationPolicy", "x_Idle", "x_GPUHours", "x_UsedGPUHours"}

// ExportLines is Lines for an export: a GPUOnly split of a period whose bill lines name no GPU
// returns NoGPULines's error, which says that the other lines are there.
func (s *Split) ExportLines(ctx context.Context, allocated bool, write func(*gpucost.CostLine) error) (int, error) {
	n, err := s.Lines(ctx, allocated, write)
	if gpucost.ErrorCode(err) == gpucost.ENotFound && s.GPUOnly {
		err = s.NoGPULines(ctx, err)
	}
	return n, err
}

// NoGPULines is the error of a GPU-only export whose period holds bill lines but none of GPUs:
// it says how many lines there are and that --all exports them. err is the split's ENotFound,
// returned as it is when the period holds no line at all.
func (s *Split) NoGPULines(ctx context.Context, err error) error {
	n := 0
	cerr := s.store.ScanCosts(ctx, s.filter(), func(*gpucost.CostLine) error { n++; return nil })
	if cerr != nil || n == 0 {
		return err
	}
	return gpucost.Errorf(gpucost.ENotFound, "no GPU lines %s (%d bill lines are stored in the period); use --all to export every line", s.Period.describe(), n)
}
