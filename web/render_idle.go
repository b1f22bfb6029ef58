package web

import (
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
)

// writeIdle writes the idle totals, the weekly idle heatmap, idle and waste by group, the GPUs
// idle at the same hours every day and the longest idle periods.
func writeIdle(h *htmlPage, l layout) {
	d := l.Data.(idlePage)
	writeIdleCards(h, d)
	if d.HasIdle {
		writeIdleWeek(h, d)
	}
	writeIdleByGroup(h, d)
	if len(d.Habits) > 0 {
		writeIdleHabits(h, d)
	}
	writeLongestIdle(h, d)
}

// writeIdleCards writes the cards of idle GPU-hours, their cost and the over-provisioned
// groups.
func writeIdleCards(h *htmlPage, d idlePage) {
	h.f(`
<section class="cards">
  <div class="card stat"><h2>Idle GPU-hours</h2><p class="big">%v</p><p class="sub">in %v idle period%v of at least %v</p></div>
  <div class="card stat"><h2>Cost of idle time</h2><p class="big">%v</p><p class="sub">`,
		formatHours(d.Idle.GPUHours), len(d.Idle.Periods), plural(len(d.Idle.Periods)), formatDuration(d.Idle.MinIdle.D()), money(d.Idle.Cost))
	if d.Idle.Unpriced != 0 {
		h.f(`%v periods without a price are not counted`, d.Idle.Unpriced)
	} else {
		h.s(`every period priced`)
	}
	h.f(`</p></div>
  <div class="card stat"><h2>Over-provisioned</h2><p class="big">%v</p><p class="sub">of %v %v groups with mean utilisation under 25%%</p></div>
</section>

`, d.Wasted, d.AllGroups, d.Groups.By)
}

// writeIdleWeek writes the heatmap of the share of idle minutes by weekday and hour.
func writeIdleWeek(h *htmlPage, d idlePage) {
	h.f(`
<section class="card">
  <h2>When GPUs sit idle</h2>
  <div class="chart" data-chart="heatmap" data-src="chart-week" data-points="%v" role="img" aria-label="Share of idle minutes by weekday and hour"></div>
  <script type="application/json" id="chart-week">`, d.Week.Points())
	h.json(d.Week)
	h.s(`</script>
  <p class="sub">Share of the minutes with samples that were idle, all GPUs together, by weekday and hour of the day.</p>
</section>
`)
}

// writeIdleByGroup writes the table of idle time, its cost and the verdict per group, or how
// to get telemetry.
func writeIdleByGroup(h *htmlPage, d idlePage) {
	h.f(`

<section class="card">
  <h2>Idle and waste by %v</h2>
  `, d.Groups.By)
	if d.HasGroup {
		h.f(`
  <div class="scroll"><table>
    <thead><tr><th>%v</th><th class="num">GPUs</th><th class="num">GPU-hours</th><th class="num">Idle GPU-hours</th><th class="num">Idle</th><th class="num">Idle cost</th><th class="num">Sustained idle cost</th><th class="num">Mean util</th><th>Verdict</th></tr></thead>
    <tbody>
    `, d.Groups.By)
		for _, g := range d.Groups.Groups {
			h.f(`<tr><td class="key">%v</td><td class="num">%v</td><td class="num">%v</td><td class="num">%v</td><td class="num">%v</td><td class="num">%v</td><td class="num">%v</td><td class="num">%v</td><td><span class="tag verdict-%v">%v</span></td></tr>`,
				g.Key, g.GPUs, formatHours(g.GPUHours), formatHours(g.IdleGPUHours), formatStat(g.IdlePct, "%"), money(d.Cents.Groups[g.Key].IdleCost),
				money(g.SustainedIdleCost), formatStat(g.UtilMean, "%"), g.Verdict, g.Verdict)
		}
		h.s(`
    </tbody>
  </table></div>
  `)
		if d.AllGroups > len(d.Groups.Groups) {
			h.f(`<p class="sub">The %v of the %v %vs with the most idle cost; <a href="/gpus?sort=idle_cost">the GPUs page lists them all</a>, sorted by idle cost.</p>
  `, len(d.Groups.Groups), formatCount(uint64(d.AllGroups)), d.Groups.By)
		}
	} else {
		h.s(`
  <p class="empty">No telemetry in this period. Run <code>gpucost agent --server URL</code> on each GPU host, or pick a longer period.</p>
  `)
	}
	h.s(`
</section>

`)
}

// writeIdleHabits writes the GPUs idle at the same hours every day, candidates for a stop
// schedule.
func writeIdleHabits(h *htmlPage, d idlePage) {
	h.s(`
<section class="card">
  <h2>Idle every day</h2>
  <p class="sub">GPUs idle in at least 80% of the minutes of the same hours each day: candidates for a stop schedule.</p>
  <div class="scroll"><table>
    <thead><tr><th>GPU</th><th>Host</th><th>Model</th><th>Idle daily</th><th class="num">Idle hours</th></tr></thead>
    <tbody>`)
	for _, x := range d.Habits {
		h.f(`<tr><td class="key">%v</td><td>%v</td><td>%v</td><td>%v–%v</td><td class="num">%v</td></tr>`,
			x.GPU, x.Host, x.Model, fmt.Sprintf("%02d:00", x.From), fmt.Sprintf("%02d:00", x.To), formatHours(x.IdleHours))
	}
	h.s(`</tbody>
  </table></div>
`)
	if d.AllHabits > len(d.Habits) {
		h.f(`  <p class="sub">The %v GPUs idle the most hours of the %v with a daily habit.</p>
`, len(d.Habits), formatCount(uint64(d.AllHabits)))
	}
	h.s(`</section>
`)
}

// writeLongestIdle writes the longest idle periods, or the minimum length none reached, each
// period's cost as a list of all of them prints it (analyze.IdleReport.PeriodCents) and a last
// row of the periods not listed, so that the Cost column adds up to the Cost of idle time card.
// It fails, and stops writing, at a period without a series.
func writeLongestIdle(h *htmlPage, d idlePage) {
	h.s(`

<section class="card">
  <h2>Longest idle periods</h2>
  `)
	if len(d.Longest) > 0 {
		h.s(`
  <div class="scroll"><table>
    <thead><tr><th>GPU</th><th>Host</th><th>Model</th><th>From</th><th>To</th><th class="num">Length</th><th class="num">GPU-hours</th><th class="num">Cost</th></tr></thead>
    <tbody>`)
		cents := idlePeriodCents(d.Idle)
		shown := make(map[idlePeriodKey]bool, len(d.Longest))
		for _, p := range d.Longest {
			if p.Series == nil {
				h.fail(fmt.Errorf("idle period from %v has no series", datetime(p.Start)))
				return
			}
			k := keyOfIdlePeriod(p)
			shown[k] = true
			writeIdlePeriodRow(h, p, cents[k])
		}
		if len(d.Idle.Periods) > len(d.Longest) {
			writeOtherIdlePeriods(h, d.Idle, cents, shown)
		}
		h.s(`</tbody>
  </table></div>
  `)
		if len(d.Idle.Periods) > len(d.Longest) {
			h.f(`<p class="sub">The %v longest of %v periods.</p>`, len(d.Longest), len(d.Idle.Periods))
		}
		h.s(`
  `)
	} else {
		h.f(`
  <p class="empty">No GPU was idle for %v or longer in this period.</p>
  `, formatDuration(d.Idle.MinIdle.D()))
	}
	h.s(`
</section>
`)
}

// writeIdlePeriodRow writes one idle period's row: the GPU, when, how long and what it cost
// (cost, its printed cents). p.Series must not be nil.
func writeIdlePeriodRow(h *htmlPage, p analyze.IdlePeriod, cost gpucost.Money) {
	h.f(`<tr><td class="key">%v</td><td>%v</td><td>%v</td><td>%v</td><td>`, p.Series.GPU.UUID, p.Series.GPU.Host, p.Series.GPU.Model, datetime(p.Start))
	if p.Open {
		h.s(`still idle`)
	} else {
		h.f(`%v`, datetime(p.End))
	}
	h.f(`</td><td class="num">%v</td><td class="num">%v</td><td class="num">`, formatDuration(p.Duration.D()), formatHours(p.GPUHours))
	if p.Priced {
		h.f(`%v`, money(cost))
	} else {
		h.s(`no price`)
	}
	h.s(`</td></tr>`)
}

// writeOtherIdlePeriods writes the row of the periods of idle that are not listed (not in
// shown): how many, their GPU-hours and the sum of their printed costs.
func writeOtherIdlePeriods(h *htmlPage, idle analyze.IdleReport, cents map[idlePeriodKey]gpucost.Money, shown map[idlePeriodKey]bool) {
	n, hours := 0, 0.0
	cost := gpucost.Money{Currency: idle.Currency}
	for _, p := range idle.Periods {
		if p.Series != nil && shown[keyOfIdlePeriod(p)] {
			continue
		}
		n++
		hours += p.GPUHours
		if p.Priced && p.Series != nil {
			cost = cost.Add(cents[keyOfIdlePeriod(p)])
		}
	}
	h.f(`<tr><td class="key">%v other period%v</td><td></td><td></td><td></td><td></td><td class="num"></td><td class="num">%v</td><td class="num">%v</td></tr>`,
		n, plural(n), formatHours(hours), money(cost))
}

// idlePeriodKey names an idle period: its series and start.
type idlePeriodKey struct {
	series string
	start  time.Time
}

func keyOfIdlePeriod(p analyze.IdlePeriod) idlePeriodKey {
	return idlePeriodKey{series: p.Series.Key(), start: p.Start.UTC()}
}

// idlePeriodCents returns each period of idle's printed cost by its key
// (analyze.IdleReport.PeriodCents); periods without a series are left out.
func idlePeriodCents(idle analyze.IdleReport) map[idlePeriodKey]gpucost.Money {
	all := idle.PeriodCents()
	out := make(map[idlePeriodKey]gpucost.Money, len(all))
	for i, p := range idle.Periods {
		if p.Series != nil {
			out[keyOfIdlePeriod(p)] = all[i]
		}
	}
	return out
}
