package web

import (
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/httpapi"
)

// writeRealized writes the applied steps measured on the bill (docs/architecture.md "Realized
// savings"): per step the saving predicted beside the one realized, its interval and the days
// measured, and the total of those measured, which the steps' printed savings add up to
// (fleet.RealizedReport.Cents). Nothing without an applied step.
func writeRealized(h *htmlPage, rep fleet.RealizedReport) {
	if len(rep.Steps) == 0 {
		return
	}
	c := rep.Cents()
	h.f(`
<section class="card realized">
  <h2>Realized savings</h2>
  <p class="sub">%v of %v applied steps measured on the bill`, rep.Measured, len(rep.Steps))
	if rep.Measured > 0 {
		h.f(`: %v/month realized against %v predicted (90%% interval %v – %v)`, money(c.TotalRealized), money(c.TotalPredicted), money(rep.Low), money(rep.High))
	}
	h.s(`</p>
  <table>
    <thead><tr><th>Step</th><th>Applied</th><th>How</th><th class="num">Predicted</th><th class="num">Realized</th><th class="num">90% interval</th><th class="num">Days</th><th>Status</th></tr></thead>
    <tbody>`)
	for i, s := range rep.Steps {
		realized, interval, status := "", "", s.Status
		if s.Status == fleet.RealizedMeasured {
			realized, interval = money(c.Realized[i]), money(s.Low)+" – "+money(s.High)
		}
		if s.Note != "" {
			status = s.Note
		}
		h.f(`
      <tr><td><code>%v</code></td><td>%v</td><td>%v</td><td class="num">%v</td><td class="num">%v</td><td class="num">%v</td><td class="num">%v</td><td>%v</td></tr>`,
			s.ID, s.At.Format(time.DateOnly), s.How, money(c.Predicted[i]), realized, interval, s.Days, status)
	}
	h.s(`
    </tbody>
  </table>
  <p class="note">The workload's cost on the bill per used GPU-hour over the 14 days before each step against the days after it, times the work done after, over a 730-hour month. Record a step with <code>gpucost recommend apply ID</code>.</p>
</section>
`)
}

// applyForm returns what writes a plan step's "Mark applied" form, for an admin on a dashboard
// that records applied steps, and nil otherwise; a step recorded already says when it was made.
func applyForm(l layout, d recommendationsPage) func(*htmlPage, string) {
	if !d.CanApply || l.Viewer == nil || l.Viewer.Token.Role != gpucost.RoleAdmin {
		return nil
	}
	applied := map[string]time.Time{}
	for _, s := range d.Realized.Steps {
		applied[s.ID] = s.At
	}
	return func(h *htmlPage, id string) {
		if at, ok := applied[id]; ok {
			h.f(`<p class="sub">Applied %v: measured under Realized savings.</p>`, at.Format(time.DateOnly))
			return
		}
		h.f(`<form method="post" action="/recommendations/apply" class="apply"><input type="hidden" name="csrf" value="%v"><input type="hidden" name="step" value="%v"><input type="text" name="note" placeholder="note (optional)" maxlength="500"> <button type="submit">Mark applied</button></form>`,
			l.Viewer.CSRF, id)
	}
}

// writeDetected writes the changes the bill shows whose plan step is not recorded applied
// (httpapi.ChangeDetector): the change, its first day and the step it made, each with an admin's
// "Record as applied" form that records the step made that day, how the bill showed it.
func writeDetected(h *htmlPage, l layout, d recommendationsPage) {
	var rows httpapi.DetectedResponse
	for _, c := range d.Detected {
		if c.Step != "" && !c.Recorded {
			rows = append(rows, c)
		}
	}
	if len(rows) == 0 {
		return
	}
	admin := d.CanApply && l.Viewer != nil && l.Viewer.Token.Role == gpucost.RoleAdmin
	h.f(`
<section class="card detected">
  <h2>Detected on the bill, not recorded</h2>
  <p class="sub">%v change%v the bill shows made a step of the plan before it</p>
  <table>
    <thead><tr><th>Change</th><th>Namespace</th><th>First day</th><th>Step</th><th></th></tr></thead>
    <tbody>`, len(rows), plural(len(rows)))
	for _, c := range rows {
		h.f(`
      <tr><td>%v</td><td>%v</td><td>%v</td><td><code>%v</code></td><td>`, c.How, c.Namespace, c.At.Format(time.DateOnly), c.Step)
		if admin {
			h.f(`<form method="post" action="/recommendations/apply" class="apply"><input type="hidden" name="csrf" value="%v"><input type="hidden" name="step" value="%v"><input type="hidden" name="at" value="%v"><input type="hidden" name="how" value="%v"><button type="submit">Record as applied</button></form>`,
				l.Viewer.CSRF, c.Step, c.At.UTC().Format(time.RFC3339), c.How)
		}
		h.s(`</td></tr>`)
	}
	h.s(`
    </tbody>
  </table>
  <p class="note">Recorded, a step is measured under Realized savings. An admin records one here or with <code>gpucost recommend applied --detect --record</code>.</p>
</section>
`)
}
