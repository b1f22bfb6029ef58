package recommend

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/gpucost/gpucost"
)

// Plan is the recommender's answer (docs/architecture.md "Recommendations and savings"): per
// resource group, one path of compatible steps in the order they apply — right-size, then a GPU
// type or region, MIG sharing, a schedule or autoscaling, spot on the machine-hours that remain
// (as reference case R5 prices it), and a commitment sized on what stays on-demand — each priced on the group as the steps before it left it. Options that exclude a
// chosen step are listed under it as alternatives, never added. Before − After = Saving = the
// sum of every step's saving, exactly.
type Plan struct {
	Before        gpucost.Money `json:"before"`
	After         gpucost.Money `json:"after"`
	Saving        gpucost.Money `json:"saving"`
	SavingPercent float64       `json:"saving_pct"`
	// OneTimeCost is paid once to make the changes (the data egress of moves), not monthly.
	OneTimeCost gpucost.Money `json:"one_time_cost"`
	// Levers is each lever's saving and its share of Before, in the order Levers lists them.
	Levers []LeverShare `json:"levers"`
	Groups []PlanGroup  `json:"groups"`
	// Fleet is the fleet once every step is made, in the order of the FleetView.
	Fleet []Resource `json:"-"`
}

// LeverShare is one lever's part of a plan.
type LeverShare struct {
	Lever         string        `json:"lever"`
	MonthlySaving gpucost.Money `json:"monthly_saving"`
	Percent       float64       `json:"percent"` // of the plan's Before
}

// PlanGroup is the machines of one workload (provider, region, instance type, owner, namespace
// and kind as the bill and telemetry give them) and the path of steps chosen for them.
type PlanGroup struct {
	ID        string        `json:"id"`   // stable: names the workload, not a position
	Name      string        `json:"name"` // for people: "research/research: 6 × aws us-east-1 p3.8xlarge"
	Resources []string      `json:"resources"`
	Before    gpucost.Money `json:"before"`
	After     gpucost.Money `json:"after"`
	Saving    gpucost.Money `json:"saving"`
	Steps     []PlanStep    `json:"steps"`
	// NotChosen are options found for the group that no chosen step excludes but that the
	// plan leaves out because the path without them saves more.
	NotChosen []Alternative `json:"not_chosen,omitempty"`
}

// PlanStep is one change of a plan, priced on its group as the steps before it left it.
type PlanStep struct {
	// ID names the step by its group, lever and target ("research-p3.8xlarge/spot/spot-g6e.2xlarge"),
	// so it stays the same when other groups or steps change.
	ID             string                 `json:"id"`
	Group          string                 `json:"group"`
	Lever          string                 `json:"lever"`
	Recommendation gpucost.Recommendation `json:"recommendation"` // MonthlySaving = Before − After
	Before         gpucost.Money          `json:"before"`         // the group's monthly cost before the step
	After          gpucost.Money          `json:"after"`          // and after it
	// Needs says what people must do or approve before the step is made.
	Needs []string `json:"needs"`
	// Alternatives are the options that compete for this step and were not chosen.
	Alternatives []Alternative `json:"alternatives"`
}

// Alternative is an option a plan did not choose, with its own saving — priced on the fleet the
// step it competes with was priced on — and why it was not chosen.
type Alternative struct {
	Lever         string                     `json:"lever"`
	Kind          gpucost.RecommendationKind `json:"kind"`
	Action        string                     `json:"action"`
	MonthlySaving gpucost.Money              `json:"monthly_saving"`
	Confidence    gpucost.Confidence         `json:"confidence"`
	Why           string                     `json:"why"`
	resources     []string
}

// Levers lists the plan's levers in the order its stages apply them.
var Levers = []string{LeverRightSizing, LeverRegion, LeverSharing, LeverIdle, LeverAutoscaling, LeverSpot, LeverCommitments}

// stage is one position of a group's path. Its levers are applied in order; its rivals are found
// on the same fleet and never applied there: they are what the stage's steps exclude (a cheaper
// GPU type instead of fewer GPUs, a commitment instead of spot), and a step with a rival is made
// only when the plan through it saves at least as much as the plan without it.
type stage struct {
	levers, rivals []lever
}

var stages = []stage{
	{levers: []lever{{LeverRightSizing, findRightSizes}, {LeverRightSizing, findServingRightSizes}},
		rivals: []lever{{LeverRightSizing, findCheaperTypes}, {LeverRegion, findMoves}, {LeverSharing, findMIGShares}}},
	{levers: []lever{{LeverRightSizing, findCheaperTypes}, {LeverRegion, findMoves}}},
	{levers: []lever{{LeverSharing, findMIGShares}}},
	{levers: []lever{{LeverIdle, findIdleSchedules}, {LeverAutoscaling, findAutoscales}}},
	{levers: []lever{{LeverSpot, findSpot}}, rivals: []lever{{LeverCommitments, findCommitments}}},
	{levers: []lever{{LeverCommitments, findCommitments}}},
}

// staged is a stage's lever at its place in the whole sequence.
type staged struct {
	lever
	stage int
	first bool // the stage's first lever: its rivals are found before it
}

var sequence = func() []staged {
	var out []staged
	for i, st := range stages {
		for j, l := range st.levers {
			out = append(out, staged{lever: l, stage: i, first: j == 0})
		}
	}
	return out
}()

// NewPlan builds the plan of v's fleet: the machines grouped by workload, each group's path
// chosen and priced on its own (a commitment covers one group's machines), the groups' steps
// added up into the total. It is the one computation behind gpucost recommend, report savings,
// the API and the Recommendations page.
func NewPlan(v FleetView, p Prices, o Options) (Plan, error) {
	e, err := newEngine(v, p, o)
	if err != nil {
		return Plan{}, err
	}
	pl := Plan{Before: total(e.fleet), OneTimeCost: gpucost.USD(0), Groups: []PlanGroup{}}
	after := map[string]Resource{}
	for _, g := range workloads(e.fleet) {
		ge := e.sub(g.rs)
		pg, err := ge.path(g)
		if err != nil {
			return Plan{}, err
		}
		pl.Groups = append(pl.Groups, pg)
		for _, r := range ge.fleet {
			after[r.ID] = r
		}
	}
	for _, r := range e.fleet {
		pl.Fleet = append(pl.Fleet, after[r.ID])
	}
	pl.After = total(pl.Fleet)
	pl.Saving = pl.Before.Sub(pl.After)
	pl.SavingPercent = percent(pl.Saving, pl.Before)
	pl.Levers = LeverShares(pl.Steps(), pl.Before)
	for _, s := range pl.Steps() {
		pl.OneTimeCost = pl.OneTimeCost.Add(s.Recommendation.OneTimeCost)
	}
	return pl, nil
}

// LeverShares adds up the steps' monthly savings by lever, every lever of Levers in its order,
// each with its share of before in percent: the plan's split of its saving.
func LeverShares(steps []PlanStep, before gpucost.Money) []LeverShare {
	var out []LeverShare
	for _, l := range Levers {
		ls := LeverShare{Lever: l, MonthlySaving: gpucost.USD(0)}
		for _, s := range steps {
			if s.Lever == l {
				ls.MonthlySaving = ls.MonthlySaving.Add(s.Recommendation.MonthlySaving)
			}
		}
		ls.Percent = percent(ls.MonthlySaving, before)
		out = append(out, ls)
	}
	return out
}

// Steps returns every group's steps, group by group, each in the order it applies.
func (p Plan) Steps() []PlanStep {
	var out []PlanStep
	for _, g := range p.Groups {
		out = append(out, g.Steps...)
	}
	return out
}

// Step returns the step with the id, or false.
func (p Plan) Step(id string) (PlanStep, bool) {
	for _, s := range p.Steps() {
		if s.ID == id {
			return s, true
		}
	}
	return PlanStep{}, false
}

func percent(part, whole gpucost.Money) float64 {
	if whole.Nanos <= 0 {
		return 0
	}
	return 100 * float64(part.Nanos) / float64(whole.Nanos)
}

// workload is one plan group before its path is chosen.
type workload struct {
	id, name string
	rs       []Resource
}

// workloads groups the fleet's machines by provider, region, instance type, namespace and kind
// (the owner is the first machine's: an untagged machine of the namespace stays in its group),
// in the order they first appear, and gives each group an id unique in the fleet.
func workloads(f []Resource) []workload {
	var out []workload
	at := map[string]int{}
	for _, r := range f {
		k := strings.Join([]string{r.Provider, r.Region, r.InstanceType, r.Namespace, r.Kind}, "|")
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, workload{})
		}
		out[i].rs = append(out[i].rs, r)
	}
	for i := range out {
		r0 := out[i].rs[0]
		label := cmp.Or(r0.Namespace, r0.Kind, "(no namespace)")
		if r0.Owner != "" {
			label = r0.Owner + "/" + label
		}
		out[i].name = fmt.Sprintf("%s: %d × %s %s %s", label, len(out[i].rs), r0.Provider, r0.Region, r0.InstanceType)
	}
	// The id is the namespace and instance type; the region, provider and kind are added only
	// to the ids two groups would share.
	id := func(r Resource, n int) string {
		parts := []string{cmp.Or(r.Namespace, r.Kind, "fleet"), r.InstanceType, r.Region, r.Provider, r.Kind}
		return slug(strings.Join(parts[:n], "-"))
	}
	detail := make([]int, len(out))
	for i := range out {
		detail[i] = 2
	}
	for {
		count := map[string]int{}
		for i := range out {
			out[i].id = id(out[i].rs[0], detail[i])
			count[out[i].id]++
		}
		more := false
		for i := range out {
			if count[out[i].id] > 1 && detail[i] < 5 {
				detail[i]++
				more = true
			}
		}
		if !more {
			return out
		}
	}
}

var notSlug = regexp.MustCompile(`[^a-z0-9.]+`)

// slug lower-cases s and joins its words with hyphens.
func slug(s string) string {
	return strings.Trim(notSlug.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

// sub is an engine over rs alone, with e's prices and options.
func (e *engine) sub(rs []Resource) *engine {
	v := e.view
	v.Resources = rs
	return &engine{view: v, fleet: cloneFleet(rs), prices: e.prices, opt: e.opt, resized: map[string]bool{}}
}

// clone is an engine over a copy of e's fleet as it stands.
func (e *engine) clone() *engine {
	c := *e
	c.fleet = cloneFleet(e.fleet)
	c.resized = make(map[string]bool, len(e.resized))
	for k, v := range e.resized {
		c.resized[k] = v
	}
	return &c
}

func cloneFleet(f []Resource) []Resource {
	out := slices.Clone(f)
	for i := range out {
		out[i].Usage = slices.Clone(out[i].Usage)
	}
	return out
}

// worth is true when a recommendation saves at least the minimum, and something.
func (e *engine) worth(rec gpucost.Recommendation) bool {
	return rec.MonthlySaving.Nanos > 0 && !rec.MonthlySaving.Less(e.opt.MinSaving)
}

// change applies s to the engine's fleet and returns its exact saving.
func (e *engine) change(s step, l lever) gpucost.Money {
	before := total(e.fleet)
	s.apply(e.fleet)
	if l.name == LeverRightSizing || l.name == LeverSharing {
		for _, id := range s.rec.Resources {
			e.resized[id] = true
		}
	}
	return before.Sub(total(e.fleet))
}

// rollout applies every step the levers from sequence[from] on find, without rivals: the rest
// of a path as the plan would take it. It returns what they save.
func (e *engine) rollout(from int) gpucost.Money {
	saved := gpucost.USD(0)
	for _, sl := range sequence[from:] {
		for _, s := range sl.find(e) {
			if e.worth(s.rec) {
				saved = saved.Add(e.change(s, sl.lever))
			}
		}
	}
	return saved
}

// lookahead returns what the rest of the path saves with s made at sequence[k] and without it.
func (e *engine) lookahead(s step, k int) (with, without gpucost.Money) {
	a := e.clone()
	with = a.change(s, sequence[k].lever).Add(a.rollout(k + 1))
	without = e.clone().rollout(k + 1)
	return with, without
}

// rival is an option a stage's steps exclude, found on the fleet at the stage's start.
type rival struct {
	step
	lever string
	used  bool
}

// rivals finds the options st's steps exclude on the fleet as it stands.
func (e *engine) rivals(st stage) []*rival {
	var out []*rival
	for _, rl := range st.rivals {
		for _, s := range rl.find(e) {
			if e.worth(s.rec) {
				out = append(out, &rival{step: s, lever: rl.name})
			}
		}
	}
	return out
}

// path chooses and prices the steps of one group.
func (e *engine) path(w workload) (PlanGroup, error) {
	g := PlanGroup{ID: w.id, Name: w.name, Before: total(e.fleet), Steps: []PlanStep{}}
	for _, r := range w.rs {
		g.Resources = append(g.Resources, r.ID)
	}
	var rivals []*rival
	var pending []Alternative // steps left out, waiting for the step that excludes them
	ids := map[string]bool{}
	for k, sl := range sequence {
		if sl.first {
			rivals = e.rivals(stages[sl.stage])
		}
		for _, s := range sl.find(e) {
			if !e.worth(s.rec) {
				continue
			}
			var against []*rival
			for _, r := range rivals {
				if overlap(r.rec.Resources, s.rec.Resources) {
					against = append(against, r)
				}
			}
			var with, without gpucost.Money
			if len(against) > 0 {
				with, without = e.lookahead(s, k)
				if why, skip := skipWhy(s, against, with, without); skip {
					pending = append(pending, alternative(sl.name, s.rec, why))
					continue
				}
			}
			ps, err := e.stepOf(&g, s, sl.lever)
			if err != nil {
				return g, err
			}
			for _, r := range against {
				if !r.used {
					r.used = true
					ps.Alternatives = append(ps.Alternatives, alternative(r.lever, r.rec, rivalWhy(s, r, with.Sub(without))))
				}
			}
			pending = slices.DeleteFunc(pending, func(a Alternative) bool {
				if !overlap(a.resources, s.rec.Resources) {
					return false
				}
				a.Why += "; " + conflict(s.rec.Kind, a.Kind)
				ps.Alternatives = append(ps.Alternatives, a)
				return true
			})
			ps.ID = uniqueID(ids, fmt.Sprintf("%s/%s/%s", g.ID, slug(sl.name), slug(s.target)), s.rec.Resources)
			g.Steps = append(g.Steps, ps)
		}
	}
	g.NotChosen = pending
	g.After = total(e.fleet)
	g.Saving = g.Before.Sub(g.After)
	return g, nil
}

// stepOf makes s on the group's fleet and returns it as a plan step, priced exactly.
func (e *engine) stepOf(g *PlanGroup, s step, l lever) (PlanStep, error) {
	before := total(e.fleet)
	s.rec.MonthlySaving = e.change(s, l)
	if s.rec.MonthlySaving.Nanos < 0 {
		return PlanStep{}, fmt.Errorf("recommend: step %q raised the cost of %s", s.rec.Action, g.Name)
	}
	return PlanStep{Group: g.ID, Lever: l.name, Recommendation: s.rec, Before: before, After: total(e.fleet),
		Needs: append([]string{}, s.needs...), Alternatives: []Alternative{}}, nil
}

// uniqueID returns id, or id with the step's resources added when the group already has it.
func uniqueID(seen map[string]bool, id string, resources []string) string {
	if seen[id] {
		id += "-" + slug(Names(resources))
	}
	for n := 2; seen[id]; n++ {
		id = fmt.Sprintf("%s-%d", strings.TrimSuffix(id, fmt.Sprintf("-%d", n-1)), n)
	}
	seen[id] = true
	return id
}

func alternative(lever string, rec gpucost.Recommendation, why string) Alternative {
	return Alternative{Lever: lever, Kind: rec.Kind, Action: rec.Action, MonthlySaving: rec.MonthlySaving,
		Confidence: rec.Confidence, Why: why, resources: rec.Resources}
}

// skipWhy decides whether the plan leaves s out: when the rest of the path saves more without
// it, or as much while a rival alone saves more than s (one step instead of two). It says why.
func skipWhy(s step, against []*rival, with, without gpucost.Money) (string, bool) {
	if with.Nanos < without.Nanos {
		return fmt.Sprintf("the plan without it saves %s more in all", without.Sub(with).Dollars()), true
	}
	if with.Nanos != without.Nanos {
		return "", false
	}
	for _, r := range against {
		if s.rec.MonthlySaving.Less(r.rec.MonthlySaving) {
			return "the plan reaches the same cost without it, in fewer steps", true
		}
	}
	return "", false
}

// rivalWhy says why the plan made s rather than r; gain is what the path through s saves more
// than the path without it.
func rivalWhy(s step, r *rival, gain gpucost.Money) string {
	c := conflict(s.rec.Kind, r.rec.Kind)
	if r.rec.MonthlySaving.Less(s.rec.MonthlySaving) {
		return fmt.Sprintf("saves less (%s against %s); %s", r.rec.MonthlySaving.Dollars(), s.rec.MonthlySaving.Dollars(), c)
	}
	return fmt.Sprintf("saves more on its own (%s against %s), but the plan through this step saves %s more in all; %s",
		r.rec.MonthlySaving.Dollars(), s.rec.MonthlySaving.Dollars(), gain.Dollars(), c)
}

// conflict says why two kinds of change exclude each other on the same machines.
func conflict(a, b gpucost.RecommendationKind) string {
	pair := func(x, y gpucost.RecommendationKind) bool { return a == x && b == y || a == y && b == x }
	switch {
	case pair(gpucost.RecSpot, gpucost.RecCommit):
		return "conflicts with spot: a machine on spot is not covered by a commitment"
	case pair(gpucost.RecRightSize, gpucost.RecShareMIG):
		return "both shrink the same serving pool"
	case pair(gpucost.RecRightSize, gpucost.RecRightSize), pair(gpucost.RecRightSize, gpucost.RecMoveRegion):
		return "both replace these machines' instance; the plan right-sizes first and looks for a cheaper GPU type or region for what remains"
	}
	return "both change the same machines"
}

func overlap(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}
