// Package rulesfile reads gpucost's alert rules file: the default GPU alert rules
// (analyze.DefaultRules) changed, disabled or added to, and the spot interruption rule's
// threshold and window (docs/architecture.md "Alert rules file"). report alerts, its
// Prometheus export, report spot and serve take it as --rules. It is strict: every mistake is
// an error naming the file, line, column and key, and what to write instead.
package rulesfile

import (
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"go.yaml.in/yaml/v3"
)

// MaxSize is the largest rules file read: a rule is about 150 bytes, so a megabyte holds
// thousands, far more than anyone writes (docs/limits.md "Files people write").
const MaxSize = 1 << 20

// SpotInterruptions names the spot interruption rule in a rules file. It is not a rule over
// minute rollups: it watches each spot pool's interruptions over a window (report spot and
// serve --jobs-store evaluate it with spotrisk.CheckInterruptions; docs/architecture.md "Spot
// risk").
const SpotInterruptions = "spot_interruptions"

// Interruptions are a rules file's changes to the spot interruption rule; a zero field keeps
// the rule's default (spotrisk.DefaultInterruptionRule: 25% in 6 hours, at least 2).
type Interruptions struct {
	Window           time.Duration
	Threshold        float64 // expected interruptions per instance over Window, 0.25 for 25%
	MinInterruptions int
	Disabled         bool
}

// Set is what a rules file says: the GPU alert rules to evaluate, and the changes to the spot
// interruption rule.
type Set struct {
	// Rules are analyze.DefaultRules with the file's overrides, less the disabled ones, then
	// the rules the file adds, in its order.
	Rules         []analyze.Rule
	Interruptions Interruptions
	// Quiet names the rules with notify: false: evaluated and shown, never sent by serve's
	// GPU alert notifications; nil when there are none.
	Quiet map[string]bool
}

// ruleName is what a rule may be called: a Prometheus alert name, which the export writes.
var ruleName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// The keys a rules file's entries take.
var (
	gpuRuleKeys  = []string{"name", "metric", "above", "threshold", "for", "severity", "summary", "min_util", "alert_on_no_data", "notify", "disabled"}
	spotRuleKeys = []string{"name", "threshold", "window", "min_interruptions", "disabled"}
)

// ReadFile reads the rules file at path (Parse), refusing one over MaxSize before reading it
// whole.
func ReadFile(path string) (Set, error) {
	f, err := os.Open(path)
	if err != nil {
		return Set{}, gpucost.Errorf(gpucost.EInvalid, "read alert rules: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return Set{}, gpucost.Errorf(gpucost.EInvalid, "read alert rules %s: %w", path, err)
	}
	return Parse(path, data)
}

// Parse reads the rules file data, called name in errors:
//
//	rules:
//	  - name: gpu_underutilized   # a default rule: the keys given override its own
//	    threshold: 30
//	    for: 1h
//	  - name: gpu_hot
//	    disabled: true
//	  - name: gpu_very_hot        # a new name adds a rule over a known metric
//	    metric: temp_c
//	    above: true
//	    threshold: 90
//	    for: 2m
//	    severity: critical
//	    notify: false             # shown, never sent by serve --targets
//	  - name: spot_interruptions  # the interruption rule: threshold in % over window
//	    threshold: 20
//	    window: 3h
//
// The list may also stand alone, without rules:. An unknown key, metric or severity, a value
// of the wrong kind, a bad duration or a rule named twice is an EInvalid error naming the
// file, line, column and key, and what to write instead. Data over MaxSize is refused.
func Parse(name string, data []byte) (Set, error) {
	if len(data) > MaxSize {
		return Set{}, gpucost.Errorf(gpucost.EInvalid, "%s is over the %d bytes a rules file may hold; list only the rules you change", name, MaxSize)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Set{}, gpucost.Errorf(gpucost.EInvalid, "%s %s; check the indentation and brackets there", name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	p := rulesParser{file: name, set: Set{Rules: analyze.DefaultRules()}, seen: map[string]bool{}}
	list, err := p.ruleList(&doc)
	if err != nil {
		return Set{}, err
	}
	var added []analyze.Rule
	for _, entry := range list.Content {
		r, add, err := p.entry(entry)
		if err != nil {
			return Set{}, err
		}
		if add {
			added = append(added, r)
		}
	}
	p.set.Rules = slices.DeleteFunc(p.set.Rules, func(r analyze.Rule) bool { return p.disabled[r.Name] })
	p.set.Rules = append(p.set.Rules, added...)
	return p.set, nil
}

// rulesParser holds what ParseRules has read so far.
type rulesParser struct {
	file     string
	set      Set
	seen     map[string]bool // rule names given
	disabled map[string]bool // default rules the file disables
}

// errorf returns an EInvalid error placed at node n: "rules.yaml line 4, column 5: …".
func (p *rulesParser) errorf(n *yaml.Node, format string, args ...any) error {
	return gpucost.Errorf(gpucost.EInvalid, "%s line %d, column %d: %s", p.file, n.Line, n.Column, fmt.Sprintf(format, args...))
}

// ruleList returns the sequence under the document's rules key.
func (p *rulesParser) ruleList(doc *yaml.Node) (*yaml.Node, error) {
	const want = "list the rules under rules:, each with a name (docs/architecture.md \"Alert rules file\")"
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, gpucost.Errorf(gpucost.EInvalid, "%s is empty; %s", p.file, want)
	}
	top := doc.Content[0]
	if top.Kind == yaml.SequenceNode && len(top.Content) > 0 { // the list alone, without rules:
		return top, nil
	}
	if top.Kind != yaml.MappingNode {
		return nil, p.errorf(top, "the file is not a mapping; %s", want)
	}
	var list *yaml.Node
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		if k.Value != "rules" {
			return nil, p.errorf(k, "%s: unknown key; the file's one key is rules", k.Value)
		}
		if v.Kind != yaml.SequenceNode {
			return nil, p.errorf(v, "rules: not a list; write each rule as an item starting with - name:")
		}
		if list != nil {
			return nil, p.errorf(k, "rules: given twice; list every rule under one rules:")
		}
		list = v
	}
	if list == nil || len(list.Content) == 0 {
		return nil, p.errorf(top, "no rules; %s", want)
	}
	return list, nil
}

// entry reads one rule entry: it changes a default rule or the interruption rule in p.set, or
// returns a new rule to add (add true).
func (p *rulesParser) entry(n *yaml.Node) (analyze.Rule, bool, error) {
	if n.Kind != yaml.MappingNode {
		return analyze.Rule{}, false, p.errorf(n, "a rule is a mapping of keys such as name: and threshold:, not %s", kindName(n))
	}
	fields := map[string][2]*yaml.Node{} // key → key node, value node
	var order []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if _, dup := fields[k.Value]; dup {
			return analyze.Rule{}, false, p.errorf(k, "%s: given twice in one rule; keep one", k.Value)
		}
		fields[k.Value] = [2]*yaml.Node{k, v}
		order = append(order, k.Value)
	}
	nameKV, ok := fields["name"]
	if !ok {
		return analyze.Rule{}, false, p.errorf(n, "name: missing; name a default rule (%s, %s) to change it, or a new one to add it",
			strings.Join(ruleNames(analyze.DefaultRules()), ", "), SpotInterruptions)
	}
	name, err := p.str(nameKV)
	if err != nil {
		return analyze.Rule{}, false, err
	}
	if !ruleName.MatchString(name) {
		return analyze.Rule{}, false, p.errorf(nameKV[1], "name: %q: use letters, digits and underscores, starting with a letter, such as gpu_very_hot (it is the Prometheus alert's name too)", name)
	}
	if p.seen[name] {
		return analyze.Rule{}, false, p.errorf(nameKV[1], "name: %q is given twice; give each rule once, by a name of its own", name)
	}
	p.seen[name] = true
	e := ruleEntry{p: p, name: name, fields: fields, order: order}
	if name == SpotInterruptions {
		return analyze.Rule{}, false, e.spot(&p.set.Interruptions)
	}
	if r := analyze.RuleByName(p.set.Rules, name); r != nil {
		return analyze.Rule{}, false, e.gpu(r, false)
	}
	r := analyze.Rule{Name: name, Severity: analyze.SeverityWarning}
	if err := e.gpu(&r, true); err != nil || e.bool("disabled") {
		return analyze.Rule{}, false, err
	}
	return r, true, nil
}

// ruleEntry is one entry of the file, its keys by name.
type ruleEntry struct {
	p      *rulesParser
	name   string
	fields map[string][2]*yaml.Node
	order  []string
}

// known checks that every key of the entry is one of keys.
func (e ruleEntry) known(keys []string, what string) error {
	for _, k := range e.order {
		if !slices.Contains(keys, k) {
			return e.p.errorf(e.fields[k][0], "rule %s: %s: unknown key; %s takes %s", e.name, k, what, strings.Join(keys, ", "))
		}
	}
	return nil
}

// gpu applies the entry to r: a default rule (isNew false) or a new one, which must say its
// metric, direction and threshold.
func (e ruleEntry) gpu(r *analyze.Rule, isNew bool) error {
	if err := e.known(gpuRuleKeys, "a GPU rule"); err != nil {
		if _, ok := e.fields["window"]; ok {
			return e.p.errorf(e.fields["window"][0], "rule %s: window: only %s takes a window; a GPU rule's duration is for:, such as for: 30m", e.name, SpotInterruptions)
		}
		return err
	}
	if isNew {
		for _, k := range []string{"metric", "above", "threshold"} {
			if _, ok := e.fields[k]; !ok {
				return e.p.errorf(e.fields["name"][0], "rule %s: %s: missing; no default rule is called %s (they are %s, %s), and a new rule needs metric: (one of %s), above: true or false, and threshold:",
					e.name, k, e.name, strings.Join(ruleNames(analyze.DefaultRules()), ", "), SpotInterruptions, strings.Join(metricNames(), ", "))
			}
		}
	}
	for _, k := range e.order {
		if err := e.gpuField(r, k, isNew); err != nil {
			return err
		}
	}
	if isNew && r.Summary == "" {
		r.Summary = r.Condition()
	}
	return nil
}

// gpuField sets rule r's field k from the entry.
func (e ruleEntry) gpuField(r *analyze.Rule, k string, isNew bool) (err error) {
	kv := e.fields[k]
	switch k {
	case "metric":
		var s string
		if s, err = e.p.str(kv); err != nil {
			return err
		}
		m := analyze.Metric(s)
		switch {
		case s == "interruption_rate":
			return e.p.errorf(kv[1], "rule %s: metric: interruption_rate is the metric of %s alone; change that rule's threshold and window instead", e.name, SpotInterruptions)
		case !m.Known():
			return e.p.errorf(kv[1], "rule %s: metric: %q is not a metric; use one of %s", e.name, s, strings.Join(metricNames(), ", "))
		case !isNew && m != r.Metric:
			return e.p.errorf(kv[1], "rule %s: metric: a default rule keeps its metric (%s); give a rule over %s a name of its own", e.name, r.Metric, s)
		}
		r.Metric = m
	case "above":
		var b bool
		if b, err = e.p.boolean(kv); err != nil {
			return err
		}
		if !isNew && b != r.Above {
			return e.p.errorf(kv[1], "rule %s: above: a default rule keeps its direction (above: %t); give the other a name of its own", e.name, r.Above)
		}
		r.Above = b
	case "threshold":
		r.Threshold, err = e.p.number(kv, "40")
	case "min_util":
		if r.MinUtil, err = e.p.number(kv, "40"); err == nil && (r.MinUtil < 0 || r.MinUtil > 100) {
			err = e.p.errorf(kv[1], "rule %s: min_util: %s is not a utilisation; write a percentage from 0 to 100", e.name, strconv.FormatFloat(r.MinUtil, 'f', -1, 64))
		}
	case "for":
		r.For, err = e.p.duration(kv, "30m, 1h or 1h30m")
	case "severity":
		var s string
		if s, err = e.p.str(kv); err == nil {
			r.Severity = analyze.Severity(s)
			if s != string(analyze.SeverityInfo) && s != string(analyze.SeverityWarning) && s != string(analyze.SeverityCritical) {
				err = e.p.errorf(kv[1], "rule %s: severity: %q: use info, warning or critical", e.name, s)
			}
		}
	case "summary":
		r.Summary, err = e.p.str(kv)
	case "alert_on_no_data":
		r.AlertOnNoData, err = e.p.boolean(kv)
	case "notify":
		var on bool
		if on, err = e.p.boolean(kv); err == nil && !on {
			if e.p.set.Quiet == nil {
				e.p.set.Quiet = map[string]bool{}
			}
			e.p.set.Quiet[r.Name] = true
		}
	case "disabled":
		var off bool
		if off, err = e.p.boolean(kv); err == nil && off && !isNew {
			if e.p.disabled == nil {
				e.p.disabled = map[string]bool{}
			}
			e.p.disabled[r.Name] = true
		}
	}
	return err
}

// bool reports whether the entry sets key k to true (its value already checked).
func (e ruleEntry) bool(k string) bool {
	kv, ok := e.fields[k]
	return ok && isTrue(kv[1].Value)
}

// isTrue reads a YAML boolean's text.
func isTrue(s string) bool { return strings.EqualFold(s, "true") }

// spot applies the entry to the interruption rule's settings.
func (e ruleEntry) spot(s *Interruptions) error {
	if err := e.known(spotRuleKeys, SpotInterruptions); err != nil {
		if _, ok := e.fields["for"]; ok {
			return e.p.errorf(e.fields["for"][0], "rule %s: for: the interruption rule counts over a window:, such as window: 6h", e.name)
		}
		return err
	}
	for _, k := range e.order {
		kv := e.fields[k]
		var err error
		switch k {
		case "threshold":
			var pct float64
			if pct, err = e.p.percent(kv); err == nil {
				s.Threshold = pct / 100
			}
		case "window":
			if s.Window, err = e.p.duration(kv, "6h or 90m"); err == nil && s.Window == 0 {
				err = e.p.errorf(kv[1], "rule %s: window: 0 holds no interruption; write a window such as 6h", e.name)
			}
		case "min_interruptions":
			s.MinInterruptions, err = e.p.count(kv)
		case "disabled":
			s.Disabled, err = e.p.boolean(kv)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (p *rulesParser) str(kv [2]*yaml.Node) (string, error) {
	if v := kv[1]; v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
		return "", p.errorf(v, "%s: %s is not text; write a word such as %s: gpu_hot", kv[0].Value, kindName(v), kv[0].Value)
	}
	return kv[1].Value, nil
}

func (p *rulesParser) boolean(kv [2]*yaml.Node) (bool, error) {
	if v := kv[1]; v.Kind != yaml.ScalarNode || v.Tag != "!!bool" {
		return false, p.errorf(v, "%s: %q: write true or false", kv[0].Value, v.Value)
	}
	return isTrue(kv[1].Value), nil
}

func (p *rulesParser) number(kv [2]*yaml.Node, example string) (float64, error) {
	v := kv[1]
	f, err := strconv.ParseFloat(v.Value, 64)
	if v.Kind != yaml.ScalarNode || (v.Tag != "!!int" && v.Tag != "!!float") || err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, p.errorf(v, "%s: %q is not a number; write one such as %s: %s, in the metric's unit", kv[0].Value, v.Value, kv[0].Value, example)
	}
	return f, nil
}

// percent reads a positive percentage: 25 or "25%".
func (p *rulesParser) percent(kv [2]*yaml.Node) (float64, error) {
	v := kv[1]
	f, err := strconv.ParseFloat(strings.TrimSuffix(v.Value, "%"), 64)
	if v.Kind != yaml.ScalarNode || err != nil || !(f > 0) || math.IsInf(f, 0) {
		return 0, p.errorf(v, "%s: %q is not a positive percentage; write one such as %s: 25 (or 25%%) for 25%% of instances interrupted over the window", kv[0].Value, v.Value, kv[0].Value)
	}
	return f, nil
}

func (p *rulesParser) count(kv [2]*yaml.Node) (int, error) {
	v := kv[1]
	n, err := strconv.Atoi(v.Value)
	if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || err != nil || n < 1 {
		return 0, p.errorf(v, "%s: %q is not a count; write a whole number of at least 1, such as %s: 2", kv[0].Value, v.Value, kv[0].Value)
	}
	return n, nil
}

func (p *rulesParser) duration(kv [2]*yaml.Node, examples string) (time.Duration, error) {
	v := kv[1]
	d, err := time.ParseDuration(v.Value)
	if v.Kind != yaml.ScalarNode || err != nil || d < 0 {
		return 0, p.errorf(v, "%s: %q is not a duration; write one such as %s", kv[0].Value, v.Value, examples)
	}
	return d, nil
}

// kindName says what a node holds, for messages.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	return strconv.Quote(n.Value)
}

// metricNames are the metrics a rule may watch, sorted.
func metricNames() []string {
	var names []string
	for _, m := range analyze.Metrics() {
		names = append(names, string(m))
	}
	return names
}

func ruleNames(rules []analyze.Rule) []string {
	names := make([]string, len(rules))
	for i, r := range rules {
		names[i] = r.Name
	}
	return names
}
