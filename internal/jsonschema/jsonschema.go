// Package jsonschema writes the JSON Schema of a Go type as encoding/json encodes it, and checks
// a decoded JSON value against such a schema. It knows the subset it writes: type (one or a
// list, "null" among them), properties, required and items; formats and the rest are left to
// the reader. gpucost keeps the schema of every command's --output json and every API response
// in docs/schema (docs/architecture.md "Output conventions").
package jsonschema

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"
)

// Schema is a JSON Schema, as a map ready to encode.
type Schema = map[string]any

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	timeType          = reflect.TypeFor[time.Time]()
)

// For returns the schema of t's JSON encoding, titled title. A type with its own MarshalJSON
// takes any value: its shape is its code's, not its fields'.
func For(title string, t reflect.Type) Schema {
	s := of(t, map[reflect.Type]bool{})
	s["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	s["title"] = title
	return s
}

func of(t reflect.Type, seen map[reflect.Type]bool) Schema {
	switch {
	case t == timeType:
		return Schema{"type": "string", "format": "date-time"}
	case t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) && t.Kind() != reflect.Pointer:
		return Schema{}
	case t.Implements(textMarshalerType) || reflect.PointerTo(t).Implements(textMarshalerType) && t.Kind() != reflect.Pointer:
		return Schema{"type": "string"}
	}
	switch t.Kind() {
	case reflect.Bool:
		return Schema{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return Schema{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return Schema{"type": "number"}
	case reflect.String:
		return Schema{"type": "string"}
	case reflect.Pointer:
		return nullable(of(t.Elem(), seen))
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return Schema{"type": []any{"string", "null"}}
		}
		return Schema{"type": []any{"array", "null"}, "items": of(t.Elem(), seen)}
	case reflect.Array:
		return Schema{"type": "array", "items": of(t.Elem(), seen)}
	case reflect.Map:
		return Schema{"type": []any{"object", "null"}}
	case reflect.Struct:
		if seen[t] {
			return Schema{"type": "object"} // a recursive type: its inner levels unchecked
		}
		seen[t] = true
		defer delete(seen, t)
		props, required := Schema{}, []string{}
		addFields(t, seen, props, &required, map[string]int{}, 0)
		sort.Strings(required)
		return Schema{"type": "object", "properties": props, "required": required}
	}
	return Schema{} // interfaces: anything
}

// addFields adds t's encoded fields to props; depth keeps encoding/json's rule that a shallower
// field hides an embedded one of the same name.
func addFields(t reflect.Type, seen map[reflect.Type]bool, props Schema, required *[]string, depthOf map[string]int, depth int) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := f.Type
		if f.Anonymous && name == "" {
			et := ft
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct && !et.Implements(marshalerType) {
				addFields(et, seen, props, required, depthOf, depth+1)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if d, ok := depthOf[name]; ok && d <= depth {
			continue
		}
		depthOf[name] = depth
		s := of(ft, seen)
		if strings.Contains(opts, "string") {
			s = Schema{"type": "string"}
		}
		props[name] = s
		*required = slices.DeleteFunc(*required, func(r string) bool { return r == name })
		if !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero") {
			*required = append(*required, name)
		}
	}
}

// nullable adds "null" to s's types.
func nullable(s Schema) Schema {
	switch t := s["type"].(type) {
	case string:
		s["type"] = []any{t, "null"}
	case []any:
		if !slices.Contains(t, any("null")) {
			s["type"] = append(t, "null")
		}
	}
	return s
}

// Validate checks v, a value as encoding/json decodes JSON into any, against s, and returns
// what does not match, each with its path.
func Validate(s Schema, v any) []error {
	var errs []error
	validate(s, v, "$", &errs)
	return errs
}

func validate(s Schema, v any, path string, errs *[]error) {
	if t, ok := s["type"]; ok && !typeMatches(t, v) {
		*errs = append(*errs, fmt.Errorf("%s: %s, want type %v", path, jsonType(v), t))
		return
	}
	switch v := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		for _, r := range asStrings(s["required"]) {
			if _, ok := v[r]; !ok {
				*errs = append(*errs, fmt.Errorf("%s: no %q", path, r))
			}
		}
		for k, c := range v {
			if ps, ok := props[k].(map[string]any); ok {
				validate(ps, c, path+"."+k, errs)
			} else if props != nil {
				*errs = append(*errs, fmt.Errorf("%s: %q is not in the schema", path, k))
			}
		}
	case []any:
		if items, ok := s["items"].(map[string]any); ok {
			for i, c := range v {
				validate(items, c, fmt.Sprintf("%s[%d]", path, i), errs)
			}
		}
	}
}

func typeMatches(t any, v any) bool {
	got := jsonType(v)
	for _, w := range asStrings(t) {
		if w == got || w == "number" && got == "integer" {
			return true
		}
	}
	return false
}

// jsonType names v's JSON type; a whole number is an integer.
func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		if v == float64(int64(v)) {
			return "integer"
		}
		return "number"
	case json.Number:
		if _, err := v.Int64(); err == nil {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// asStrings reads a schema's string or list of strings, as built or as decoded.
func asStrings(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []string:
		return v
	case []any:
		out := make([]string, 0, len(v))
		for _, s := range v {
			if s, ok := s.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
