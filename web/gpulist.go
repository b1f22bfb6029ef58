package web

import (
	"cmp"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/gpucost/gpucost/analyze"
)

// The GPUs page's table is paged, sorted and filtered on the server, so a fleet of 10,000
// GPUs sends one page of rows, not all of them (docs/architecture.md "Dashboard").
const (
	defaultPer = 50  // rows a page shows unless ?per= says otherwise
	maxPer     = 200 // the most ?per= takes, which keeps a page under 300 KB
)

// gpuSorts are the ?sort= values the GPUs table takes; the first is the default.
var gpuSorts = []string{"idle_cost", "util", "gpu_hours", "host", "model"}

// listParams are a paged table's parameters: the page, its length, the sort and the filters.
type listParams struct {
	Page, Per int
	Sort, Dir string // Dir is asc or desc
	Q         string // a substring of the GPU, host or model, any case
	Model     string // the model, exactly
	Idle      bool   // only groups idle at least half of their cost
}

// parseListParams reads ?page=, ?per=, ?sort=, ?dir=, ?q=, ?model= and ?idle= for a table
// that sorts by sorts (the first the default, empty for one that does not sort).
func parseListParams(v url.Values, sorts []string) (listParams, error) {
	p := listParams{Page: 1, Per: defaultPer}
	if s := v.Get("page"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return p, fmt.Errorf("page=%s: give a page number from 1", s)
		}
		p.Page = n
	}
	if s := v.Get("per"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxPer {
			return p, fmt.Errorf("per=%s: give the rows per page, from 1 to %d", s, maxPer)
		}
		p.Per = n
	}
	if len(sorts) > 0 {
		p.Sort = sorts[0]
		if s := v.Get("sort"); s != "" {
			if !contains(sorts, s) {
				return p, fmt.Errorf("sort=%s: sort by %s", s, strings.Join(sorts, ", "))
			}
			p.Sort = s
		}
		p.Dir = defaultDir(p.Sort)
		if d := v.Get("dir"); d != "" {
			if d != "asc" && d != "desc" {
				return p, fmt.Errorf("dir=%s: give asc or desc", d)
			}
			p.Dir = d
		}
	}
	p.Q = strings.TrimSpace(v.Get("q"))
	p.Model = v.Get("model")
	if len(p.Q) > 256 || len(p.Model) > 256 {
		return p, fmt.Errorf("q and model take at most 256 characters")
	}
	switch s := v.Get("idle"); s {
	case "", "0":
	case "1", "on":
		p.Idle = true
	default:
		return p, fmt.Errorf("idle=%s: give idle=1 to show only idle GPUs", s)
	}
	return p, nil
}

// defaultDir is the direction a sort starts in: names A to Z, figures largest first.
func defaultDir(sort string) string {
	if sort == "host" || sort == "model" {
		return "asc"
	}
	return "desc"
}

// values are p as URL parameters, leaving out the defaults, so links stay short.
func (p listParams) values(sorts []string) url.Values {
	v := url.Values{}
	if p.Page > 1 {
		v.Set("page", strconv.Itoa(p.Page))
	}
	if p.Per != defaultPer {
		v.Set("per", strconv.Itoa(p.Per))
	}
	if len(sorts) > 0 && p.Sort != sorts[0] {
		v.Set("sort", p.Sort)
	}
	if p.Sort != "" && p.Dir != defaultDir(p.Sort) {
		v.Set("dir", p.Dir)
	}
	if p.Q != "" {
		v.Set("q", p.Q)
	}
	if p.Model != "" {
		v.Set("model", p.Model)
	}
	if p.Idle {
		v.Set("idle", "1")
	}
	return v
}

// pageOf is the span of a page of rows: rows [From, To) of Total, page Page of Pages.
type pageOf struct {
	Page, Pages, Per int
	From, To, Total  int
}

// paginate places page p (clamped to the last page) of per rows over total rows.
func paginate(page, per, total int) pageOf {
	pages := max(1, (total+per-1)/per)
	page = min(max(page, 1), pages)
	from := min((page-1)*per, total)
	return pageOf{Page: page, Pages: pages, Per: per, From: from, To: min(from+per, total), Total: total}
}

// idleShare is the share of its time or cost (fleet.Annotate) a group idled at which
// ?idle=1 keeps it: half.
const idleShare = 50

// filterGroups returns the groups p's filters keep, pointing into groups, so that sorting
// 10,000 of them moves pointers rather than the groups' statistics.
func filterGroups(groups []analyze.GroupStats, p listParams) []*analyze.GroupStats {
	q := strings.ToLower(p.Q)
	out := make([]*analyze.GroupStats, 0, len(groups))
	for i := range groups {
		g := &groups[i]
		if p.Model != "" && g.Model != p.Model {
			continue
		}
		if p.Idle && !(g.IdlePct.Valid() && float64(g.IdlePct) >= idleShare) {
			continue
		}
		if q != "" && !containsFold(g.Key, q) && !containsFold(g.Host, q) && !containsFold(g.Model, q) {
			continue
		}
		out = append(out, g)
	}
	return out
}

// containsFold reports whether s holds lower, which is lower case, in any case.
func containsFold(s, lower string) bool {
	return strings.Contains(strings.ToLower(s), lower)
}

// sortGroups sorts groups by p's sort and direction, ties by key; an absent figure counts as
// the lowest.
func sortGroups(groups []*analyze.GroupStats, p listParams) {
	by := groupOrder(p.Sort)
	desc := p.Dir == "desc"
	slices.SortStableFunc(groups, func(a, b *analyze.GroupStats) int {
		c := by(a, b)
		if desc {
			c = -c
		}
		return cmp.Or(c, cmp.Compare(a.Key, b.Key))
	})
}

// groupOrder compares two groups by one column, ascending.
func groupOrder(sort string) func(a, b *analyze.GroupStats) int {
	switch sort {
	case "util":
		return func(a, b *analyze.GroupStats) int { return compareStat(a.UtilMean, b.UtilMean) }
	case "gpu_hours":
		return func(a, b *analyze.GroupStats) int { return cmp.Compare(a.GPUHours, b.GPUHours) }
	case "host":
		return func(a, b *analyze.GroupStats) int { return cmp.Compare(a.Host, b.Host) }
	case "model":
		return func(a, b *analyze.GroupStats) int { return cmp.Compare(a.Model, b.Model) }
	}
	return func(a, b *analyze.GroupStats) int { return cmp.Compare(a.IdleCost.Nanos, b.IdleCost.Nanos) }
}

// compareStat compares two statistics, an absent one below every present one.
func compareStat(a, b analyze.Stat) int {
	switch {
	case !a.Valid() && !b.Valid():
		return 0
	case !a.Valid():
		return -1
	case !b.Valid():
		return 1
	}
	return cmp.Compare(float64(a), float64(b))
}

// models are the distinct models of groups, sorted, for the model picker.
func models(groups []analyze.GroupStats) []string {
	seen := map[string]bool{}
	var out []string
	for _, g := range groups {
		if g.Model != "" && !seen[g.Model] {
			seen[g.Model] = true
			out = append(out, g.Model)
		}
	}
	slices.Sort(out)
	return out
}
