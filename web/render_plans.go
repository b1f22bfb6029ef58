package web

import "github.com/gpucost/gpucost/recommend"

// writeRecommendations writes the plan: the monthly cost before and after with each lever's
// share, then each group of machines with its steps in the order they apply, each with its
// saving, what it needs from people, its evidence, confidence and risk, and the alternatives it
// was chosen over folded under it. Its amounts are the plan's cents (recommend.Plan.Cents), the
// ones gpucost recommend and report savings print: the levers add up to the saving, the groups
// (with one line for those with no change) to the cost before and after, and each step's cost
// before less its cost after is its saving.
func writeRecommendations(h *htmlPage, l layout) {
	d := l.Data.(recommendationsPage)
	c := d.Plan.Cents()
	h.s(`
`)
	for _, n := range d.Notes {
		h.f(`<p class="note">%v</p>`, noteSentence(n))
	}
	h.s(`
`)
	writeRealized(h, d.Realized)
	writeDetected(h, l, d)
	apply := applyForm(l, d)
	steps := len(d.Plan.Steps())
	if steps == 0 {
		h.s(`
<section class="card"><p class="empty">No recommendations for this period. They need GPU telemetry and prices: run <code>gpucost agent --server URL</code> on the GPU hosts and <code>gpucost import billing FILE</code>, then look again.</p></section>
`)
		h.s(`
`)
		return
	}
	h.f(`
<section class="cards">
  <div class="card stat"><h2>Savings available</h2><p class="big">%v<small>/month</small></p><p class="sub">%v → %v, −%v, in %v step%v</p></div>
  `, money(c.Saving), money(c.Before), money(c.After), formatPct(c.SavingPercent), steps, plural(steps))
	if !d.OneTimeCost.IsZero() {
		h.f(`<div class="card stat"><h2>One-time cost</h2><p class="big">%v</p><p class="sub">to make every change</p></div>`, money(d.OneTimeCost))
	}
	h.s(`
</section>
<section class="card"><h2>By lever</h2><ul class="levers">`)
	for i, lv := range d.Plan.Levers {
		if lv.MonthlySaving.Nanos > 0 {
			h.f(`<li><span class="tag kind">%v</span> %v/month, %v of the bill</li>`, lv.Lever, money(c.Levers[i].Saving), formatPct(c.Levers[i].Percent))
		}
	}
	h.s(`</ul></section>
`)
	for gi, g := range d.Plan.Groups {
		if !g.Listed() {
			continue
		}
		gc := c.Groups[gi]
		h.f(`
<section class="card plan-group" id="%v">
  <h2>%v</h2>
  <p class="sub">%v → %v a month</p>
  <ol class="recs">
`, g.ID, g.Name, money(gc.Before), money(gc.After))
		for i, s := range g.Steps {
			writePlanStep(h, s, gc.Steps[i], apply)
		}
		h.s(`
  </ol>
`)
		writeAlternatives(h, "left out", g.NotChosen)
		h.s(`
</section>
`)
	}
	if c.Unlisted > 0 {
		h.f(`
<section class="card plan-group">
  <h2>%v group%v of machines with no change</h2>
  <p class="sub">%v a month, before and after: the plan changes nothing on them</p>
</section>
`, c.Unlisted, plural(c.Unlisted), money(c.UnlistedCost))
	}
	h.s(`
`)
}

// writePlanStep writes one step of a plan with its details and alternatives folded, and what
// apply writes for it (an admin's form that records it applied), where apply is not nil. Its
// amounts are c, its cents in the plan's (recommend.Plan.Cents).
func writePlanStep(h *htmlPage, s recommend.PlanStep, c recommend.StepCents, apply func(*htmlPage, string)) {
	r := s.Recommendation
	h.f(`
<li class="card rec" id="%v">
  <div class="rec-head">
    <span class="tag kind">%v</span>
    <span class="saving">%v/month</span>
    <span class="tag confidence-%v" title="%v">%v confidence</span>
  </div>
  <p class="action">%v</p>
  <p class="sub">%v → %v a month · step <code>%v</code></p>
  `, s.ID, s.Lever, money(c.Saving), r.Confidence, r.ConfidenceWhy, r.Confidence, r.Action, money(c.Before), money(c.After), s.ID)
	if !r.OneTimeCost.IsZero() {
		h.f(`<p class="sub">One-time cost %v.</p>`, money(r.OneTimeCost))
	}
	if len(s.Needs) > 0 {
		h.s(`<p><strong>Needs:</strong> `)
		for i, n := range s.Needs {
			if i > 0 {
				h.s(`; `)
			}
			h.f(`%v`, n)
		}
		h.s(`</p>`)
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
  `)
	writeAlternatives(h, "not chosen", s.Alternatives)
	if apply != nil {
		apply(h, s.ID)
	}
	h.s(`
</li>
`)
}

// writeAlternatives writes options a plan did not choose, folded, each with its own saving and
// why it was not chosen.
func writeAlternatives(h *htmlPage, label string, alts []recommend.Alternative) {
	if len(alts) == 0 {
		return
	}
	h.f(`<details class="alternatives">
    <summary>%v alternative%v %v</summary>
    <ul>`, len(alts), plural(len(alts)), label)
	for _, a := range alts {
		h.f(`<li><span class="tag kind">%v</span> %v <span class="saving">%v/month alone</span>: %v</li>`, a.Lever, a.Action, money(a.MonthlySaving), a.Why)
	}
	h.s(`</ul>
  </details>`)
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
				h.f(`%v`, formatDuration(q.ETA.D()))
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
