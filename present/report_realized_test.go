package present

import (
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/fleet"
)

// Realized shows each step's predicted and realized saving with its interval, days and rates, a
// step still measuring by its note, and the total of the steps measured.
func TestRealizedTable(t *testing.T) {
	at := time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
	rep := fleet.RealizedReport{Measured: 1, Predicted: gpucost.USD(1781_010_000_000), Realized: gpucost.USD(1335_200_000_000),
		Low: gpucost.USD(72_670_000_000), High: gpucost.USD(2597_730_000_000), Steps: []fleet.RealizedStep{
			{AppliedStep: gpucost.AppliedStep{ID: "eval-p4d.24xlarge/right-sizing/release-on-exit", At: at, How: gpucost.AppliedManual,
				Predicted: gpucost.USD(1781_010_000_000)}, Status: fleet.RealizedMeasured, Basis: fleet.PerUsedGPUHour, Days: 24, AfterDays: 3,
				Realized: gpucost.USD(1335_200_000_000), Low: gpucost.USD(72_670_000_000), High: gpucost.USD(2597_730_000_000),
				BeforeRate: gpucost.USD(9_580_000_000), AfterRate: gpucost.USD(3_190_000_000)},
			{AppliedStep: gpucost.AppliedStep{ID: "training-p5.48xlarge/commitments/commit-p5.48xlarge", At: at.AddDate(0, 0, 20),
				How: gpucost.AppliedDetected + " pricing became spot", Predicted: gpucost.USD(14262_620_000_000)},
				Status: fleet.RealizedMeasuring, Note: "measuring: 1 days so far", Days: 1, AfterDays: 1},
		}}
	tab := Realized(rep)
	if want := "Realized savings: 1 of 2 applied steps measured on the bill, $1,335.20 a month against $1,781.01 predicted"; tab.Title != want {
		t.Errorf("title = %q, want %q", tab.Title, want)
	}
	want := [][]string{
		{"eval-p4d.24xlarge/right-sizing/release-on-exit", "2026-11-03", "manual", "$1,781.01", "$1,335.20", "$72.67 – $2,597.73", "24 (3 billed)",
			"$9.58/used GPU-h", "$3.19/used GPU-h", "measured"},
		{"training-p5.48xlarge/commitments/commit-p5.48xlarge", "2026-11-23", "detected: pricing became spot", "$14,262.62", "", "", "1 (1 billed)",
			"", "", "measuring: 1 days so far"},
		{"Total of the measured steps", "", "", "$1,781.01", "$1,335.20", "$72.67 – $2,597.73", "", "", "", ""},
	}
	if len(tab.Rows) != len(want) {
		t.Fatalf("Realized() = %d rows, want %d: %q", len(tab.Rows), len(want), tab.Rows)
	}
	for i := range want {
		if strings.Join(tab.Rows[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d = %q\nwant %q", i, tab.Rows[i], want[i])
		}
	}
	if empty := Realized(fleet.RealizedReport{Steps: []fleet.RealizedStep{}}); !strings.Contains(empty.Rows[0][0], "gpucost recommend apply ID") {
		t.Errorf("Realized() without steps = %q, want a row saying how to record one", empty.Rows)
	}
}

// DetectedChanges shows each change by its namespace, first day and what the bill showed, with
// the step it made or why none is named, and whether it is recorded.
func TestDetectedChangesTable(t *testing.T) {
	at := time.Date(2026, 11, 9, 0, 0, 0, 0, time.UTC)
	changes := []DetectedChange{
		{DetectedChange: fleet.DetectedChange{Namespace: "eval", Kind: fleet.ChangeFewerGPUs, From: "1.6", To: "0.533", At: at,
			How: "detected: fewer GPUs billed, 1.6→0.533 a day on average"}, Step: "eval-p4d.24xlarge/right-sizing/release-on-exit", Recorded: true},
		{DetectedChange: fleet.DetectedChange{Namespace: "training", Kind: fleet.ChangeCommitment, At: at.AddDate(0, 0, 1),
			How: "detected: a commitment appeared on p5.48xlarge (sp-1)"}},
	}
	tab := DetectedChanges(changes, false)
	want := [][]string{
		{"eval", "2026-11-09", "detected: fewer GPUs billed, 1.6→0.533 a day on average", "eval-p4d.24xlarge/right-sizing/release-on-exit", "yes"},
		{"training", "2026-11-10", "detected: a commitment appeared on p5.48xlarge (sp-1)", "(no step of the plan before the change names it)", "no"},
	}
	if tab.Title != "2 changes found on the bill" || len(tab.Rows) != len(want) {
		t.Fatalf("DetectedChanges() = %q, %q; want 2 changes", tab.Title, tab.Rows)
	}
	for i := range want {
		if strings.Join(tab.Rows[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d = %q\nwant %q", i, tab.Rows[i], want[i])
		}
	}
}

// TestRealizedAddsUp: three measured steps of $0.335 predicted and realized each print a total
// of $1.01 ($1.005); their rows add up to it, where rounding each printed $0.34 three times. A
// step still measuring, not in the total, prints its own $0.34.
func TestRealizedAddsUp(t *testing.T) {
	at := time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
	rep := fleet.RealizedReport{Measured: 3, Predicted: usd(t, "1.005"), Realized: usd(t, "1.005"), Low: usd(t, "0.5"), High: usd(t, "1.51")}
	for i, c := range amounts335(t, 4) {
		s := fleet.RealizedStep{AppliedStep: gpucost.AppliedStep{ID: "step-" + string(rune('a'+i)), At: at, Predicted: c},
			Status: fleet.RealizedMeasured, Realized: c, Low: c, High: c}
		if i == 3 {
			s.Status, s.Realized, s.Low, s.High = fleet.RealizedMeasuring, gpucost.Money{}, gpucost.Money{}, gpucost.Money{}
		}
		rep.Steps = append(rep.Steps, s)
	}
	tab := Realized(rep)
	if want := ", $1.01 a month against $1.01 predicted"; !strings.HasSuffix(tab.Title, want) {
		t.Errorf("Realized() title = %q, want it to end %q", tab.Title, want)
	}
	total := tab.Rows[len(tab.Rows)-1]
	for _, col := range []int{3, 4} {
		if got := sumDollarsColumn(t, tab.Rows[:3], col); total[col] != "$1.01" || got.Dollars() != total[col] {
			t.Errorf("Realized() column %d = %q, the measured steps add up to %s, want the total row's %s ($1.01)",
				col, columnCells(tab.Rows, col), got.Dollars(), total[col])
		}
	}
	if got := tab.Rows[3][3]; got != "$0.34" {
		t.Errorf("Realized() step still measuring predicted %s, want its own $0.34", got)
	}
}
