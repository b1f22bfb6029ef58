package enforce

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

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
	Idle     *idleYAML         `yaml:"idle"`
	Schedule *scheduleYAML     `yaml:"schedule"`
	MinAge   string            `yaml:"min_age"`
}

// idleYAML is an idle trigger: idle: {below: 5%, for: 60m}.
type idleYAML struct {
	Below *percentYAML `yaml:"below"`
	For   string       `yaml:"for"`
}

// scheduleYAML is an off-hours trigger: schedule: {off: "Mon-Fri 20:00-08:00", zone: Europe/Berlin,
// holidays: [2026-12-25]}; off may be a list of windows.
type scheduleYAML struct {
	Off      yaml.Node `yaml:"off"`
	Zone     string    `yaml:"zone"`
	Holidays []string  `yaml:"holidays"`
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
		"fileYAML":     "policies",
		"policyYAML":   "name, budget, over, forecast, max_spot_instances, idle, schedule, min_age, unless_tags, scope, actions, notify, tags, dry_run",
		"idleYAML":     "below, for",
		"scheduleYAML": "off, zone, holidays",
		"Scope":        "tags, namespace, team, project, provider, service, gpu_only",
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
//	  - name: idle-notebooks
//	    idle: {below: 5%, for: 60m}     # every GPU of the resource below 5% in every minute of the last 60m
//	    min_age: 2h                     # leave resources launched less than 2h ago alone
//	    scope: {namespace: notebooks}
//	    actions: [stop, scale-to-zero]  # VMs stop; Deployments, StatefulSets, endpoints scale to zero
//	  - name: dev-off-hours
//	    schedule: {off: "Mon-Fri 20:00-08:00", zone: Europe/Berlin, holidays: [2026-12-25]}
//	    actions: [stop]                 # and started again, at the recorded size, when the window ends
//
// Resources tagged or labelled gpucost/keep: "true" are exempt from idle and off-hours policies.
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
	case p.Budget != "" && py.MaxSpot != nil && py.Idle == nil && py.Schedule == nil:
		return bad("max_spot_instances", "give either budget (with over) or max_spot_instances, not both; write two policies")
	case triggers(p.Budget != "", py.MaxSpot != nil, py.Idle != nil, py.Schedule != nil) > 1:
		return bad("", "give one trigger: budget (with over), max_spot_instances, idle or schedule; write one policy for each")
	case py.Idle != nil || py.Schedule != nil:
		return py.usage(p, bad)
	case py.MinAge != "":
		return bad("min_age", "min_age goes with idle and schedule policies; remove it")
	case p.Budget == "" && py.MaxSpot == nil:
		return bad("", "no trigger: give budget: NAME with over: 100%%, max_spot_instances: N, idle: {below: 5%%, for: 60m} or schedule: {off: \"Mon-Fri 20:00-08:00\", zone: UTC}")
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
	case p.PerResource() && !p.Has(ActStop) && !p.Has(ActScaleToZero):
		return bad("actions", "an idle or off-hours policy stops or scales down: list stop (VMs), scale-to-zero (endpoints, Deployments, StatefulSets) or both")
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

// triggers counts the triggers given.
func triggers(given ...bool) int {
	n := 0
	for _, g := range given {
		if g {
			n++
		}
	}
	return n
}

// usage checks an idle or off-hours trigger and min_age.
func (py policyYAML) usage(p *Policy, bad func(field, format string, args ...any) error) error {
	if py.Over != nil || py.Forecast {
		return bad("over", "over and forecast go with budget; an idle or off-hours policy takes idle or schedule")
	}
	if py.MinAge != "" {
		d, err := time.ParseDuration(py.MinAge)
		if err != nil || d < 0 {
			return bad("min_age", "%q is not a duration; write it as 2h or 30m", py.MinAge)
		}
		p.MinAge = d
	}
	if py.Idle != nil {
		return py.Idle.rule(p, bad)
	}
	return py.Schedule.schedule(p, bad)
}

func (iy idleYAML) rule(p *Policy, bad func(field, format string, args ...any) error) error {
	if iy.Below == nil {
		return bad("idle", "below is missing; give the utilisation under which a GPU is idle, such as below: 5%%")
	}
	if iy.Below.value <= 0 || iy.Below.value > 100 {
		return bad("idle", "below: %s is out of range: use a percentage above 0%% and at most 100%%", iy.Below.text)
	}
	d, err := time.ParseDuration(iy.For)
	switch {
	case iy.For == "":
		return bad("idle", "for is missing; give how long every GPU must stay below, such as for: 60m")
	case err != nil:
		return bad("idle", "for: %q is not a duration; write it as 60m or 2h", iy.For)
	case d < 5*time.Minute || d > 7*24*time.Hour || d%time.Minute != 0:
		return bad("idle", "for: %s is out of range: use whole minutes from 5m to 168h", iy.For)
	}
	p.Idle = &IdleRule{Below: iy.Below.value, For: d}
	return nil
}

func (sy scheduleYAML) schedule(p *Policy, bad func(field, format string, args ...any) error) error {
	var texts []string
	switch sy.Off.Kind {
	case yaml.ScalarNode:
		texts = []string{sy.Off.Value}
	case yaml.SequenceNode:
		if err := sy.Off.Decode(&texts); err != nil {
			return bad("schedule", "off: write the windows as strings, such as [\"Mon-Fri 20:00-08:00\", \"Sat-Sun 00:00-24:00\"]")
		}
	}
	if len(texts) == 0 {
		return bad("schedule", "off is missing; give the off-hours, such as off: \"Mon-Fri 20:00-08:00\"")
	}
	s := &Schedule{ZoneName: cmp.Or(sy.Zone, "UTC")}
	for _, t := range texts {
		w, err := ParseWindow(t)
		if err != nil {
			return bad("schedule", "off: %v", err)
		}
		s.Off = append(s.Off, w)
	}
	zone, err := time.LoadLocation(s.ZoneName)
	if err != nil {
		return bad("schedule", "zone: %q is not a time zone; use an IANA name such as Europe/Berlin or UTC", sy.Zone)
	}
	s.Zone = zone
	for _, h := range sy.Holidays {
		d, err := time.ParseInLocation(time.DateOnly, strings.TrimSpace(h), zone)
		if err != nil {
			return bad("schedule", "holidays: %q is not a date; write it as 2026-12-25", h)
		}
		s.Holidays = append(s.Holidays, d)
	}
	p.Schedule = s
	return nil
}
