package present

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/enforce"
)

// EnforceSavings is what gpucost enforce's idle and off-hours policies would have saved had
// they run through the period: per policy and resource, the held and stopped hours and the
// monthly saving, with recommend's idle-schedule lever on the same machines beside it. hosts
// names each resource id by its telemetry host, as recommend names machines.
func EnforceSavings(replays []enforce.Replayed, lever []gpucost.Recommendation, from, to time.Time, hosts map[string]string) Table {
	t := Table{
		Title:   fmt.Sprintf("Idle and off-hours policies replayed on %s – %s", from.UTC().Format(time.DateOnly), to.UTC().Format(time.DateOnly)),
		Columns: []string{"Policy", "Resource", "Host", "Held h", "Stopped h", "Stopped %", "GPU-h stopped", "Monthly saving"},
		Right:   []int{3, 4, 5, 6, 7},
		JSON:    map[string]any{"replays": replays, "idle_schedule_lever": lever},
	}
	totals := map[string]gpucost.Money{}
	gpuH := map[string]float64{}
	var order []string
	for _, r := range replays {
		if r.StoppedHours == 0 {
			continue
		}
		pct := 100 * r.StoppedHours / r.HeldHours
		saving := "unpriced"
		if r.Priced {
			saving = r.Monthly.Dollars()
			if _, ok := totals[r.Policy]; !ok {
				order = append(order, r.Policy)
			}
			totals[r.Policy] = totals[r.Policy].Add(r.Monthly)
		}
		gpuH[r.Policy] += r.GPUHours
		t.Rows = append(t.Rows, []string{r.Policy, r.Resource.ID, hosts[r.Resource.ID], fmt.Sprintf("%.0f", r.HeldHours), fmt.Sprintf("%.0f", r.StoppedHours),
			fmt.Sprintf("%.1f%%", pct), fmt.Sprintf("%.0f", r.GPUHours), saving})
	}
	months := to.Sub(from).Hours() / 730
	for _, p := range order {
		t.Notes = append(t.Notes, fmt.Sprintf("%s would save %s a month (%.0f GPU-hours stopped a month).", p, totals[p].Dollars(), gpuH[p]/max(months, 1e-9)))
	}
	if len(t.Rows) == 0 {
		t.Notes = append(t.Notes, "No policy would have stopped anything in the period.")
	}
	for _, rec := range lever {
		t.Notes = append(t.Notes, leverNote(rec, replays, hosts, order))
	}
	t.Notes = append(t.Notes, "The replay stops a resource once its policy's trigger holds and counts the held hours after that; the saving is the stopped share of the bill's monthly cost, as recommend prices its levers.")
	return t
}

// leverNote compares one idle-schedule recommendation with each policy's saving on its machines.
func leverNote(rec gpucost.Recommendation, replays []enforce.Replayed, hosts map[string]string, policies []string) string {
	note := fmt.Sprintf("recommend's idle-schedule lever (alone, on the fleet as it is): %s saves %s a month.", rec.Action, rec.MonthlySaving.Dollars())
	for _, p := range policies {
		sum := gpucost.USD(0)
		n := 0
		for _, r := range replays {
			if r.Policy == p && r.Priced && slices.Contains(rec.Resources, cmp.Or(hosts[r.Resource.ID], r.Resource.ID)) {
				sum = sum.Add(r.Monthly)
				n++
			}
		}
		if n == 0 || rec.MonthlySaving.IsZero() {
			continue
		}
		diff := 100 * (float64(sum.Nanos) - float64(rec.MonthlySaving.Nanos)) / float64(rec.MonthlySaving.Nanos)
		verdict := "within 5%"
		if math.Abs(diff) > 5 {
			verdict = "more than 5% apart"
		}
		note += fmt.Sprintf(" %s on the same %d machines: %s, %+.1f%% (%s).", p, n, sum.Dollars(), diff, verdict)
	}
	return note
}

// EnforceAvoided is "enforce avoided": each stop or scale-down carried out, how long it kept the
// resource from running and what that saved.
func EnforceAvoided(av []enforce.Avoided) Table {
	t := Table{
		Title:   "GPU-hours avoided by enforcement",
		Columns: []string{"Action", "Time", "Policy", "Resource", "Until", "Hours", "GPU-hours", "Cost avoided"},
		Right:   []int{0, 5, 6, 7},
		JSON:    append([]enforce.Avoided{}, av...),
	}
	var gpuH float64
	totals := map[string]gpucost.Money{}
	var currencies []string
	for _, v := range av {
		a := v.Entry.Action
		until := v.Until.UTC().Format(time.RFC3339)
		if v.InForce {
			until = "in force (now)"
		}
		cost := "unpriced"
		if v.Priced {
			cost = v.Cost.Dollars()
			if _, ok := totals[v.Cost.Currency]; !ok {
				currencies = append(currencies, v.Cost.Currency)
			}
			totals[v.Cost.Currency] = totals[v.Cost.Currency].Add(v.Cost)
		}
		gpuH += v.GPUHours
		t.Rows = append(t.Rows, []string{fmt.Sprint(v.Entry.ID), v.Entry.At.UTC().Format(time.RFC3339), a.Policy, a.Resource.Kind + " " + a.Resource.ID,
			until, fmt.Sprintf("%.1f", v.Hours), fmt.Sprintf("%.1f", v.GPUHours), cost})
	}
	if len(av) == 0 {
		t.Notes = append(t.Notes, "No stop or scale-to-zero has been carried out (dry runs avoid nothing).")
		return t
	}
	note := fmt.Sprintf("%.1f GPU-hours avoided", gpuH)
	for _, c := range currencies {
		note += ", " + totals[c].String()
	}
	t.Notes = append(t.Notes, note+".")
	return t
}
