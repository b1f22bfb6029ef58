package recommend

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/plan"
)

// spotRec returns the spot recommendation of R1 under o.
func spotRec(t *testing.T, o Options) gpucost.Recommendation {
	t.Helper()
	recs, err := Recommend(r1View(), NewTable(r1Offers(), nil), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Kind == gpucost.RecSpot {
			return r
		}
	}
	t.Fatalf("Recommend(R1, %+v) has no spot recommendation", o.PoolRisk)
	return gpucost.Recommendation{}
}

// TestSpotUsesPoolRate checks that the spot lever takes a pool's measured rate for its
// checkpoint interval and overhead: at 50%/h, M = 2 h, the interval is Daly's optimum for δ = 5
// min and M = 2 h, and the spot cost scales with the wall-time ratio, so (saving against the
// same monthly cost) moves as ratio 5%/h : ratio 50%/h.
func TestSpotUsesPoolRate(t *testing.T) {
	assumed := spotRec(t, Options{})
	var risks []plan.PoolRisk
	for _, o := range r1Offers() {
		risks = append(risks, plan.PoolRisk{Region: o.Region, InstanceType: o.InstanceType, PerHour: 0.5, Source: "measured: 5 interruptions in 10 instance-hours"})
	}
	pooled := spotRec(t, Options{PoolRisk: risks})
	tau := plan.OptimalInterval(5*time.Minute, 2*time.Hour).Round(time.Minute)
	if !strings.Contains(pooled.Action, "checkpointing every "+tau.String()) {
		t.Errorf("spot at 50%%/h: action %q, want checkpointing every %s", pooled.Action, tau)
	}
	if !strings.Contains(strings.Join(pooled.Evidence, "\n"), "at 50%/h interruptions") ||
		!strings.Contains(strings.Join(pooled.Evidence, "\n"), "interruption rate: measured") {
		t.Errorf("spot at 50%%/h: evidence %q, want the pool's rate and its source", pooled.Evidence)
	}
	if strings.Contains(pooled.ConfidenceWhy, "assumed") || !strings.Contains(assumed.ConfidenceWhy, "assumed") {
		t.Errorf("confidence why: pooled %q, assumed %q; want only the assumed rate said to be assumed", pooled.ConfidenceWhy, assumed.ConfidenceWhy)
	}
	r5 := plan.WallTimeRatio(plan.OptimalInterval(5*time.Minute, 20*time.Hour), 5*time.Minute, 10*time.Minute, 20*time.Hour)
	r50 := plan.WallTimeRatio(plan.OptimalInterval(5*time.Minute, 2*time.Hour), 5*time.Minute, 10*time.Minute, 2*time.Hour)
	// saving = before − spot × ratio, so before − saving is proportional to the ratio; before is
	// the same: the resources' monthly cost, read from the assumed recommendation's evidence.
	before := monthlyBefore(t, assumed)
	got := float64(before.Nanos-pooled.MonthlySaving.Nanos) / float64(before.Nanos-assumed.MonthlySaving.Nanos)
	if want := r50 / r5; math.Abs(got-want) > 1e-6 {
		t.Errorf("spot cost at 50%%/h over 5%%/h = %v, want the wall-time ratios' %v", got, want)
	}
}

// monthlyBefore is the monthly cost of r's resources in R1.
func monthlyBefore(t *testing.T, r gpucost.Recommendation) gpucost.Money {
	t.Helper()
	sum := gpucost.USD(0)
	for _, res := range r1View().Resources {
		for _, id := range r.Resources {
			if res.ID == id {
				sum = sum.Add(res.Monthly)
			}
		}
	}
	if sum.Nanos == 0 {
		t.Fatalf("no resource of %v in R1", r.Resources)
	}
	return sum
}
