package enforce

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/internal/yamlerr"
	"go.yaml.in/yaml/v3"
)

// fileYAML is a policies file; see Load.
type fileYAML struct {
	Policies []policyYAML `yaml:"policies"`
}

type policyYAML struct {
	Name     string            `yaml:"name"`
	Budget   string            `yaml:"budget"`
	Over     *percentYAML      `yaml:"over"`
	Forecast bool              `yaml:"forecast"`
	MaxSpot  *int              `yaml:"max_spot_instances"`
	Unless   map[string]string `yaml:"unless_tags"`
	Scope    *budget.Scope     `yaml:"scope"`
	Actions  []string          `yaml:"actions"`
	Notify   []string          `yaml:"notify"`
	Tags     map[string]string `yaml:"tags"`
	DryRun   *bool             `yaml:"dry_run"`
}

// percentYAML is a share of a budget written "100%", "100" or 100.
type percentYAML struct {
	value float64
	text  string
}

func (p *percentYAML) UnmarshalYAML(n *yaml.Node) error {
	p.text = n.Value
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(n.Value), "%")), 64)
	if n.Kind != yaml.ScalarNode || err != nil {
		return fmt.Errorf("line %d: over: %q is not a percentage; write it as 100%% or 80", n.Line, n.Value)
	}
	p.value = v
	return nil
}

var (
	nameRE   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)
	fieldsOf = map[string]string{
		"fileYAML":   "policies",
		"policyYAML": "name, budget, over, forecast, max_spot_instances, unless_tags, scope, actions, notify, tags, dry_run",
		"Scope":      "tags, namespace, team, project, provider, service, gpu_only",
	}
	allActions = []string{ActNotify, ActTag, ActStop, ActScaleToZero}
)

// Load reads the policies of a YAML file; name is the file's name, for messages, and budgets
// are those a policy may name. Every mistake is an EInvalid error naming the file, the line and
// the field and saying what would work:
//
//	policies:
//	  - name: research-over-budget
//	    budget: research-monthly        # a budget by name, from the budgets file
//	    over: 100%                      # of the spend so far; forecast: true compares the forecast
//	    unless_tags: {approved: "true"} # resources carrying all of these are exempt
//	    scope: {tags: {team: research}} # what it acts on; default: the budget's scope
//	    actions: [notify, tag, stop]    # notify | tag | stop | scale-to-zero
//	    notify: [ops-slack]
//	    tags: {gpucost-policy: over-budget}  # what tag sets; default gpucost-policy: NAME
//	    dry_run: false                  # dry run unless this is false and the plan is applied
//	  - name: spot-cap
//	    max_spot_instances: 40          # running spot instances in scope; the newest beyond are acted on
//	    actions: [stop]
func Load(name string, data []byte, budgets []budget.Budget) ([]Policy, error) {
	var f fileYAML
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, gpucost.Errorf(gpucost.EInvalid, "%s: no policies: want a list under policies:", name)
		}
		return nil, yamlerr.Decode(name, err, fieldsOf)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, yamlerr.Decode(name, err, fieldsOf)
	}
	if len(f.Policies) == 0 {
		return nil, gpucost.Errorf(gpucost.EInvalid, "%s line %d: policies: empty; list at least one policy", name, yamlerr.Line(&root, "policies"))
	}
	out := make([]Policy, 0, len(f.Policies))
	for i, py := range f.Policies {
		bad := func(field, format string, args ...any) error {
			path := []string{"policies", strconv.Itoa(i)}
			if field != "" {
				path = append(path, field)
			}
			where := fmt.Sprintf("policies[%d]", i)
			if field != "" {
				where += "." + field
			}
			return gpucost.Errorf(gpucost.EInvalid, "%s line %d: %s: %s", name, yamlerr.Line(&root, path...), where, fmt.Sprintf(format, args...))
		}
		p, err := py.policy(bad, budgets)
		if err != nil {
			return nil, err
		}
		p.File, p.Line = name, yamlerr.Line(&root, "policies", strconv.Itoa(i))
		if j := slices.IndexFunc(out, func(o Policy) bool { return o.Name == p.Name }); j >= 0 {
			return nil, bad("name", "%q is also the name of the policy on line %d; names must be unique", p.Name, out[j].Line)
		}
		out = append(out, p)
	}
	return out, nil
}

// policy checks one policy's fields and their combinations.
func (py policyYAML) policy(bad func(field, format string, args ...any) error, budgets []budget.Budget) (Policy, error) {
	p := Policy{Name: py.Name, Budget: strings.TrimSpace(py.Budget), Forecast: py.Forecast, Unless: py.Unless,
		Actions: py.Actions, Notify: py.Notify, Tags: py.Tags, DryRun: py.DryRun == nil || *py.DryRun}
	if !nameRE.MatchString(p.Name) {
		if p.Name == "" {
			return p, bad("name", "missing; it is required")
		}
		return p, bad("name", "%q: use up to 100 letters, digits, '.', '_' and '-', starting with a letter or digit", p.Name)
	}
	if err := py.trigger(&p, bad, budgets); err != nil {
		return p, err
	}
	if py.Scope != nil {
		p.Scope, p.HasScope = *py.Scope, true
	}
	for k := range p.Scope.Tags {
		if strings.TrimSpace(k) == "" {
			return p, bad("scope", "a tag key is empty; write tags as {key: value}")
		}
	}
	for k := range p.Unless {
		if strings.TrimSpace(k) == "" {
			return p, bad("unless_tags", "a tag key is empty; write them as {approved: \"true\"}")
		}
	}
	return p, py.checkActions(&p, bad)
}

// trigger checks the budget or spot-cap trigger.
func (py policyYAML) trigger(p *Policy, bad func(field, format string, args ...any) error, budgets []budget.Budget) error {
	switch {
	case p.Budget != "" && py.MaxSpot != nil:
		return bad("max_spot_instances", "give either budget (with over) or max_spot_instances, not both; write two policies")
	case p.Budget == "" && py.MaxSpot == nil:
		return bad("", "no trigger: give budget: NAME with over: 100%%, or max_spot_instances: N")
	case py.MaxSpot != nil:
		if *py.MaxSpot < 0 {
			return bad("max_spot_instances", "%d: give 0 or more", *py.MaxSpot)
		}
		if py.Over != nil || py.Forecast {
			return bad("over", "over and forecast go with budget; a spot cap takes max_spot_instances only")
		}
		p.MaxSpot = *py.MaxSpot
		return nil
	}
	names := make([]string, len(budgets))
	found := false
	for i, b := range budgets {
		names[i] = b.Name
		found = found || b.Name == p.Budget
	}
	if !found {
		if len(names) == 0 {
			return bad("budget", "%q: no budgets were given; pass the budgets file (--budgets) that defines it", p.Budget)
		}
		return bad("budget", "%q is not a budget in the budgets file; it has %s", p.Budget, strings.Join(names, ", "))
	}
	if py.Over == nil {
		return bad("over", "missing; give the share of the budget that triggers the policy, such as over: 100%%")
	}
	if py.Over.value <= 0 || py.Over.value > 1000 {
		return bad("over", "%s is out of range: use a value above 0%% and at most 1000%%", py.Over.text)
	}
	p.Over = py.Over.value
	return nil
}

// checkActions checks the actions and the fields that go with them.
func (py policyYAML) checkActions(p *Policy, bad func(field, format string, args ...any) error) error {
	if len(p.Actions) == 0 {
		return bad("actions", "missing; list what the policy does: %s", strings.Join(allActions, ", "))
	}
	for j, a := range p.Actions {
		if !slices.Contains(allActions, a) {
			return bad("actions", "actions[%d] %q is not an action; use %s", j, a, strings.Join(allActions, ", "))
		}
		if slices.Index(p.Actions, a) != j {
			return bad("actions", "%q is listed twice", a)
		}
	}
	switch {
	case p.Has(ActNotify) && len(p.Notify) == 0:
		return bad("notify", "missing: the notify action needs the targets to alert, such as notify: [ops-slack]")
	case !p.Has(ActNotify) && len(p.Notify) > 0:
		return bad("notify", "targets are given but actions lacks notify; add it or remove notify")
	case !p.Has(ActTag) && len(p.Tags) > 0:
		return bad("tags", "tags are given but actions lacks tag; add it or remove tags")
	case p.IsSpotCap() && p.Has(ActScaleToZero):
		return bad("actions", "scale-to-zero acts on endpoints and Deployments; a spot cap acts on instances: use stop")
	}
	for _, n := range p.Notify {
		if strings.TrimSpace(n) == "" {
			return bad("notify", "a target name is empty")
		}
	}
	for k, v := range p.Tags {
		if strings.TrimSpace(k) == "" || len(k) > 128 || len(v) > 256 || strings.HasPrefix(strings.ToLower(k), "aws:") {
			return bad("tags", "%q: a tag key must be 1 to 128 characters, not starting with aws:, and its value at most 256", k)
		}
	}
	return nil
}
