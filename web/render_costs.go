package web

import "strconv"

// writeBudgets writes each budget's spend, forecast, rates and burn-down chart.
func writeBudgets(h *htmlPage, l layout) {
	d := l.Data.(budgetsPage)
	h.s(`
`)
	if len(d.Budgets) > 0 {
		h.s(`
`)
		for i, b := range d.Budgets {
			h.f(`
<section class="card budget level-%v" id="budget-%v">
  <h2>%v <span class="sub">%v, %v to %v</span></h2>
  <div class="budget-grid">
    <dl>
      <dt>Spent</dt><dd>%v of %v (%v)</dd>
      <dt>Used</dt><dd><meter min="0" max="1" low="0.8" high="0.99" optimum="0" value="%v">%v</meter></dd>
      <dt>Forecast</dt><dd>%v (%v)`, budgetLevel(b.Percent, b.ForecastPercent), b.Budget, b.Budget, b.Period, date(b.Start), date(b.End),
				money(b.Spent), money(b.Amount), formatPct(b.Percent), ratio(b.Spent, b.Amount), formatPct(b.Percent),
				money(b.Forecast.Projected), formatPct(b.ForecastPercent))
			if b.Forecast.HistoryDays != 0 && b.Forecast.Banded() {
				h.f(`, likely %v – %v`, money(b.Forecast.Low), money(b.Forecast.High))
			} else if b.Forecast.HistoryDays != 0 {
				h.f(`; range: not enough data (%v days)`, b.Forecast.HistoryDays)
			}
			h.f(`</dd>
      <dt>Remaining</dt><dd>%v, %v day%v left</dd>
      <dt>Burn rate</dt><dd>%v/day; %v/day keeps it within budget</dd>
      <dt>Thresholds reached</dt><dd>`, money(b.Amount.Round(2).Sub(b.Spent.Round(2))), b.DaysLeft, plural(b.DaysLeft), money(b.BurnRate), money(b.AllowedRate))
			if len(b.Crossed) > 0 {
				for j, c := range b.Crossed {
					if j > 0 {
						h.s(`, `)
					}
					h.f(`<span class="tag">%v</span>`, c.Threshold)
				}
			} else {
				h.s(`none`)
			}
			idx := urlNormalized(strconv.Itoa(i))
			h.f(`</dd>
    </dl>
    <div>
      <div class="chart" data-chart="line" data-src="chart-budget-%v" data-points="%v" role="img" aria-label="Burn-down of budget %v"></div>
      <script type="application/json" id="chart-budget-%v">`, idx, b.Chart.Points(), b.Budget, strconv.Itoa(i))
			h.json(b.Chart)
			h.s(`</script>
    </div>
  </div>
</section>
`)
		}
		h.s(`
`)
	} else {
		h.s(`
<section class="card"><p class="empty">No budgets configured. Write a budgets YAML file (see <code>gpucost budget status --file budgets.yaml</code>) and serve it with <code>gpucost serve --budgets budgets.yaml</code>, or PUT it to <code>/api/v1/budgets</code> with an admin token.</p></section>
`)
	}
	h.s(`
`)
}

// urlNormalized is a value inside a URL attribute after its start (data-src takes a URL):
// bytes a URL cannot hold are percent-encoded.
func urlNormalized(s string) trusted { return trusted(htmlEscape(percentEncode(s, true))) }

// writeCosts writes the cost per day chart by group and the table of groups, reconciled with
// the bill.
func writeCosts(h *htmlPage, l layout) {
	d := l.Data.(costsPage)
	rep := d.Report
	h.s(`
`)
	for _, n := range rep.Notes {
		h.f(`<p class="note">%v</p>`, noteSentence(n))
	}
	h.s(`
`)
	if len(rep.Groups) > 0 {
		h.f(`
<section class="card">
  <h2>Cost per day by %v</h2>
  <div class="chart" data-chart="stacked" data-src="chart-costs" data-points="%v" role="img" aria-label="Daily cost stacked by group"></div>
  <script type="application/json" id="chart-costs">`, rep.By, d.Chart.Points())
		h.json(d.Chart)
		h.s(`</script>
  `)
		if d.More != 0 {
			h.f(`<p class="sub">The chart shows the %v largest groups; the table has all %v.</p>`, len(d.Chart.Series), len(rep.Groups))
		}
		h.f(`
</section>
<section class="card">
  <h2>By %v, %v to %v</h2>
  <div class="scroll"><table>
    <thead><tr><th>%v</th><th class="num">Cost less idle</th><th class="num">Idle cost</th><th class="num">Total</th><th class="num">Billed</th><th class="num">GPU-hours used</th><th class="num">GPU-hours idle</th></tr></thead>
    <tbody>
    `, rep.By, date(rep.From), date(rep.To), rep.By)
		for _, g := range rep.Groups {
			h.f(`<tr><td>%v</td><td class="num">%v</td><td class="num">%v</td><td class="num">%v</td><td class="num">%v</td><td class="num">%v</td><td class="num">%v</td></tr>`,
				g.Group, money(g.Cents.CostLessIdle), money(g.Cents.IdleCost), money(g.Cents.TotalCost), money(g.Cents.BilledCost), formatHours(g.UsedGPUHours), formatHours(g.IdleGPUHours))
		}
		h.s(`
    </tbody>
  </table></div>
  <p class="reconcile `)
		if rep.Reconciled {
			h.s(`ok`)
		} else {
			h.s(`bad`)
		}
		h.f(`">
    Groups total %v; the stored bill over the period is %v:
    `, formatMoneys(rep.Total), formatMoneys(rep.Bill))
		if rep.Reconciled {
			h.s(`reconciled to the cent.`)
		} else {
			h.s(`they differ — some cost could not be allocated; see the notes above.`)
		}
		h.s(`
  </p>
</section>
`)
	} else {
		h.s(`
<section class="card"><p class="empty">No cost in this period. Import a bill with <code>gpucost import billing FILE</code>, or pick a longer period.</p></section>
`)
	}
	h.s(`
`)
}
