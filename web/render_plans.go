package web

// writeRecommendations writes the savings available and each recommendation with its
// evidence, confidence and risk.
func writeRecommendations(h *htmlPage, l layout) {
	d := l.Data.(recommendationsPage)
	h.s(`
`)
	for _, n := range d.Notes {
		h.f(`<p class="note">%v</p>`, n)
	}
	h.s(`
`)
	if len(d.Recommendations) == 0 {
		h.s(`
<section class="card"><p class="empty">No recommendations for this period. They need GPU telemetry and prices: run <code>gpucost agent --server URL</code> on the GPU hosts and <code>gpucost import billing FILE</code>, then look again.</p></section>
`)
		h.s(`
`)
		return
	}
	n := len(d.Recommendations)
	h.f(`
<section class="cards">
  <div class="card stat"><h2>Savings available</h2><p class="big">%v<small>/month</small></p><p class="sub">%v recommendation%v, largest first</p></div>
  `, money(d.MonthlySaving), n, plural(n))
	if !d.OneTimeCost.IsZero() {
		h.f(`<div class="card stat"><h2>One-time cost</h2><p class="big">%v</p><p class="sub">to make every change</p></div>`, money(d.OneTimeCost))
	}
	h.s(`
</section>
<ol class="recs">
`)
	for _, r := range d.Recommendations {
		h.f(`
<li class="card rec">
  <div class="rec-head">
    <span class="tag kind">%v</span>
    <span class="saving">%v/month</span>
    <span class="tag confidence-%v" title="%v">%v confidence</span>
  </div>
  <p class="action">%v</p>
  `, r.Kind, money(r.MonthlySaving), r.Confidence, r.ConfidenceWhy, r.Confidence, r.Action)
		if !r.OneTimeCost.IsZero() {
			h.f(`<p class="sub">One-time cost %v.</p>`, money(r.OneTimeCost))
		}
		h.s(`
  <details>
    <summary>Evidence, confidence and risk</summary>
    <ul>`)
		for _, e := range r.Evidence {
			h.f(`<li>%v</li>`, e)
		}
		h.f(`</ul>
    <p><strong>Confidence:</strong> %v</p>
    <p><strong>Risk:</strong> %v</p>
    `, r.ConfidenceWhy, r.Risk)
		if len(r.Resources) > 0 {
			h.s(`<p><strong>Resources:</strong> `)
			for i, res := range r.Resources {
				if i > 0 {
					h.s(`, `)
				}
				h.f(`<code>%v</code>`, res)
			}
			h.s(`</p>`)
		}
		h.s(`
  </details>
</li>
`)
	}
	h.s(`
</ol>
`)
	h.s(`
`)
}

// writeJobs writes the spot jobs and the work queues.
func writeJobs(h *htmlPage, l layout) {
	d := l.Data.(jobsPage)
	h.s(`
<section class="card">
  <h2>Spot jobs</h2>
  `)
	if len(d.Jobs) > 0 {
		h.s(`
  <div class="scroll"><table>
    <thead><tr><th>Job</th><th>Status</th><th class="num">Runs</th><th class="num">Wall</th><th class="num">Billable</th><th class="num">Productive</th><th class="num">Lost work</th><th class="num">Interruptions</th><th class="num">Cost</th><th class="num">On-demand</th><th class="num">Saved</th></tr></thead>
    <tbody>
    `)
		for _, j := range d.Jobs {
			h.f(`<tr><td>%v</td><td><span class="tag status-%v">%v</span></td><td class="num">%v</td><td class="num">%v</td><td class="num">%v</td><td class="num">%v</td><td class="num">%v</td><td class="num">%v</td>
      <td class="num">%v`, j.Job, j.Status, j.Status, j.Runs, formatDuration(j.Wall), formatDuration(j.Billable),
				formatDuration(j.Productive), formatDuration(j.LostWork), j.Interruptions, money(j.Cost))
			if !j.Priced {
				h.s(`*`)
			}
			h.s(`</td><td class="num">`)
			if j.HasOnDemand {
				h.f(`%v`, money(j.OnDemand))
			} else {
				h.s(`—`)
			}
			h.s(`</td><td class="num">`)
			if j.HasOnDemand {
				h.f(`%v`, money(j.Savings))
			} else {
				h.s(`—`)
			}
			h.s(`</td></tr>`)
		}
		h.s(`
    </tbody>
  </table></div>
  <p class="sub">* some runs had no price and are not in the cost.</p>
  `)
	} else {
		h.s(`
  <p class="empty">No spot jobs recorded. Run one with <code>gpucost run --checkpoint-dir DIR --store URL -- CMD</code>; its events show here.</p>
  `)
	}
	h.s(`
</section>
<section class="card">
  <h2>Work queues</h2>
  `)
	if len(d.Queues) > 0 {
		h.s(`
  <table>
    <thead><tr><th>Queue</th><th class="num">Pending</th><th class="num">In flight</th><th class="num">Done</th><th class="num">Dead</th><th class="num">Rate</th><th class="num">ETA</th></tr></thead>
    <tbody>
    `)
		for _, q := range d.Queues {
			h.f(`<tr><td>%v</td><td class="num">%v</td><td class="num">%v</td><td class="num">%v</td><td class="num">%v</td><td class="num">%v/s</td><td class="num">`,
				q.Queue, formatCount(q.Pending), formatCount(q.InFlight), formatCount(q.Done), formatCount(q.Dead), strconvRate(q.Rate))
			if q.ETA != 0 {
				h.f(`%v`, formatDuration(q.ETA))
			} else {
				h.s(`—`)
			}
			h.s(`</td></tr>`)
		}
		h.s(`
    </tbody>
  </table>
  `)
	} else {
		h.s(`
  <p class="empty">No work queues. Start the queue server with <code>gpucost queue serve</code> and push work with <code>gpucost queue push --queue Q FILE.jsonl</code>.</p>
  `)
	}
	h.s(`
</section>
`)
}
