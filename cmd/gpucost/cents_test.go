package main

import (
	"encoding/csv"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

// TestPrintedAmountsAddUp checks docs/architecture.md "Rounding" on the demo fleet: in report
// cost each row's printed cost less idle + idle is its printed total, and the Total and Idle
// columns add up to the exact totals rounded, the Total column to the bill's effective cost as
// the note under the table prints it; in report utilization the groups' printed idle cost and
// cost add up to the fleet row. It also counts the tables whose cells, rounded one by one, do
// not add up, so that the demo keeps exercising the rounding.
func TestPrintedAmountsAddUp(t *testing.T) {
	dir := loadDemo(t)
	const until = "2026-12-02T00:00:00Z"
	naive := 0
	for _, since := range []string{"1d", "2d", "3d"} {
		for _, by := range []string{"team", "namespace", "project", "provider"} {
			args := []string{"report", "cost", "--by", by, "--since", since, "--until", until}
			rows := csvRows(t, dir, args...)
			js := cli(t, dir, args...)
			var total, idle, exactTotal, exactIdle, naiveTotal gpucost.Money
			for i, r := range rows {
				less, id, tot := mustMoney(t, r["cost_less_idle"]), mustMoney(t, r["idle"]), mustMoney(t, r["total"])
				if less.Add(id) != tot {
					t.Errorf("%s row %s: cost less idle %s + idle %s != total %s", strings.Join(args, " "), r[by], r["cost_less_idle"], r["idle"], r["total"])
				}
				total, idle = total.Add(tot), idle.Add(id)
				g := items(field(js, "groups"))[i]
				exactTotal = exactTotal.Add(mustMoney(t, field(g, "total_cost").(string)))
				exactIdle = exactIdle.Add(mustMoney(t, field(g, "idle_cost").(string)))
				naiveTotal = naiveTotal.Add(mustMoney(t, field(g, "total_cost").(string)).Round(2))
			}
			bill := mustMoney(t, field(items(field(js, "totals"))[0], "effective_cost").(string))
			if total != exactTotal.Round(2) || total != bill.Round(2) || idle != exactIdle.Round(2) {
				t.Errorf("%s: Total column adds up to %s, Idle to %s; the bill's effective cost is %s, the exact idle %s",
					strings.Join(args, " "), total.Fixed(2), idle.Fixed(2), bill.Fixed(2), exactIdle.Fixed(2))
			}
			if naiveTotal != exactTotal.Round(2) {
				naive++
			}
		}
		for _, by := range []string{"gpu", "host", "model", "namespace"} {
			args := []string{"report", "utilization", "--by", by, "--since", since, "--until", until}
			rows := csvRows(t, dir, args...)
			fleetRow := rows[len(rows)-1]
			for _, col := range []string{"idle_cost_usd", "cost_usd"} {
				var sum gpucost.Money
				for _, r := range rows[:len(rows)-1] {
					sum = sum.Add(mustMoney(t, r[col]))
				}
				if sum != mustMoney(t, fleetRow[col]) {
					t.Errorf("%s: the groups' %s add up to %s, the fleet row says %s", strings.Join(args, " "), col, sum.Fixed(2), fleetRow[col])
				}
			}
			js := cli(t, dir, args...)
			var naiveCost gpucost.Money
			for _, g := range items(field(js, "groups")) {
				naiveCost = naiveCost.Add(mustMoney(t, field(g, "cost").(string)).Round(2))
			}
			if naiveCost != mustMoney(t, field(js, "fleet", "cost").(string)).Round(2) {
				naive++
			}
		}
	}
	if naive == 0 {
		t.Error("no table of the demo has cells that, rounded one by one, fail to add up: the test no longer exercises the rounding")
	}
}

// csvRows runs a report with --output csv and returns its rows keyed by the header.
func csvRows(t *testing.T, dir string, args ...string) []map[string]string {
	t.Helper()
	code, out, errOut := runCLI(t, dir, append(args, "--output", "csv")...)
	if code != exitOK {
		t.Fatalf("%s: exit %d\n%s", strings.Join(args, " "), code, errOut)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("%s --output csv: %v\n%s", strings.Join(args, " "), err, out)
	}
	rows := make([]map[string]string, len(recs)-1)
	for i, rec := range recs[1:] {
		rows[i] = map[string]string{}
		for j, k := range recs[0] {
			rows[i][k] = rec[j]
		}
	}
	return rows
}
