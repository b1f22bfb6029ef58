package web

import (
	"fmt"
	"strings"
)

// writeActivity writes the budget alerts and enforcement actions of the period and, for
// admins, the audit trail.
func writeActivity(h *htmlPage, l layout) {
	d := l.Data.(activityPage)
	h.s(`
`)
	if len(d.Sources) > 0 {
		writeBillSources(h, d.Sources)
	}
	if d.Enabled {
		writeAlerts(h, d)
		writeActions(h, d)
	} else {
		h.s(`
<section class="card"><p class="empty">This server keeps no activity log. Budget alerts and enforcement actions show here when the dashboard runs in <code>gpucost serve</code>: give it <code>--budgets budgets.yaml --targets targets.yaml</code> for alerts and <code>--policies policies.yaml</code> for enforcement (dry run unless <code>--apply</code>).</p></section>
`)
	}
	h.s(`
`)
	switch {
	case d.AuditShown:
		writeAudit(h, d)
	case d.AuditAdminOnly:
		h.s(`
<section class="card" id="audit"><h2>Audit trail</h2><p class="empty">The audit trail is shown to admin tokens only.</p></section>
`)
	}
	h.s(`
`)
}

// writeAlerts writes the alerts sent, budget, policy and GPU alerts: one row per alert and
// target, or how to get alerts.
func writeAlerts(h *htmlPage, d activityPage) {
	h.s(`
<section class="card" id="alerts">
  <h2>Alerts sent</h2>
  `)
	if len(d.Alerts) > 0 {
		h.s(`
  <div class="scroll"><table>
    <thead><tr><th>When</th><th>Alert</th><th>Threshold</th><th>Target</th><th>Result</th><th class="num">Attempts</th><th>Last status</th></tr></thead>
    <tbody>
    `)
		for _, a := range d.Alerts {
			writeAlertRow(h, a)
		}
		h.s(`
    </tbody>
  </table></div>
  `)
		if d.MoreAlerts != 0 {
			h.f(`<p class="sub">%v older alerts are not shown; narrow the period or filter, or read <code>/api/v1/deliveries</code>.</p>`, d.MoreAlerts)
		}
		h.s(`
  `)
	} else {
		h.s(`
  <p class="empty">No alert sent in this period. Alerts are sent when a budget crosses a threshold, a policy triggers or a GPU alert rule fires: serve with <code>gpucost serve --budgets budgets.yaml --targets targets.yaml</code>, or run <code>gpucost budget check</code>.</p>
  `)
	}
	h.s(`
</section>
`)
}

// writeAlertRow writes one alert's row: what crossed, where it went and how the last attempt
// ended.
func writeAlertRow(h *htmlPage, a alertRow) {
	h.f(`<tr><td>%v</td>
      <td>`, datetime(a.At))
	switch {
	case a.Budget != "":
		h.f(`%v <span class="sub">%v</span>`, a.Budget, a.Period)
	case a.Policy != "":
		h.f(`policy %v <span class="sub">%v</span>`, a.Policy, a.Period)
	case a.GPURule != "":
		h.f(`GPU alert %v <span class="sub">%v</span>`, a.GPURule, gpuAlertWhat(a))
	default:
		h.f(`<code>%v</code>`, a.Key)
	}
	h.s(`</td>
      <td>`)
	if a.Threshold != "" {
		h.f(`%v`, a.Threshold)
	} else {
		h.s(`—`)
	}
	h.f(`</td><td>%v</td>
      <td><span class="tag status-%v">%v</span></td><td class="num">%v</td>
      <td>`, a.Target, a.Result, a.Result, a.Attempts)
	if a.Status != 0 {
		h.f(`%v`, a.Status)
	}
	if a.Error != "" {
		h.f(` <span class="sub">%v</span>`, a.Error)
	}
	h.s(`</td></tr>`)
}

// writeActions writes the enforcement actions section: one row per action with its evidence,
// or how to get actions.
func writeActions(h *htmlPage, d activityPage) {
	h.s(`<section class="card" id="actions">
  <h2>Enforcement actions</h2>
  `)
	if len(d.Actions) > 0 {
		h.s(`
  <div class="scroll"><table>
    <thead><tr><th>When</th><th>Policy</th><th>Action</th><th>Resource</th><th>Mode</th><th>Result</th><th>Evidence</th></tr></thead>
    <tbody>
    `)
		for _, a := range d.Actions {
			writeActionRow(h, a)
		}
		h.s(`
    </tbody>
  </table></div>
  `)
		if d.MoreActions != 0 {
			h.f(`<p class="sub">%v older actions are not shown; narrow the period or filter, or read <code>/api/v1/actions</code>.</p>`, d.MoreActions)
		}
		h.s(`
  `)
	} else {
		h.s(`
  <p class="empty">No enforcement action in this period. Policies act when a budget or a spot cap is exceeded, as a dry run unless applied: serve with <code>gpucost serve --policies policies.yaml --budgets budgets.yaml --aws-region REGION</code> (and <code>--apply</code> to act), or run <code>gpucost enforce</code>.</p>
  `)
	}
	h.s(`
</section>
`)
}

// writeActionRow writes one action's row: the policy, the resource, whether it was applied,
// its result and its evidence folded under the rule.
func writeActionRow(h *htmlPage, a actionRow) {
	h.f(`<tr><td>%v</td><td>%v</td><td>%v</td>
      <td><code>%v</code> <span class="sub">%v`, datetime(a.At), a.Action.Policy, a.Action.Action, a.Resource, a.Kind)
	if a.Region != "" {
		h.f(`, %v`, a.Region)
	}
	h.s(`</span></td>
      <td>`)
	if a.Action.DryRun {
		h.s(`dry run`)
	} else {
		h.s(`applied`)
	}
	h.f(`</td>
      <td><span class="tag status-%v">%v</span></td>
      <td class="evidence"><details><summary>`, a.Action.Result, a.Action.Result)
	if a.Action.Evidence.Rule != "" {
		h.f(`%v`, a.Action.Evidence.Rule)
	} else {
		h.s(`evidence`)
	}
	h.s(`</summary>
        <ul>`)
	for _, e := range a.Evidence {
		h.f(`<li>%v</li>`, e)
	}
	h.s(`</ul></details></td></tr>`)
}

// writeAudit writes the audit trail section for an admin: the period's audited actions, or
// what is audited.
func writeAudit(h *htmlPage, d activityPage) {
	h.s(`
<section class="card" id="audit">
  <h2>Audit trail</h2>
  `)
	if len(d.Audit) > 0 {
		h.s(`
  <div class="scroll"><table>
    <thead><tr><th>When</th><th>Who</th><th>Action</th><th>Target</th><th>Detail</th><th>From</th></tr></thead>
    <tbody>
    `)
		for _, e := range d.Audit {
			h.f(`<tr><td>%v</td><td>%v</td><td><code>%v</code></td><td>%v</td>
      <td>%v</td><td class="sub">%v</td></tr>`, datetime(e.At), e.Actor, e.Action, e.Target, e.Detail, e.Source)
		}
		h.s(`
    </tbody>
  </table></div>
  `)
		if d.MoreAudit != 0 {
			h.f(`<p class="sub">%v older entries are not shown; narrow the period or filter (action=bill., actor=token 3), or read <code>/api/v1/audit</code> or <code>gpucost audit</code>.</p>`, d.MoreAudit)
		}
		h.s(`
  `)
	} else {
		h.s(`
  <p class="empty">No audited action in this period. Replacing or removing a bill, making or revoking a token, replacing the budgets, enforcement that acts (not a dry run) and logging out are kept here.</p>
  `)
	}
	h.s(`
</section>
`)
}

// gpuAlertWhat says what a GPU alert message told and on how many GPUs: "firing on 64 GPUs".
func gpuAlertWhat(a alertRow) string {
	what, on := strings.ReplaceAll(strings.TrimPrefix(a.Kind, "gpu.alert."), "_", " "), "on"
	if what == "no data" {
		on = "from"
	}
	switch a.GPUs {
	case 0:
		return what
	case 1:
		return fmt.Sprintf("%s %s 1 GPU", what, on)
	}
	return fmt.Sprintf("%s %s %d GPUs", what, on, a.GPUs)
}
