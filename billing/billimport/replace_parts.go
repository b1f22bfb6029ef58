package billimport

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gpucost/gpucost"
)

// partialReplace returns the EConflict of group i replacing a stored multi-part import (the
// files of one export, CostImport.Files) with less than the whole of it, or nil: replacing
// takes out every line of the import it replaces, so one part given alone with --replace
// would drop the other parts' lines. The group is less than the whole when some (billing
// account, billing period) pair of the stored import is covered by no import of the batch, or
// when it has fewer files than the stored import has parts and is not an export's manifest (a
// manifest names a whole delivery). Options.Partial says the smaller replacement is meant.
// Nothing is stored when it refuses.
func (b *batch) partialReplace(i int) error {
	g := b.groups[i]
	for _, p := range b.replacing(i) {
		if len(p.Files) < 2 {
			continue
		}
		lost := b.uncovered([]gpucost.CostImport{p})
		fewer := g[0].src.Export == "" && len(g) < len(p.Files)
		if len(lost) > 0 || fewer {
			return partsReplaceConflict(b.imps[i].Name, len(g), p, lost)
		}
	}
	return nil
}

// partsReplaceConflict is the EConflict of replacing the stored multi-part import p with the
// import called name, of n files, which is less than the whole of p; lost are the pairs of p
// it leaves uncovered.
func partsReplaceConflict(name string, n int, p gpucost.CostImport, lost []gpucost.BillCoverage) error {
	names := make([]string, len(p.Files))
	for i, f := range p.Files {
		names[i] = filepath.Base(strings.ReplaceAll(f.Name, `\`, "/"))
	}
	if len(names) > 6 {
		names = append(names[:5], fmt.Sprintf("and %d more", len(p.Files)-5))
	}
	what := "this one file"
	if n > 1 {
		what = fmt.Sprintf("these %d files", n)
	}
	loses := "the lines of the parts it lacks"
	if len(lost) > 0 {
		loses = "billing account " + lost[0].String()
		if len(lost) > 1 {
			loses += fmt.Sprintf(" and %d more", len(lost)-1)
		}
		loses += ", which it does not cover, and the other parts' lines"
	}
	dir := filepath.Dir(p.Files[0].Name)
	return gpucost.Errorf(gpucost.EConflict, "import %s: --replace would replace import %d (%s), an export of %d parts (%s), with %s alone, taking %s out of the store; nothing was stored. Re-import every part of the export together with --replace: gpucost import billing --replace %s (the export's folder, or its manifest). If this is the whole restated bill, say so with --replace --partial",
		name, p.ID, p.Name, len(p.Files), strings.Join(names, ", "), what, loses, dir)
}
