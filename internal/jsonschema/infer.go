package jsonschema

import (
	"maps"
	"reflect"
	"regexp"
	"slices"
	"sort"
)

// decimalString matches DecimalPattern.
var decimalString = regexp.MustCompile(DecimalPattern)

// Infer returns the schema of one decoded JSON value as its encoding shows it: objects with
// their keys, all required and no others; arrays with the merged schema of their items; a
// number or string that may also be null, since one value cannot tell, a string that reads as
// a decimal with DecimalPattern (Merge drops it where another value does not read so); null as
// only null, which Merge widens and Open leaves open.
func Infer(v any) Schema {
	switch v := v.(type) {
	case nil:
		return Schema{"type": "null"}
	case bool:
		return Schema{"type": []any{"boolean", "null"}}
	case float64:
		return Schema{"type": []any{"number", "null"}}
	case string:
		if decimalString.MatchString(v) {
			return Schema{"type": []any{"string", "null"}, "pattern": DecimalPattern}
		}
		return Schema{"type": []any{"string", "null"}}
	case []any:
		s := Schema{"type": []any{"array", "null"}}
		for i, c := range v {
			if i == 0 {
				s["items"] = Infer(c)
			} else {
				s["items"] = Merge(s["items"].(Schema), Infer(c))
			}
		}
		return s
	case map[string]any:
		props := Schema{}
		for k, c := range v {
			props[k] = Infer(c)
		}
		return Schema{"type": "object", "properties": props, "required": slices.Sorted(maps.Keys(v)), "additionalProperties": false}
	}
	return Schema{}
}

// Merge returns a schema that takes what a or b takes, as near as the subset allows: the union
// of their types; of two objects' properties, each merged, required where both require it;
// their items merged; a pattern or format kept only where both strings have it.
func Merge(a, b Schema) Schema {
	if reflect.DeepEqual(a, b) {
		return a
	}
	if len(a) == 0 || len(b) == 0 {
		return Schema{}
	}
	if _, ok := a["anyOf"]; ok {
		return Schema{}
	}
	if _, ok := b["anyOf"]; ok {
		return Schema{}
	}
	out := Schema{}
	ta, tb := asStrings(a["type"]), asStrings(b["type"])
	if t := mergeTypes(a, b, ta, tb); t != nil {
		out["type"] = t
	}
	for _, k := range []string{"pattern", "format"} {
		va, okA := a[k]
		vb, okB := b[k]
		switch {
		case okA && okB && va == vb, okA && !slices.Contains(tb, "string"):
			out[k] = va
		case okB && !slices.Contains(ta, "string"):
			out[k] = vb
		}
	}
	mergeProperties(out, a, b)
	ia, okA := a["items"].(map[string]any)
	ib, okB := b["items"].(map[string]any)
	switch {
	case okA && okB:
		out["items"] = Merge(ia, ib)
	case okA:
		out["items"] = ia
	case okB:
		out["items"] = ib
	}
	for k, v := range out {
		if v == nil {
			delete(out, k)
		}
	}
	return out
}

// mergeTypes returns the union of a's and b's types (ta and tb), a string for one and a sorted
// list for several; nil where either takes any type.
func mergeTypes(a, b Schema, ta, tb []string) any {
	if _, ok := a["type"]; !ok {
		return nil
	}
	if _, ok := b["type"]; !ok {
		return nil
	}
	types := slices.Clone(ta)
	for _, t := range tb {
		if !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	switch len(types) {
	case 0:
		return nil
	case 1:
		return types[0]
	}
	sort.Strings(types)
	list := make([]any, len(types))
	for i, t := range types {
		list[i] = t
	}
	return list
}

// mergeProperties sets out's properties, required and additionalProperties from a's and b's:
// each property merged, required where both require it, closed where both are.
func mergeProperties(out, a, b Schema) {
	pa, okA := a["properties"].(map[string]any)
	pb, okB := b["properties"].(map[string]any)
	switch {
	case okA && okB:
		props := Schema{}
		for k, s := range pa {
			props[k] = s
			if o, ok := pb[k]; ok {
				props[k] = Merge(s.(map[string]any), o.(map[string]any))
			}
		}
		for k, s := range pb {
			if _, ok := pa[k]; !ok {
				props[k] = s
			}
		}
		ra, rb := asStrings(a["required"]), asStrings(b["required"])
		required := []string{}
		for _, r := range ra {
			if slices.Contains(rb, r) {
				required = append(required, r)
			}
		}
		out["properties"], out["required"] = props, required
		if a["additionalProperties"] == false && b["additionalProperties"] == false {
			out["additionalProperties"] = false
		}
	case okA:
		out["properties"], out["required"], out["additionalProperties"] = pa, a["required"], a["additionalProperties"]
	case okB:
		out["properties"], out["required"], out["additionalProperties"] = pb, b["required"], b["additionalProperties"]
	default:
		if ap, ok := a["additionalProperties"]; ok && reflect.DeepEqual(ap, b["additionalProperties"]) {
			out["additionalProperties"] = ap
		}
	}
}

// Open returns s with every schema that takes only null, as Infer writes for a value seen only
// as null, opened to take anything: one null tells nothing of the values it stands for.
func Open(s Schema) Schema {
	if t, ok := s["type"].(string); ok && t == "null" && len(s) == 1 {
		return Schema{}
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for k, p := range props {
			props[k] = Open(p.(map[string]any))
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		s["items"] = Open(items)
	}
	return s
}
