package web

import (
	"net/url"
	"strings"

	"github.com/gpucost/gpucost/analyze"
)

// writeGPUs writes the utilisation heatmap, the table by group with the fleet's totals, and
// the alerts.
func writeGPUs(h *htmlPage, l layout) {
	d := l.Data.(gpusPage)
	writeUtilisationHeatmap(h, d)
	writeUtilisationByGroup(h, l, d)
	writeGPUAlerts(h, l, d)
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
  <p class="sub">Each cell is one hour's mean utilisation; blank cells had no samples.`)
		if n := len(d.Heatmap.Y); d.HeatmapRows > n {
			h.f(` It shows the first %v of the %v rows of this page of the table, as many as a chart can draw; a shorter period or fewer rows a page shows them all.`, n, d.HeatmapRows)
		}
		h.s(`</p>
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

// writeUtilisationByGroup writes the utilisation table of one page of groups, with the
// fleet's totals, its filters, sort links and page links, or why it is empty.
func writeUtilisationByGroup(h *htmlPage, l layout, d gpusPage) {
	h.f(`<section class="card" id="table">
  <h2>Utilisation by %v</h2>
  `, d.Report.By)
	if d.All > 0 {
		writeGPUFilters(h, l, d)
	}
	if len(d.Report.Groups) > 0 {
		h.f(`
  <div class="scroll"><table>
    <thead><tr><th>%v</th>`, d.Report.By)
		sortHeader(h, l, d.List, "host", "Host", "")
		sortHeader(h, l, d.List, "model", "Model", "")
		h.s(`<th class="num">GPUs</th>`)
		sortHeader(h, l, d.List, "gpu_hours", "GPU-hours", "num")
		sortHeader(h, l, d.List, "util", "Mean", "num")
		h.s(`<th class="num">p95</th><th class="num">Memory peak</th><th class="num">Idle</th><th class="num">Cost</th>`)
		sortHeader(h, l, d.List, "idle_cost", "Idle cost", "num")
		h.s(`<th>Verdict</th></tr></thead>
    <tbody>
    `)
		for _, g := range d.Report.Groups {
			h.f(`<tr>
      <td class="key">%v</td><td>%v</td><td>%v</td><td class="num">%v</td><td class="num">%v</td>
      `, g.Key, g.Host, g.Model, g.GPUs, formatHours(g.GPUHours))
			groupStats(h, g, d.Cents.Groups[g.Key])
			h.f(`
      <td><span class="tag verdict-%v">%v</span></td>
    </tr>`, g.Verdict, g.Verdict)
		}
		f := d.Report.Fleet
		h.f(`
    </tbody>
    <tfoot><tr><th>fleet</th><td></td><td></td><td class="num">%v</td><td class="num">%v</td>
      `, f.GPUs, formatHours(f.GPUHours))
		groupStats(h, f, d.Cents.Fleet)
		h.s(`<td></td></tr></tfoot>
  </table></div>
  `)
		what := d.Report.By.String()
		if what == "gpu" {
			what = "GPU"
		}
		writePager(h, l, d.List, gpuSorts, d.Span, what)
	} else if d.All > 0 {
		h.f(`
  <p class="empty">None of the %v %v%v matches these filters; <a href="%v">clear them</a>.</p>
  `, d.All, d.Report.By, plural(d.All), pageLink(l, listParams{Per: d.List.Per, Sort: d.List.Sort, Dir: d.List.Dir}, gpuSorts))
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

// writeGPUFilters writes the form that filters the table: a search, the model and idle only,
// carrying the page's period, grouping, label filter and sort.
func writeGPUFilters(h *htmlPage, l layout, d gpusPage) {
	h.f(`<form class="picker" method="get" action="%v">
    `, urlStart(l.Path))
	base := baseValues(l)
	for _, k := range []string{"since", "by", "filter"} {
		if v := base.Get(k); v != "" {
			h.f(`<input type="hidden" name="%v" value="%v">`, k, v)
		}
	}
	lp := d.List
	keep := lp.values(gpuSorts)
	for _, k := range []string{"sort", "dir", "per"} {
		if v := keep.Get(k); v != "" {
			h.f(`<input type="hidden" name="%v" value="%v">`, k, v)
		}
	}
	h.f(`
    <label>Search <input type="search" name="q" value="%v" placeholder="GPU, host or model" size="22"></label>
    <label>Model <select name="model" data-autosubmit><option value="">all</option>`, lp.Q)
	for _, m := range d.Models {
		h.f(`<option value="%v"`, m)
		if m == lp.Model {
			h.s(` selected`)
		}
		h.f(`>%v</option>`, m)
	}
	h.s(`</select></label>
    <label><input type="checkbox" name="idle" value="1"`)
	if lp.Idle {
		h.s(` checked`)
	}
	h.s(`> idle half the time or more</label>
    <button type="submit">Show</button>
  </form>
  `)
}

// sortHeader writes a column header that sorts the table by key: largest first, or the other
// way round when it sorts by key already.
func sortHeader(h *htmlPage, l layout, lp listParams, key, title, class string) {
	sorts := gpuSorts
	next := lp
	next.Page, next.Sort, next.Dir = 1, key, defaultDir(key)
	mark := ""
	if lp.Sort == key {
		next.Dir = map[string]string{"asc": "desc", "desc": "asc"}[lp.Dir]
		mark = map[string]string{"asc": " ▲", "desc": " ▼"}[lp.Dir]
	}
	h.s(`<th`)
	if class != "" {
		h.f(` class="%v"`, class)
	}
	if mark != "" {
		h.f(` aria-sort="%v"`, map[string]string{"asc": "ascending", "desc": "descending"}[lp.Dir])
	}
	h.f(`><a href="%v">%v%v</a></th>`, pageLink(l, next, sorts), title, mark)
}

// writePager writes which rows a page shows and the links to the first, previous, next and
// last pages, each keeping the other parameters.
func writePager(h *htmlPage, l layout, lp listParams, sorts []string, span pageOf, what string) {
	h.f(`<nav class="pager" aria-label="Pages of the table">
    <span>%v–%v of %v %v%v</span>`, formatCount(uint64(span.From+1)), formatCount(uint64(span.To)), formatCount(uint64(span.Total)), what, plural(span.Total))
	if span.Pages > 1 {
		for _, link := range []struct {
			title string
			page  int
		}{{"« first", 1}, {"‹ previous", span.Page - 1}, {"next ›", span.Page + 1}, {"last »", span.Pages}} {
			if link.page < 1 || link.page > span.Pages || link.page == span.Page {
				h.f(`<span class="off">%v</span>`, link.title)
				continue
			}
			next := lp
			next.Page = link.page
			h.f(`<a href="%v">%v</a>`, pageLink(l, next, sorts), link.title)
		}
		h.f(`<span>page %v of %v</span>`, span.Page, span.Pages)
	}
	h.s(`
  </nav>
  `)
}

// baseValues are the page's own parameters: its period, grouping and label filter.
func baseValues(l layout) url.Values {
	v := url.Values{}
	if l.Query.Since != "" {
		v.Set("since", l.Query.Since)
	}
	if l.Query.By != "" {
		v.Set("by", l.Query.By)
	}
	if l.Query.Filter != "" {
		v.Set("filter", l.Query.Filter)
	}
	return v
}

// pageLink is the link to this page with lp's table parameters and the page's own.
func pageLink(l layout, lp listParams, sorts []string) trusted {
	v := baseValues(l)
	for k, vs := range lp.values(sorts) {
		v[k] = vs
	}
	if len(v) == 0 {
		return urlStart(l.Path)
	}
	return urlStart(l.Path + "?" + v.Encode())
}

// writeGPUAlerts writes how many alerts the period had, by state, and links to the Alerts page,
// which lists them.
func writeGPUAlerts(h *htmlPage, l layout, d gpusPage) {
	a := d.Alerts
	h.s(`<section class="card">
  <h2>Alerts`)
	if a.Firing != 0 {
		h.f(` <span class="tag level-over">%v firing</span>`, a.Firing)
	}
	if a.NoData != 0 {
		h.f(` <span class="tag level-over">%v no data</span>`, a.NoData)
	}
	h.s(`</h2>
  `)
	link := urlStart("/alerts")
	if v := baseValues(l); len(v) > 0 {
		v.Del("by")
		link = urlStart("/alerts?" + v.Encode())
	}
	if a.Total > 0 {
		var states []string
		for _, st := range []struct {
			n    int
			what string
		}{{a.Firing, "firing"}, {a.NoData, "whose GPUs stopped reporting"}, {a.Resolved, "resolved"}} {
			if st.n != 0 {
				states = append(states, formatCount(uint64(st.n))+" "+st.what)
			}
		}
		h.f(`
  <p>%v alert%v held in this period: %v. <a href="%v">See them by rule and GPU on the Alerts page</a>.</p>
  `, formatCount(uint64(a.Total)), plural(a.Total), strings.Join(states, ", "), link)
	} else {
		h.s(`
  <p class="empty">No alert rule held in this period`)
		if a.Series != 0 {
			h.f(` over %v GPU series`, a.Series)
		}
		h.s(`.</p>
  `)
	}
	h.s(`
</section>
`)
}

// groupStats writes a group's utilisation, memory, idle and cost cells, its amounts as c.
func groupStats(h *htmlPage, g analyze.GroupStats, c analyze.Cents) {
	h.f(`<td class="num">%v</td><td class="num">%v</td><td class="num">%v</td>
      <td class="num">%v</td><td class="num">%v</td><td class="num">%v</td>`,
		formatStat(g.UtilMean, "%"), formatStat(g.UtilP95, "%"), formatStat(g.MemPeakMiB, " MiB"),
		formatStat(g.IdlePct, "%"), money(c.Cost), money(c.IdleCost))
}
