package enforce

import (
	"fmt"
	"testing"
	"time"

	"github.com/gpucost/gpucost/budget"
)

// BenchmarkEvaluate evaluates the test policies plus 20 team policies against 10,000 running
// resources: go test ./enforce -run XXX -bench Evaluate
func BenchmarkEvaluate(b *testing.B) {
	s := testSnapshot(b)
	teams := []string{"research", "infra", "inference", "platform", "vision"}
	s.Resources = s.Resources[:0]
	for i := range 10_000 {
		s.Resources = append(s.Resources, Resource{Kind: KindEC2, ID: fmt.Sprintf("i-%05d", i), Provider: "aws", Region: "us-east-1",
			InstanceType: "g5.xlarge", Count: 1, Spot: i%3 == 0, State: "running", Running: true, Launched: t0.Add(time.Duration(i) * time.Minute),
			Tags: map[string]string{"team": teams[i%len(teams)], "approved": fmt.Sprint(i%7 == 0)}})
	}
	ps := testPolicies(b)
	for i := range 20 {
		ps = append(ps, Policy{Name: fmt.Sprintf("cap-%d", i), MaxSpot: 100, Scope: budget.Scope{Tags: map[string]string{"team": teams[i%len(teams)]}},
			Unless: map[string]string{"approved": "true"}, Actions: []string{ActStop, ActTag}})
	}
	b.ReportAllocs()
	var n int
	for b.Loop() {
		n = len(Evaluate(ps, s, true).Actions)
	}
	if n == 0 {
		b.Fatal("no actions")
	}
	b.ReportMetric(float64(n), "actions/op")
}
