package web

// writeOverview writes the overview: the month's spend, forecast, idle share and savings, the
// daily spend chart, budgets and top teams.
func writeOverview(h *htmlPage, l layout) {
	d := l.Data.(overviewPage)
	writeOverviewCards(h, d)
	for _, n := range d.Notes {
		h.f(`<p class="note">%v</p>`, noteSentence(n))
	}
	writeDailySpend(h, d)
	h.s(`<div class="columns">
`)
	writeOverviewBudgets(h, d)
	writeTopTeams(h, d)
	h.s(`</div>
`)
}

// writeOverviewCards writes the cards of the month's spend, its forecast, the idle share and
// the savings on offer.
func writeOverviewCards(h *htmlPage, d overviewPage) {
	h.f(`
<section class="cards">
  <div class="card stat">
    <h2>Spent this month</h2>
    <p class="big">%v</p>
    <p class="sub">%v, to %v</p>
  </div>
  <div class="card stat">
    <h2>Forecast for the month</h2>
    <p class="big">%v</p>
    <p class="sub">`, money(d.MonthToDate), d.Month, datetime(d.Now), money(d.Forecast.Projected))
	if d.Forecast.HistoryDays != 0 && d.Forecast.Banded() {
		h.f(`likely %v – %v, from %v days of history`, money(d.Forecast.Low), money(d.Forecast.High), d.Forecast.HistoryDays)
	} else if d.Forecast.HistoryDays != 0 {
		h.f(`range: not enough data (%v days of history)`, d.Forecast.HistoryDays)
	} else {
		h.s(`no cost history to forecast from yet`)
	}
	h.f(`</p>
  </div>
  <div class="card stat">
    <h2>Idle</h2>
    <p class="big">%v</p>
    <p class="sub">of this month's GPU cost: %v idle; %v GPUs reported over 7 days</p>
  </div>
  <div class="card stat">
    <h2>Savings available</h2>
    <p class="big">%v<small>/month</small></p>
    <p class="sub"><a href="/recommendations">%v recommendation%v</a></p>
  </div>
</section>

`, formatPct(d.IdlePercent), money(d.IdleCost), d.GPUs, money(d.Savings), d.Recommended, plural(d.Recommended))
}

// writeDailySpend writes the chart of the month's spend per day and the forecast of the days
// left, or how to import a bill, and says when no GPU reports.
func writeDailySpend(h *htmlPage, d overviewPage) {
	h.f(`

<section class="card">
  <h2>Daily spend, %v</h2>
  `, d.Month)
	if d.NoBill {
		h.s(`
  <p class="empty">No bill imported for this month. Import one with <code>gpucost import billing FILE</code> (FOCUS, AWS CUR 2.0, GCP or Azure exports).</p>
  `)
	} else {
		h.f(`
  <div class="chart" data-chart="line" data-src="chart-month" data-points="%v" role="img" aria-label="Spend per day this month, and the forecast of the days left"></div>
  <script type="application/json" id="chart-month">`, d.Chart.Points())
		h.json(d.Chart)
		h.s(`</script>
  `)
	}
	h.s(`
  `)
	if d.NoGPUs {
		h.s(`<p class="empty">No GPU has reported in the last 7 days. Run <code>gpucost agent --server URL</code> on each GPU host with an ingest token, or <code>gpucost import telemetry FILE</code>.</p>`)
	}
	h.s(`
</section>

`)
}

// writeOverviewBudgets writes each budget's spend, share used and forecast, or how to
// configure budgets.
func writeOverviewBudgets(h *htmlPage, d overviewPage) {
	h.s(`<section class="card">
  <h2>Budgets</h2>
  `)
	if len(d.Budgets) > 0 {
		h.s(`
  <div class="scroll"><table>
    <thead><tr><th>Budget</th><th>Period</th><th class="num">Spent</th><th class="num">Budget</th><th>Used</th><th class="num">Forecast</th></tr></thead>
    <tbody>
    `)
		for _, b := range d.Budgets {
			h.f(`<tr class="level-%v">
      <td><a href="/budgets#budget-%v">%v</a></td><td>%v</td>
      <td class="num">%v</td><td class="num">%v</td>
      <td><meter min="0" max="1" low="0.8" high="0.99" optimum="0" value="%v">%v</meter> %v</td>
      <td class="num">%v</td>
    </tr>`, budgetLevel(b.Percent, b.ForecastPercent), urlPart(b.Budget), b.Budget, b.Period, money(b.Spent), money(b.Amount),
				ratio(b.Spent, b.Amount), formatPct(b.Percent), formatPct(b.Percent), formatPct(b.ForecastPercent))
		}
		h.s(`
    </tbody>
  </table></div>
  `)
	} else {
		h.s(`
  <p class="empty">No budgets configured. Write a budgets YAML file (see <code>gpucost budget status --file budgets.yaml</code>) and serve it with <code>gpucost serve --budgets budgets.yaml</code>, or PUT it to <code>/api/v1/budgets</code> with an admin token.</p>
  `)
	}
	h.s(`
</section>

`)
}

// writeTopTeams writes the teams that cost most this month, or how to allocate cost to teams.
func writeTopTeams(h *htmlPage, d overviewPage) {
	h.s(`<section class="card">
  <h2>Top teams this month</h2>
  `)
	if len(d.TopTeams) > 0 {
		h.s(`
  <table>
    <thead><tr><th>Team</th><th class="num">Cost less idle</th><th class="num">Idle cost</th><th class="num">GPU-hours used</th></tr></thead>
    <tbody>
    `)
		for _, t := range d.TopTeams {
			h.f(`<tr><td>%v</td><td class="num">%v</td><td class="num">%v</td><td class="num">%v</td></tr>`,
				t.Group, money(t.Cents.CostLessIdle), money(t.Cents.IdleCost), formatHours(t.UsedGPUHours))
		}
		h.s(`
    </tbody>
  </table>
  <p><a href="/costs?by=team">All costs by team</a></p>
  `)
	} else {
		h.s(`
  <p class="empty">No cost allocated to teams this month: import a bill (<code>gpucost import billing FILE</code>) and label GPUs with a <code>team</code> label.</p>
  `)
	}
	h.s(`
</section>
`)
}
