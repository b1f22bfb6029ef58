package plan

// AutoscaleBeside runs o.Policy beside what it is judged against: with spot, the same policy
// all on-demand; and the oracle last, each run with its gap in replica-hours to the oracle.
// The oracle alone is one run.
func AutoscaleBeside(o AutoscaleOptions) ([]AutoscaleResult, error) {
	r, err := Autoscale(o)
	if err != nil {
		return nil, err
	}
	runs := []AutoscaleResult{r}
	if o.Policy == Oracle {
		return runs, nil
	}
	if o.Spot != nil {
		od := o
		od.Spot = nil
		all, err := Autoscale(od)
		if err != nil {
			return nil, err
		}
		all.Settings = "the same, all on-demand"
		runs = append(runs, all)
	}
	od := o
	od.Policy, od.Spot = Oracle, nil
	best, err := Autoscale(od)
	if err != nil {
		return nil, err
	}
	runs = append(runs, best)
	for i := range runs {
		if best.ReplicaHours > 0 {
			runs[i].GapReplicaHours = runs[i].ReplicaHours/best.ReplicaHours - 1
		}
	}
	return runs, nil
}
