package budget

import (
	"errors"
	"iter"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/catalog"
)

// Scope selects the cost lines a budget counts. Every field given must match; an empty scope
// counts every line. Team and project are read from the tags analyze.DefaultTagKeys names
// ("team", "user:team", "label_team", …), the namespace from a namespace tag or label.
type Scope struct {
	Tags      map[string]string `yaml:"tags"`      // tag or label key → value, exactly as the bill writes them
	Namespace string            `yaml:"namespace"` // Kubernetes namespace
	Team      string            `yaml:"team"`
	Project   string            `yaml:"project"`
	Provider  string            `yaml:"provider"` // aws, gcp, azure or the bill's ProviderName; any case
	Service   string            `yaml:"service"`  // the bill's ServiceName, any case
	GPUOnly   bool              `yaml:"gpu_only"` // only lines that pay for GPUs
}

// namespaceKeys are the tag keys a Kubernetes namespace is found under, in order.
var namespaceKeys = []string{"namespace", "kubernetes_namespace", "k8s_namespace", "label_namespace",
	"user:namespace", "user_namespace", "aws:eks:namespace", "goog-k8s-namespace-name"}

// providerAliases maps the names bills and catalogs give providers to one.
var providerAliases = map[string]string{
	"amazon web services": "aws", "amazon": "aws", "google cloud": "gcp", "google": "gcp",
	"google cloud platform": "gcp", "microsoft": "azure", "microsoft azure": "azure",
}

// NormalizeProvider returns the short name of a provider: "AWS" → aws, "Google Cloud" → gcp,
// "Microsoft" → azure; other names lower-cased.
func NormalizeProvider(p string) string {
	p = strings.ToLower(strings.TrimSpace(p))
	if a, ok := providerAliases[p]; ok {
		return a
	}
	return p
}

func (s Scope) check() error {
	for k := range s.Tags {
		if strings.TrimSpace(k) == "" {
			return errors.New("tags: a tag key is empty; write tags as {key: value}")
		}
	}
	return nil
}

// Matcher decides which cost lines a scope counts.
type Matcher struct {
	TagKeys map[string][]string            // team and project tag keys; analyze.DefaultTagKeys when nil
	IsGPU   func(l *gpucost.CostLine) bool // whether a line pays for GPUs; the bundled catalog's LineGPU when nil
	owners  *analyze.TagOwners             // built on first use
	ownerMu sync.Mutex                     // guards owners
}

// Matches reports whether scope counts line, with the default tag keys and the bundled catalog.
func Matches(scope Scope, line *gpucost.CostLine) bool {
	var m Matcher
	return m.Matches(scope, line)
}

// Matches reports whether scope counts line.
func (m *Matcher) Matches(s Scope, l *gpucost.CostLine) bool {
	f := lineFacts{line: l}
	return m.matches(s, tagPairs(s.Tags), &f)
}

// tagPairs returns a scope's tags as a list, which is quicker to walk for each line than a map.
func tagPairs(tags map[string]string) [][2]string {
	out := make([][2]string, 0, len(tags))
	for k, v := range tags {
		out = append(out, [2]string{k, v})
	}
	return out
}

// lineFacts are what scopes ask of one line, each worked out once on first use.
type lineFacts struct {
	line           *gpucost.CostLine
	owner          gpucost.Owner
	gpu, haveOwner bool
	haveGPU        bool
}

func (m *Matcher) matches(s Scope, tags [][2]string, f *lineFacts) bool {
	l := f.line
	for _, kv := range tags {
		if got, ok := l.Tags[kv[0]]; !ok || got != kv[1] {
			return false
		}
	}
	if s.Provider != "" && NormalizeProvider(s.Provider) != NormalizeProvider(l.Provider) {
		return false
	}
	if s.Service != "" && !strings.EqualFold(s.Service, l.ServiceName) {
		return false
	}
	if s.Namespace != "" && firstTag(l.Tags, namespaceKeys) != s.Namespace {
		return false
	}
	if s.Team != "" || s.Project != "" {
		if !f.haveOwner {
			f.owner, f.haveOwner = m.owner(l.Tags), true
		}
		if s.Team != "" && f.owner.Team != s.Team || s.Project != "" && f.owner.Project != s.Project {
			return false
		}
	}
	if s.GPUOnly && !f.haveGPU {
		f.gpu, f.haveGPU = m.isGPU(l), true
	}
	return !s.GPUOnly || f.gpu
}

func (m *Matcher) owner(tags gpucost.Labels) gpucost.Owner {
	m.ownerMu.Lock()
	defer m.ownerMu.Unlock()
	if m.owners == nil {
		keys := m.TagKeys
		if keys == nil {
			keys = analyze.DefaultTagKeys()
		}
		m.owners = &analyze.TagOwners{Keys: keys}
	}
	return m.owners.Of(tags)
}

func (m *Matcher) isGPU(l *gpucost.CostLine) bool {
	if m.IsGPU != nil {
		return m.IsGPU(l)
	}
	c := bundled()
	if c == nil {
		return false
	}
	_, ok := c.LineGPU(l)
	return ok
}

// bundled is the bundled catalog, parsed from the binary once.
var bundled = sync.OnceValue(func() *catalog.Catalog {
	c, err := catalog.Bundled()
	if err != nil {
		return nil
	}
	return c
})

func firstTag(tags gpucost.Labels, keys []string) string {
	for _, k := range keys {
		if v := tags[k]; v != "" {
			return v
		}
	}
	return ""
}

// DayCost is the cost of one UTC day.
type DayCost struct {
	Day  time.Time     `json:"day"` // midnight UTC
	Cost gpucost.Money `json:"cost"`
}

// Tally sums the cost lines each of several budgets counts per UTC day of the lines' charge
// period start, in each budget's currency and cost measure. Lines in another currency are
// counted apart, never converted.
type Tally struct {
	budgets []Budget
	match   *Matcher
	tags    [][][2]string     // per budget: its scope's tags
	days    []map[int64]int64 // per budget: Unix day → nanos
	seen    map[int64]bool    // Unix days with any line, in scope or not
	// OtherCurrency counts, per budget, the lines in scope that were skipped for their currency.
	OtherCurrency []int
}

// NewTally returns a Tally for budgets; m decides scopes (the defaults when nil).
func NewTally(budgets []Budget, m *Matcher) *Tally {
	if m == nil {
		m = &Matcher{}
	}
	t := &Tally{budgets: budgets, match: m, days: make([]map[int64]int64, len(budgets)), seen: map[int64]bool{},
		OtherCurrency: make([]int, len(budgets))}
	for i := range t.days {
		t.days[i] = map[int64]int64{}
		t.tags = append(t.tags, tagPairs(budgets[i].Scope.Tags))
	}
	return t
}

// Add counts one cost line toward every budget whose scope it falls in.
func (t *Tally) Add(l *gpucost.CostLine) {
	day := unixDay(l.ChargePeriodStart)
	t.seen[day] = true
	f := lineFacts{line: l}
	for i := range t.budgets {
		b := &t.budgets[i]
		if !t.match.matches(b.Scope, t.tags[i], &f) {
			continue
		}
		cost := l.EffectiveCost
		if b.Cost == Billed {
			cost = l.BilledCost
		}
		if cost.IsZero() {
			continue
		}
		if currencyOf(cost) != currencyOf(b.Amount) {
			t.OtherCurrency[i]++
			continue
		}
		t.days[i][day] += cost.Nanos
	}
}

// Daily returns budget i's cost per day, oldest first; days with no line are left out.
func (t *Tally) Daily(i int) []DayCost {
	keys := make([]int64, 0, len(t.days[i]))
	for d := range t.days[i] {
		keys = append(keys, d)
	}
	slices.Sort(keys)
	out := make([]DayCost, len(keys))
	for j, d := range keys {
		out[j] = DayCost{Day: time.Unix(d*86400, 0).UTC(), Cost: gpucost.Money{Nanos: t.days[i][d], Currency: currencyOf(t.budgets[i].Amount)}}
	}
	return out
}

// DataDays returns the days with any line, in a scope or not, oldest first: the days the bill
// covers.
func (t *Tally) DataDays() []time.Time {
	keys := make([]int64, 0, len(t.seen))
	for d := range t.seen {
		keys = append(keys, d)
	}
	slices.Sort(keys)
	out := make([]time.Time, len(keys))
	for j, d := range keys {
		out[j] = time.Unix(d*86400, 0).UTC()
	}
	return out
}

// DailyCosts sums the lines scope counts per UTC day, in currency, effective cost.
func DailyCosts(scope Scope, currency string, lines iter.Seq[*gpucost.CostLine]) []DayCost {
	t := NewTally([]Budget{{Scope: scope, Amount: gpucost.Money{Currency: currency}, Cost: Effective}}, nil)
	for l := range lines {
		t.Add(l)
	}
	return t.Daily(0)
}

func currencyOf(m gpucost.Money) string {
	if m.Currency == "" {
		return "USD"
	}
	return m.Currency
}

// unixDay returns the number of whole UTC days from 1970-01-01 to t, rounding down.
func unixDay(t time.Time) int64 {
	s := t.Unix()
	d := s / 86400
	if s < 0 && s%86400 != 0 {
		d--
	}
	return d
}
