package web

import (
	"github.com/gpucost/gpucost/httpapi"
)

// writeBillSources writes the bill sources section of the activity page: each source of serve
// --pull-bills with its last pull, what the pull found and its error.
func writeBillSources(h *htmlPage, sources []httpapi.BillSourceStatus) {
	h.s(`
<section class="card" id="bill-sources">
  <h2>Bill sources</h2>
  <div class="scroll"><table>
    <thead><tr><th>Source</th><th>Last pull</th><th>Result</th><th class="num">Imported</th><th class="num">Replaced</th><th class="num">Unchanged</th><th class="num">Refused</th><th>Last success</th><th>Error</th></tr></thead>
    <tbody>
    `)
	for _, s := range sources {
		result, last := "pending", "—"
		if !s.LastPull.IsZero() {
			result, last = "ok", datetime(s.LastPull)
			if !s.OK {
				result = "failed"
			}
		}
		success := "—"
		if !s.LastSuccess.IsZero() {
			success = datetime(s.LastSuccess)
		}
		h.f(`<tr><td>%v <span class="sub">%v</span></td><td>%v</td><td><span class="tag status-%v">%v</span></td>
      <td class="num">%v</td><td class="num">%v</td><td class="num">%v</td><td class="num">%v</td><td>%v</td><td>`,
			s.Name, s.URL, last, result, result, s.Imported, s.Replaced, s.Unchanged, s.Refused, success)
		if s.Error != "" {
			h.f(`<span class="sub">%v</span>`, s.Error)
			if s.Errors > 1 {
				h.f(` <span class="sub">(%v failed pulls since %v%v)</span>`, s.Errors, datetime(s.FailingFrom), alerted(s.Alerted))
			}
		}
		h.s(`</td></tr>
    `)
	}
	h.s(`
    </tbody>
  </table></div>
  <p class="sub">Pulled every <code>--pull-every</code> by <code>gpucost serve --pull-bills</code>; also at <code>/api/v1/bill-sources</code>.</p>
</section>
`)
}

// alerted says whether a failing source's alert went out.
func alerted(sent bool) string {
	if sent {
		return "; alerted"
	}
	return ""
}
