package present

import (
	"fmt"
	"strconv"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/query"
)

// Realized is report savings --realized: per applied step, the monthly saving the plan
// predicted beside the one measured on the bill, its 90% interval and the days measured, and
// the total of the steps measured, which their printed savings add up to
// (fleet.RealizedReport.Cents).
func Realized(rep fleet.RealizedReport) Table {
	c := rep.Cents()
	title := fmt.Sprintf("Realized savings: %d of %d applied steps measured on the bill", rep.Measured, len(rep.Steps))
	if rep.Measured > 0 {
		title += fmt.Sprintf(", %s a month against %s predicted", c.TotalRealized.Dollars(), c.TotalPredicted.Dollars())
	}
	t := Table{
		Title:   title,
		Columns: []string{"Step", "Applied", "How", "Predicted", "Realized", "90% interval", "Days", "Before rate", "After rate", "Status"},
		Right:   []int{3, 4, 5, 6, 7, 8},
		JSON:    rep,
	}
	for i, s := range rep.Steps {
		realizedCell, interval, before, after := "", "", "", ""
		status := s.Status
		if s.Status == fleet.RealizedMeasured {
			realizedCell = c.Realized[i].Dollars()
			interval = s.Low.Dollars() + " – " + s.High.Dollars()
			unit := "/used GPU-h"
			if s.Basis == fleet.PerDay {
				unit = "/day"
			}
			before, after = s.BeforeRate.Dollars()+unit, s.AfterRate.Dollars()+unit
		}
		if s.Status == fleet.RealizedMeasuring {
			status = s.Note
		} else if s.Note != "" {
			status += ": " + s.Note
		}
		t.Rows = append(t.Rows, []string{s.ID, s.At.Format(time.DateOnly), s.How, c.Predicted[i].Dollars(), realizedCell, interval,
			fmt.Sprintf("%d (%d billed)", s.Days, s.AfterDays), before, after, status})
	}
	if len(rep.Steps) == 0 {
		t.Rows = append(t.Rows, []string{"no step is recorded applied: gpucost recommend apply ID", "", "", "", "", "", "", "", "", ""})
	}
	if rep.Measured > 0 {
		t.Rows = append(t.Rows, []string{"Total of the measured steps", "", "", c.TotalPredicted.Dollars(), c.TotalRealized.Dollars(),
			rep.Low.Dollars() + " – " + rep.High.Dollars(), "", "", "", ""})
	}
	t.Notes = append(t.Notes,
		fmt.Sprintf("Realized: the workload's GPU cost on the bill per used GPU-hour over the %d days before the step against each day after it (up to %d, from the first midnight after the step), "+
			"times the used GPU-hours of the days after, scaled to a 730-hour month; per day where the workload has no telemetry. "+
			"The interval is 90%% (mean ± t·s/√n of the days' savings). A step is measured once %d days after it have bill lines.",
			fleet.RealizedBeforeDays, fleet.RealizedAfterDays, fleet.RealizedMinAfterDays))
	return t
}

// AppliedSteps is gpucost recommend applied: the steps recorded applied, with what the plan
// predicted when they were.
func AppliedSteps(steps []gpucost.AppliedStep) Table {
	t := Table{
		Title:   strconv.Itoa(len(steps)) + " applied steps",
		Columns: []string{"Step", "Applied", "How", "Predicted", "Before", "After", "Workload", "Recorded by", "Note"},
		Right:   []int{3, 4, 5},
		JSON:    steps,
	}
	for _, s := range steps {
		t.Rows = append(t.Rows, []string{s.ID, s.At.Format(time.RFC3339), s.How, s.Predicted.Dollars(), s.Before.Dollars(), s.After.Dollars(),
			workload(s), s.Actor, s.Note})
	}
	t.Notes = append(t.Notes, "gpucost report savings --realized measures each on the bill; gpucost recommend applied --remove ID forgets one.")
	return t
}

func workload(s gpucost.AppliedStep) string {
	w := s.Provider + " " + s.Region + " " + s.InstanceType
	if s.Namespace != "" {
		return "namespace " + s.Namespace + " (" + w + ")"
	}
	return fmt.Sprintf("%d machines (%s)", len(s.Resources), w)
}

// DetectedChange is one change the bill shows, with the plan step it made where one is found
// (query.DetectedSteps computes them for the CLI, the API and the dashboard alike).
type DetectedChange = query.DetectedStep

// DetectedChanges is gpucost recommend applied --detect.
func DetectedChanges(changes []DetectedChange, recorded bool) Table {
	t := Table{
		Title:   strconv.Itoa(len(changes)) + " changes found on the bill",
		Columns: []string{"Namespace", "From", "Change", "Step", "Recorded"},
		JSON:    changes,
	}
	for _, c := range changes {
		step, rec := c.Step, "no"
		if step == "" {
			step = "(no step of the plan before the change names it)"
		}
		if c.Recorded {
			rec = "yes"
		}
		t.Rows = append(t.Rows, []string{c.Namespace, c.At.Format(time.DateOnly), c.How, step, rec})
	}
	if !recorded {
		t.Notes = append(t.Notes, "gpucost recommend applied --detect --record records the changes that name a step as applied.")
	}
	return t
}
