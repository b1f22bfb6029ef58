package web

// writeAlertsPage writes the Alerts page: a row per rule with its counts by state, then one page
// of the rules' GPUs with their episodes and the latest one's evidence.
func writeAlertsPage(h *htmlPage, l layout) {
	d := l.Data.(alertsPage)
	writeAlertRules(h, d)
	writeAlertGPUs(h, l, d)
}

// writeAlertRules writes the rules that held, with how many GPUs and episodes in each state.
func writeAlertRules(h *htmlPage, d alertsPage) {
	h.s(`
<section class="card">
  <h2>By rule</h2>
  `)
	if len(d.Rules) == 0 {
		h.s(`<p class="empty">No alert rule held in this period`)
		if d.Report.Series != 0 {
			h.f(` over %v GPU series`, formatCount(uint64(d.Report.Series)))
		}
		if d.List.Q != "" {
			h.f(` on a rule, GPU or host matching “%v”`, d.List.Q)
		}
		h.s(`.</p>
</section>
`)
		return
	}
	h.s(`<div class="scroll"><table>
    <thead><tr><th>Rule</th><th>Severity</th><th class="num">GPUs</th><th class="num">Firing</th><th class="num">No data</th><th class="num">Resolved</th><th>Means</th></tr></thead>
    <tbody>
    `)
	for _, r := range d.Rules {
		h.f(`<tr><td title="%v">%v</td><td><span class="tag severity-%v">%v</span></td><td class="num">%v</td><td class="num">%v</td><td class="num">%v</td><td class="num">%v</td><td>%v</td></tr>`,
			r.Rule.Expr(), r.Rule.Name, r.Rule.Severity, r.Rule.Severity, formatCount(uint64(r.GPUs)),
			formatCount(uint64(r.Firing)), formatCount(uint64(r.NoData)), formatCount(uint64(r.Resolved)), r.Rule.Summary)
	}
	h.f(`
    </tbody>
  </table></div>
  <p class="sub">A condition becomes an alert once it has held for the rule's duration; conditions still pending are not counted. Rules were evaluated over %v GPU series.</p>
</section>
`, formatCount(uint64(d.Report.Series)))
}

// writeAlertGPUs writes one page of rule-and-GPU rows, with a search and page links.
func writeAlertGPUs(h *htmlPage, l layout, d alertsPage) {
	if len(d.Rules) == 0 && d.List.Q == "" {
		return
	}
	h.s(`
<section class="card" id="table">
  <h2>By rule and GPU</h2>
  `)
	h.f(`<form class="picker" method="get" action="%v">
    `, urlStart(l.Path))
	base := baseValues(l)
	for _, k := range []string{"since", "filter"} {
		if v := base.Get(k); v != "" {
			h.f(`<input type="hidden" name="%v" value="%v">`, k, v)
		}
	}
	h.f(`<label>Search <input type="search" name="q" value="%v" placeholder="rule, GPU or host" size="22"></label>
    <button type="submit">Show</button>
  </form>
  `, d.List.Q)
	if len(d.Rows) == 0 {
		h.s(`<p class="empty">No alert matches this search.</p>
</section>
`)
		return
	}
	h.s(`<div class="scroll"><table>
    <thead><tr><th>Rule</th><th>GPU</th><th>Host</th><th class="num">Firing</th><th class="num">No data</th><th class="num">Resolved</th><th>Latest</th><th>From</th><th class="num">For</th><th>Evidence</th></tr></thead>
    <tbody>
    `)
	for _, g := range d.Rows {
		a := g.Latest
		h.f(`<tr>
      <td>%v</td><td class="key">%v</td><td>%v</td><td class="num">%v</td><td class="num">%v</td><td class="num">%v</td>
      <td>%v</td><td>%v</td><td class="num">%v</td><td>%v</td>
    </tr>`, g.Rule.Name, g.GPU.UUID, g.GPU.Host, g.Firing, g.NoData, g.Resolved,
			a.State, datetime(a.Start), formatDuration(a.Duration.D()), a.Evidence)
	}
	h.s(`
    </tbody>
  </table></div>
  `)
	writePager(h, l, d.List, nil, d.Span, "rule and GPU row")
	h.s(`
</section>
`)
}
