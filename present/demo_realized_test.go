package present

import (
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/fleet"
)

func TestWriteDemoRealized(t *testing.T) {
	at := time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
	measured := fleet.RealizedStep{AppliedStep: gpucost.AppliedStep{ID: "eval/right-sizing/release", Action: "release on exit", At: at, Predicted: gpucost.USD(1000_000_000_000)},
		Status: fleet.RealizedMeasured, Realized: gpucost.USD(900_000_000_000), Low: gpucost.USD(800_000_000_000), High: gpucost.USD(1000_000_000_000), Days: 20}
	waiting := fleet.RealizedStep{AppliedStep: gpucost.AppliedStep{ID: "x/spot/y", Action: "spot", At: at, Predicted: gpucost.USD(5_000_000_000)}, Note: "3 days of bill after it"}
	var b strings.Builder
	if err := WriteDemoRealized(&b, fleet.RealizedReport{Steps: []fleet.RealizedStep{measured, waiting}}, "/tmp/demo.db"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Applied on 2026-11-03: eval/right-sizing/release (release on exit). The plan predicted $1,000.00 a month; the bill shows $900.00 a month saved (90% interval $800.00 – $1,000.00, 20 days after it).",
		"Applied on 2026-11-03: x/spot/y (spot). The plan predicted $5.00 a month; measuring (3 days of bill after it).",
		"gpucost report savings --realized --db /tmp/demo.db",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("WriteDemoRealized wrote\n%s\nwant it to contain %q", b.String(), want)
		}
	}
}
