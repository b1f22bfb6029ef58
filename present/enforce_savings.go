package present

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/enforce"
)

// EnforceSavings is what gpucost enforce's idle and off-hours policies would have saved had
// they run through the period: per policy and resource, the held and stopped hours and the
// monthly saving, with recommend's idle-schedule lever on the same machines beside it. hosts
// names each resource id by its telemetry host, as recommend names machines. Each policy's
// rows add up to the saving its note prints (replayCents).
func EnforceSavings(replays []enforce.Replayed, lever []gpucost.Recommendation, from, to time.Time, hosts map[string]string) Table {
	t := Table{
		Title:   fmt.Sprintf("Idle and off-hours policies replayed on %s – %s", from.UTC().Format(time.DateOnly), to.UTC().Format(time.DateOnly)),
		Columns: []string{"Policy", "Resource", "Host", "Held h", "Stopped h", "Stopped %", "GPU-h stopped", "Monthly saving"},
		Right:   []int{3, 4, 5, 6, 7},
		JSON:    map[string]any{"replays": replays, "idle_schedule_lever": lever},
	}
	cents := replayCents(replays)
	totals := map[string]*currencySums{}
	gpuH := map[string]float64{}
	var order []string
	for i, r := range replays {
		if r.StoppedHours == 0 {
			continue
		}
		pct := 100 * r.StoppedHours / r.HeldHours
		saving := "unpriced"
		if r.Priced {
			saving = cents[i].Dollars()
			if _, ok := totals[r.Policy]; !ok {
				order = append(order, r.Policy)
				totals[r.Policy] = &currencySums{}
			}
			totals[r.Policy].add(cents[i])
		}
		gpuH[r.Policy] += r.GPUHours
		t.Rows = append(t.Rows, []string{r.Policy, r.Resource.ID, hosts[r.Resource.ID], fmt.Sprintf("%.0f", r.HeldHours), fmt.Sprintf("%.0f", r.StoppedHours),
			fmt.Sprintf("%.1f%%", pct), fmt.Sprintf("%.0f", r.GPUHours), saving})
	}
	months := to.Sub(from).Hours() / 730
	for _, p := range order {
		t.Notes = append(t.Notes, fmt.Sprintf("%s would save %s a month (%.0f GPU-hours stopped a month).", p, totals[p].dollars(), gpuH[p]/max(months, 1e-9)))
	}
	if len(t.Rows) == 0 {
		t.Notes = append(t.Notes, "No policy would have stopped anything in the period.")
	}
	for _, rec := range lever {
		t.Notes = append(t.Notes, leverNote(rec, replays, cents, hosts, order))
	}
	t.Notes = append(t.Notes, "The replay stops a resource once its policy's trigger holds and counts the held hours after that; the saving is the stopped share of the bill's monthly cost, as recommend prices its levers.")
	return t
}

// leverNote compares one idle-schedule recommendation with each policy's saving on its machines:
// the sum of those rows' printed savings (cents, replayCents), in the recommendation's currency.
func leverNote(rec gpucost.Recommendation, replays []enforce.Replayed, cents []gpucost.Money, hosts map[string]string, policies []string) string {
	note := fmt.Sprintf("recommend's idle-schedule lever (alone, on the fleet as it is): %s saves %s a month.", rec.Action, rec.MonthlySaving.Dollars())
	currency := cmp.Or(rec.MonthlySaving.Currency, "USD")
	for _, p := range policies {
		sum := gpucost.Money{Currency: currency}
		var exact int64
		n := 0
		for i, r := range replays {
			if r.Policy == p && r.Priced && cmp.Or(r.Monthly.Currency, "USD") == currency &&
				slices.Contains(rec.Resources, cmp.Or(hosts[r.Resource.ID], r.Resource.ID)) {
				sum = sum.Add(cents[i])
				exact += r.Monthly.Nanos
				n++
			}
		}
		if n == 0 || rec.MonthlySaving.IsZero() {
			continue
		}
		diff := 100 * (float64(exact) - float64(rec.MonthlySaving.Nanos)) / float64(rec.MonthlySaving.Nanos)
		verdict := "within 5%"
		if math.Abs(diff) > 5 {
			verdict = "more than 5% apart"
		}
		note += fmt.Sprintf(" %s on the same %d machines: %s, %+.1f%% (%s).", p, n, sum.Dollars(), diff, verdict)
	}
	return note
}

// replayCents returns each replay's monthly saving as the table prints it, in the order of
// replays: each policy's priced rows (those that stopped something) rounded by largest
// remainder (gpucost.Apportion), so that they add up to the policy's saving as its note prints
// it; zero for the others.
func replayCents(replays []enforce.Replayed) []gpucost.Money {
	byPolicy := map[string][]int{}
	var order []string
	for i, r := range replays {
		if r.StoppedHours == 0 || !r.Priced {
			continue
		}
		if _, ok := byPolicy[r.Policy]; !ok {
			order = append(order, r.Policy)
		}
		byPolicy[r.Policy] = append(byPolicy[r.Policy], i)
	}
	out := make([]gpucost.Money, len(replays))
	for _, p := range order {
		idx := byPolicy[p]
		ms := make([]gpucost.Money, len(idx))
		for j, i := range idx {
			ms[j] = replays[i].Monthly
		}
		for j, m := range gpucost.Apportion(ms, 2) {
			out[idx[j]] = m
		}
	}
	return out
}

// EnforceAvoided is "enforce avoided": each stop or scale-down carried out, how long it kept the
// resource from running and what that saved; the priced rows' printed costs add up, currency by
// currency, to the total in the note under them (gpucost.Apportion).
func EnforceAvoided(av []enforce.Avoided) Table {
	t := Table{
		Title:   "GPU-hours avoided by enforcement",
		Columns: []string{"Action", "Time", "Policy", "Resource", "Until", "Hours", "GPU-hours", "Cost avoided"},
		Right:   []int{0, 5, 6, 7},
		JSON:    append([]enforce.Avoided{}, av...),
	}
	var gpuH float64
	costs := make([]gpucost.Money, len(av))
	for i, v := range av {
		if v.Priced {
			costs[i] = v.Cost
		}
	}
	costs = gpucost.Apportion(costs, 2)
	var totals currencySums
	for i, v := range av {
		a := v.Entry.Action
		until := v.Until.UTC().Format(time.RFC3339)
		if v.InForce {
			until = "in force (now)"
		}
		cost := "unpriced"
		if v.Priced {
			cost = costs[i].Dollars()
			totals.add(costs[i])
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
	for _, m := range totals.sums {
		note += ", " + m.String()
	}
	t.Notes = append(t.Notes, note+".")
	return t
}

// currencySums adds up amounts currency by currency, in order of first appearance.
type currencySums struct{ sums []gpucost.Money }

func (c *currencySums) add(m gpucost.Money) {
	cur := cmp.Or(m.Currency, "USD")
	for i, s := range c.sums {
		if s.Currency == cur {
			c.sums[i] = s.Add(m)
			return
		}
	}
	c.sums = append(c.sums, gpucost.Money{Nanos: m.Nanos, Currency: cur})
}

// dollars prints the sums as Money.Dollars does, joined by " and ".
func (c *currencySums) dollars() string {
	parts := make([]string, len(c.sums))
	for i, s := range c.sums {
		parts[i] = s.Dollars()
	}
	return strings.Join(parts, " and ")
}
