package budget

import (
	"os"

	"github.com/gpucost/gpucost"
)

// ReadFile reads and checks the budgets file at path (Load); no path has no budgets.
func ReadFile(path string) ([]Budget, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "read budgets: %w", err)
	}
	return Load(path, data)
}

// ReadJobFile reads and checks the job spec at path (LoadJob), for gpucost estimate.
func ReadJobFile(path string) (Job, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Job{}, gpucost.Errorf(gpucost.EInvalid, "read the job spec: %w", err)
	}
	return LoadJob(path, data)
}
