package enforce

import (
	"os"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/budget"
)

// ReadFile reads and checks the policies file at path, whose policies name budgets (Load).
func ReadFile(path string, budgets []budget.Budget) ([]Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "read policies: %w", err)
	}
	return Load(path, data, budgets)
}
