package present

import (
	"fmt"

	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/enforce"
)

// EstimateRefusals are the lines gpucost estimate writes on stderr after its table: why each
// policy would stop the job, then each budget the job would break. broken says whether any
// budget would break.
func EstimateRefusals(blocks []enforce.Block, checks []budget.JobCheck) (lines []string, broken bool) {
	for _, b := range blocks {
		lines = append(lines, b.Reason)
	}
	for _, c := range checks {
		if c.Breaks {
			lines = append(lines, fmt.Sprintf("the job would break budget %s in %s: %s left after it", c.Budget, c.Period, leftAfter(c).Dollars()))
			broken = true
		}
	}
	return lines, broken
}
