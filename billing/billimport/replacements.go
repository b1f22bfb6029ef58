package billimport

import (
	"fmt"

	"github.com/gpucost/gpucost"
)

// Replacements returns the audit entries of the imports among results that replaced earlier
// ones (ReplaceDetail), once per import: the parts of one export share theirs. The caller
// stamps each with its time, actor and source.
func Replacements(results []Result) []gpucost.AuditEntry {
	var out []gpucost.AuditEntry
	seen := map[int64]bool{}
	for _, r := range results {
		if detail := r.ReplaceDetail(); detail != "" && !seen[r.ImportID] {
			seen[r.ImportID] = true
			out = append(out, gpucost.AuditEntry{Action: gpucost.AuditBillReplace, Target: fmt.Sprintf("import %d (%s)", r.ImportID, r.File), Detail: detail})
		}
	}
	return out
}
