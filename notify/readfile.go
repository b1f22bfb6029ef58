package notify

import (
	"os"

	"github.com/gpucost/gpucost"
)

// ReadTargetsFile reads and checks the notification targets file at path (ParseTargets), its
// secrets looked up with getenv. Its errors are EInvalid; the warnings come back with them.
func ReadTargetsFile(path string, getenv func(string) string) (map[string]Target, []string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, gpucost.Errorf(gpucost.EInvalid, "read notification targets: %w", err)
	}
	targets, warnings, err := ParseTargets(path, data, getenv)
	if err != nil {
		return nil, warnings, gpucost.Errorf(gpucost.EInvalid, "%w", err)
	}
	return targets, warnings, nil
}
