package web

import (
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/httpapi"
)

// The Recommendations page shows each applied step's predicted and realized saving, its
// interval and days, a step still measuring, and the total of those measured.
func TestRecommendationsShowRealized(t *testing.T) {
	rep := fleet.RealizedReport{Measured: 1, Predicted: gpucost.USD(1781_010_000_000), Realized: gpucost.USD(1335_200_000_000),
		Low: gpucost.USD(72_670_000_000), High: gpucost.USD(2597_730_000_000), Steps: []fleet.RealizedStep{
			{AppliedStep: gpucost.AppliedStep{ID: "eval-p4d.24xlarge/right-sizing/release-on-exit", At: testNow, How: gpucost.AppliedManual,
				Predicted: gpucost.USD(1781_010_000_000)}, Status: fleet.RealizedMeasured, Days: 24,
				Realized: gpucost.USD(1335_200_000_000), Low: gpucost.USD(72_670_000_000), High: gpucost.USD(2597_730_000_000)},
			{AppliedStep: gpucost.AppliedStep{ID: "training-p5.48xlarge/commitments/commit-p5.48xlarge", At: testNow, How: gpucost.AppliedManual,
				Predicted: gpucost.USD(14262_620_000_000)}, Status: fleet.RealizedMeasuring, Note: "measuring: 1 days so far"},
		}}
	l := layout{Title: "Recommendations", Data: recommendationsPage{RecommendationReport: httpapi.RecommendationReport{}, Realized: rep}}
	got, err := writePage(mustAssets(), "recommendations.html", l)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Realized savings", "1 of 2 applied steps measured on the bill: $1,335.20/month realized against $1,781.01 predicted",
		"<code>eval-p4d.24xlarge/right-sizing/release-on-exit</code>", "$72.67 – $2,597.73", "measuring: 1 days so far", "$14,262.62"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("recommendations page lacks %q", want)
		}
	}
	l.Data = recommendationsPage{}
	if got, _ := writePage(mustAssets(), "recommendations.html", l); strings.Contains(string(got), "Realized savings") {
		t.Errorf("recommendations page without applied steps shows a realized section")
	}
}
