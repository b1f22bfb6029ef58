package present

import (
	"reflect"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/enforce"
)

func TestEstimateRefusals(t *testing.T) {
	blocks := []enforce.Block{{Policy: "research-over-budget", Reason: "policy research-over-budget would stop the job"}}
	checks := []budget.JobCheck{
		{Budget: "research-gpus", Period: "2026-11", Amount: gpucost.USD(100e9), Base: gpucost.USD(200e9), JobCost: gpucost.USD(20e9),
			Breaks: true, LeftAfter: gpucost.USD(-120e9)},
		{Budget: "infra", Period: "2026-11", LeftAfter: gpucost.USD(5e9)},
	}
	lines, broken := EstimateRefusals(blocks, checks)
	want := []string{"policy research-over-budget would stop the job", "the job would break budget research-gpus in 2026-11: " + gpucost.USD(-120e9).Dollars() + " left after it"}
	if !reflect.DeepEqual(lines, want) || !broken {
		t.Errorf("EstimateRefusals = %q, %v; want %q, true", lines, broken, want)
	}
	if lines, broken := EstimateRefusals(nil, checks[1:]); lines != nil || broken {
		t.Errorf("EstimateRefusals(a job within its budget) = %q, %v; want none", lines, broken)
	}
}
