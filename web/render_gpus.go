package web

import "github.com/gpucost/gpucost/analyze"

// writeGPUs writes the utilisation heatmap, the table by group with the fleet's totals, and
// the alerts.
func writeGPUs(h *htmlPage, l layout) {
	d := l.Data.(gpusPage)
	writeUtilisationHeatmap(h, d)
	writeUtilisationByGroup(h, d)
	writeGPUAlerts(h, d)
}

// writeUtilisationHeatmap writes the section of each hour's mean utilisation per GPU or host,
// or how to send telemetry.
func writeUtilisationHeatmap(h *htmlPage, d gpusPage) {
	h.s(`
<section class="card">
  <h2>Utilisation per hour</h2>
  `)
	if len(d.Heatmap.Cells) > 0 {
		h.f(`
  <div class="chart tall" data-chart="heatmap" data-src="chart-heatmap" data-points="%v" role="img" aria-label="Hourly GPU utilisation heatmap"></div>
  <script type="application/json" id="chart-heatmap">`, d.Heatmap.Points())
		h.json(d.Heatmap)
		h.s(`</script>
  <p class="sub">Each cell is one hour's mean utilisation; blank cells had no samples.</p>
  `)
	} else {
		h.s(`
  <p class="empty">No telemetry in this period. Run <code>gpucost agent --server URL</code> on each GPU host, or load samples with <code>gpucost import telemetry FILE</code>.</p>
  `)
	}
	h.s(`
</section>

`)
}

// writeUtilisationByGroup writes the utilisation table, one row per group and the fleet's
// totals, or why it is empty.
func writeUtilisationByGroup(h *htmlPage, d gpusPage) {
	h.f(`<section class="card">
  <h2>Utilisation by %v</h2>
  `, d.Report.By)
	if len(d.Report.Groups) > 0 {
		h.f(`
  <div class="scroll"><table>
    <thead><tr><th>%v</th><th>Host</th><th>Model</th><th class="num">GPUs</th><th class="num">GPU-hours</th><th class="num">Mean</th><th class="num">p95</th><th class="num">Memory peak</th><th class="num">Idle</th><th class="num">Cost</th><th class="num">Idle cost</th><th>Verdict</th></tr></thead>
    <tbody>
    `, d.Report.By)
		for _, g := range d.Report.Groups {
			h.f(`<tr>
      <td class="key">%v</td><td>%v</td><td>%v</td><td class="num">%v</td><td class="num">%v</td>
      `, g.Key, g.Host, g.Model, g.GPUs, formatHours(g.GPUHours))
			groupStats(h, g)
			h.f(`
      <td><span class="tag verdict-%v">%v</span></td>
    </tr>`, g.Verdict, g.Verdict)
		}
		f := d.Report.Fleet
		h.f(`
    </tbody>
    <tfoot><tr><th>fleet</th><td></td><td></td><td class="num">%v</td><td class="num">%v</td>
      `, f.GPUs, formatHours(f.GPUHours))
		groupStats(h, f)
		h.s(`<td></td></tr></tfoot>
  </table></div>
  `)
	} else {
		h.s(`
  <p class="empty">No GPU reported in this period`)
		if d.Report.Outside != 0 {
			h.f(` (%v rollups fall outside it: pick a longer period)`, d.Report.Outside)
		}
		h.s(`.</p>
  `)
	}
	h.s(`
</section>

`)
}

// writeGPUAlerts writes the alerts section: the alert rules that held in the period, firing or
// resolved, with their evidence.
func writeGPUAlerts(h *htmlPage, d gpusPage) {
	h.s(`<section class="card">
  <h2>Alerts`)
	if d.Firing != 0 {
		h.f(` <span class="tag level-over">%v firing</span>`, d.Firing)
	}
	if d.NoData != 0 {
		h.f(` <span class="tag level-over">%v no data</span>`, d.NoData)
	}
	h.s(`</h2>
  `)
	if len(d.Alerts.Alerts) > 0 {
		h.s(`
  <div class="scroll"><table>
    <thead><tr><th>Rule</th><th>Severity</th><th>State</th><th>GPU</th><th>Host</th><th>From</th><th class="num">For</th><th>Evidence</th></tr></thead>
    <tbody>
    `)
		for _, a := range d.Alerts.Alerts {
			h.f(`<tr>
      <td title="%v">%v</td><td><span class="tag severity-%v">%v</span></td><td>%v</td>
      <td class="key">%v</td><td>%v</td><td>%v</td><td class="num">%v</td><td>%v</td>
    </tr>`, a.Rule.Expr(), a.Rule.Name, a.Rule.Severity, a.Rule.Severity, a.State,
				a.Series.GPU.UUID, a.Series.GPU.Host, datetime(a.Start), formatDuration(a.Duration), a.Evidence)
		}
		h.s(`
    </tbody>
  </table></div>
  `)
	} else {
		h.s(`
  <p class="empty">No alert rule held in this period`)
		if d.Alerts.Series != 0 {
			h.f(` over %v GPU series`, d.Alerts.Series)
		}
		h.s(`.</p>
  `)
	}
	h.s(`
</section>
`)
}

// groupStats writes a group's utilisation, memory, idle and cost cells.
func groupStats(h *htmlPage, g analyze.GroupStats) {
	h.f(`<td class="num">%v</td><td class="num">%v</td><td class="num">%v</td>
      <td class="num">%v</td><td class="num">%v</td><td class="num">%v</td>`,
		formatStat(g.UtilMean, "%"), formatStat(g.UtilP95, "%"), formatStat(g.MemPeakMiB, " MiB"),
		formatStat(g.IdlePct, "%"), money(g.Cost), money(g.IdleCost))
}
