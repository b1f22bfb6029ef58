package enforce

import (
	"slices"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/budget"
)

// CheckEstimate returns the policies that would stop the job est prices, or scale its endpoint
// to zero, once it runs (CheckJob). s holds the budgets' statuses at s.Now and the spot
// instances running; checks are the job's budget.JobCheck results, whose period (the one the
// job starts in, which may be after now's), spend, forecast and job cost replace each checked
// budget's in s. It is pure.
func CheckEstimate(policies []Policy, s Snapshot, est budget.Estimate, checks []budget.JobCheck) []Block {
	job := Job{Kind: KindEC2, Spot: est.Job.Pricing == budget.PricingSpot, Instances: est.Instances,
		Added: map[string]gpucost.Money{}}
	if est.Job.Kind == budget.KindSageMaker {
		job.Kind = KindSageMaker
	}
	start := est.Job.Start
	if start.IsZero() {
		start = s.Now
	}
	job.Line = est.Line(start)
	s.Statuses = slices.Clone(s.Statuses)
	for _, c := range checks {
		for i := range s.Statuses {
			if st := &s.Statuses[i]; st.Budget == c.Budget {
				st.Period, st.Spent, st.Forecast.Projected = c.Period, c.Spent, c.Forecast
				job.Added[c.Budget] = c.JobCost
			}
		}
	}
	return CheckJob(policies, s, job)
}
