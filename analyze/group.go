package analyze

import (
	"strings"

	"github.com/gpucost/gpucost"
)

// GroupKind is what a utilisation report groups series by.
type GroupKind string

// Group kinds. Grouping by namespace or pod is grouping by that label.
const (
	ByGPU   GroupKind = "gpu"
	ByHost  GroupKind = "host"
	ByModel GroupKind = "model"
	ByLabel GroupKind = "label"
)

// NoneGroup is the group of series that lack the grouping field: a label they do not carry, or
// an empty host or model.
const NoneGroup = "(none)"

// GroupBy says how series are grouped: by GPU, host, model, or the value of one label.
type GroupBy struct {
	Kind  GroupKind `json:"kind"`
	Label string    `json:"label"` // the label key when Kind is ByLabel, lower-case
}

// groupByForms lists what ParseGroupBy accepts, for error messages and help text.
const groupByForms = "gpu, host, model, namespace, pod or label:KEY"

// ParseGroupBy parses a --by value: "gpu", "host", "model", "namespace", "pod" or "label:KEY".
// Namespace and pod are the labels of those names. Case is ignored: label keys are lower-case.
func ParseGroupBy(s string) (GroupBy, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	switch v {
	case string(ByGPU), string(ByHost), string(ByModel):
		return GroupBy{Kind: GroupKind(v)}, nil
	case gpucost.LabelNamespace, gpucost.LabelPod:
		return GroupBy{Kind: ByLabel, Label: v}, nil
	}
	key, ok := strings.CutPrefix(v, "label:")
	if !ok {
		return GroupBy{}, gpucost.Errorf(gpucost.EInvalid, "group by %q: want one of %s", s, groupByForms)
	}
	if key == "" || strings.ContainsAny(key, ",= \t\r\n") {
		return GroupBy{}, gpucost.Errorf(gpucost.EInvalid,
			"group by %q: the label key must be non-empty without spaces, ',' or '='; want one of %s", s, groupByForms)
	}
	return GroupBy{Kind: ByLabel, Label: key}, nil
}

// String returns the form ParseGroupBy reads: "gpu", "namespace", "label:team".
func (g GroupBy) String() string {
	switch {
	case g.Kind != ByLabel:
		return string(g.Kind)
	case g.Label == gpucost.LabelNamespace || g.Label == gpucost.LabelPod:
		return g.Label
	default:
		return "label:" + g.Label
	}
}

// Key returns the group s falls in: its GPU UUID, host, model (through normalize, which maps the
// driver's name to the catalog's, such as "NVIDIA A100-SXM4-80GB" to "A100-80GB"; nil keeps the
// name) or label value (for pod, else pod_uid or pod_name, as owners are read), and NoneGroup
// when s lacks it. The zero GroupBy groups by GPU.
func (g GroupBy) Key(s *gpucost.Series, normalize func(model string) string) string {
	var k string
	switch g.Kind {
	case ByHost:
		k = s.GPU.Host
	case ByModel:
		k = s.GPU.Model
		if normalize != nil && k != "" {
			k = normalize(k)
		}
	case ByLabel:
		k = s.Labels[g.Label]
		if k == "" && g.Label == gpucost.LabelPod { // a pod known by its UID, as cgroups name it
			for _, alt := range podKeys[1:] {
				if k = s.Labels[alt]; k != "" {
					break
				}
			}
		}
	default:
		k = s.GPU.UUID
	}
	if k == "" {
		return NoneGroup
	}
	return k
}
