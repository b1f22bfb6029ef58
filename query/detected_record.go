package query

// ToRecord returns, in order, the indexes of the changes of found whose steps recommend
// applied --detect --record records: those naming a step not recorded yet, the first of
// several naming one step. It marks the others Recorded where their step is recorded already,
// or is by an earlier change.
func ToRecord(found []DetectedStep) []int {
	chosen := map[string]bool{}
	var out []int
	for i, d := range found {
		if d.Step == "" || d.Recorded || chosen[d.Step] {
			found[i].Recorded = d.Recorded || chosen[d.Step]
			continue
		}
		chosen[d.Step] = true
		out = append(out, i)
	}
	return out
}
