// Package jsonschema writes the JSON Schema of a Go value as encoding/json encodes it, and checks
// a decoded JSON value against such a schema. It knows the subset it writes: type (one or a
// list, "null" among them), properties, required, additionalProperties, items, pattern, format,
// enum and anyOf. gpucost keeps the schema of every command's --output json and every API
// response in docs/schema (docs/architecture.md "Output conventions").
package jsonschema

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

// Schema is a JSON Schema, as a map ready to encode.
type Schema = map[string]any

// DecimalPattern is the form of an exact decimal string, such as gpucost.Money's "599.36".
const DecimalPattern = `^-?[0-9]+(\.[0-9]+)?$`

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	decimalType       = reflect.TypeFor[interface{ Decimal() string }]()
	timeType          = reflect.TypeFor[time.Time]()
)

// For returns the schema of t's JSON encoding, titled title. A type with its own MarshalJSON is
// described from the encoding of its zero value (Infer).
func For(title string, t reflect.Type) Schema {
	return titled(title, gen(t, reflect.Value{}, map[reflect.Type]bool{}))
}

// Describe returns the schema of v's JSON encoding, titled title: its types', where they are
// Go types, and, where v holds interfaces (a map[string]any, an any field) or types with their
// own MarshalJSON, the types of what it holds, so that a value built as a map documents the
// keys it is built with.
func Describe(title string, v any) Schema {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return titled(title, Schema{})
	}
	return titled(title, gen(rv.Type(), rv, map[reflect.Type]bool{}))
}

func titled(title string, s Schema) Schema {
	s["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	s["title"] = title
	return s
}

// implements reports whether t or, for a value type, *t implements it.
func implements(t, it reflect.Type) bool {
	return t.Implements(it) || t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(it)
}

// gen is the schema of t; v, where valid, is a value of t whose interfaces and custom encodings
// tell more than t does.
func gen(t reflect.Type, v reflect.Value, seen map[reflect.Type]bool) Schema {
	if t.Kind() == reflect.Pointer {
		if v.IsValid() && !v.IsNil() {
			return nullable(gen(t.Elem(), v.Elem(), seen))
		}
		return nullable(gen(t.Elem(), reflect.Value{}, seen))
	}
	switch {
	case t == timeType:
		return Schema{"type": "string", "format": "date-time"}
	case implements(t, marshalerType):
		s := Infer(encoded(reflect.Zero(t)))
		if v.IsValid() {
			s = Merge(s, Infer(encoded(v)))
		}
		return Open(s)
	case implements(t, textMarshalerType) && implements(t, decimalType):
		return Schema{"type": "string", "pattern": DecimalPattern}
	case implements(t, textMarshalerType):
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
	case reflect.Interface:
		if v.IsValid() && !v.IsNil() {
			return gen(v.Elem().Type(), v.Elem(), seen)
		}
		return Schema{} // anything
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			return Schema{"type": []any{"string", "null"}}
		}
		items := gen(t.Elem(), reflect.Value{}, seen)
		if v.IsValid() && v.Len() > 0 && tellsMore(t.Elem()) {
			items = gen(t.Elem(), v.Index(0), seen)
			for i := 1; i < v.Len(); i++ {
				items = Merge(items, gen(t.Elem(), v.Index(i), seen))
			}
		}
		if t.Kind() == reflect.Array {
			return Schema{"type": "array", "items": items}
		}
		return Schema{"type": []any{"array", "null"}, "items": items}
	case reflect.Map:
		if t.Elem().Kind() == reflect.Interface && t.Key().Kind() == reflect.String && v.IsValid() && !v.IsNil() {
			// A value built as a map: its keys are its fields.
			props, required := Schema{}, []string{}
			for _, k := range v.MapKeys() {
				props[k.String()] = gen(t.Elem(), v.MapIndex(k), seen)
				required = append(required, k.String())
			}
			sort.Strings(required)
			return Schema{"type": "object", "properties": props, "required": required, "additionalProperties": false}
		}
		return Schema{"type": []any{"object", "null"}, "additionalProperties": gen(t.Elem(), reflect.Value{}, seen)}
	case reflect.Struct:
		if seen[t] {
			return Schema{"type": "object"} // a recursive type: its inner levels unchecked
		}
		seen[t] = true
		defer delete(seen, t)
		props, required := Schema{}, []string{}
		addFields(t, v, seen, props, &required, map[string]int{}, 0)
		sort.Strings(required)
		return Schema{"type": "object", "properties": props, "required": required, "additionalProperties": false}
	}
	return Schema{}
}

// tellsMore reports whether values of t may say more about their encoding than t does: they
// hold interfaces or encode themselves.
func tellsMore(t reflect.Type) bool {
	return tellsMoreSeen(t, map[reflect.Type]bool{})
}

func tellsMoreSeen(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] || t == timeType {
		return false
	}
	seen[t] = true
	if implements(t, marshalerType) {
		return true
	}
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return tellsMoreSeen(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if tellsMoreSeen(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}

// encoded is v's JSON encoding, decoded into any; nil when it does not encode.
func encoded(v reflect.Value) any {
	if !v.CanInterface() {
		v = reflect.Zero(v.Type())
	}
	b, err := json.Marshal(v.Interface())
	if err != nil {
		return nil
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return nil
	}
	return out
}

// addFields adds t's encoded fields to props; depth keeps encoding/json's rule that a shallower
// field hides an embedded one of the same name.
func addFields(t reflect.Type, v reflect.Value, seen map[reflect.Type]bool, props Schema, required *[]string, depthOf map[string]int, depth int) {
	for i := range t.NumField() {
		f := t.Field(i)
		var fv reflect.Value
		if v.IsValid() {
			fv = v.Field(i)
		}
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
			if et.Kind() == reflect.Struct && !implements(et, marshalerType) {
				ev := fv
				if ev.IsValid() && ev.Kind() == reflect.Pointer {
					if ev.IsNil() {
						ev = reflect.Value{}
					} else {
						ev = ev.Elem()
					}
				}
				addFields(et, ev, seen, props, required, depthOf, depth+1)
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
		s := gen(ft, fv, seen)
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
	if alts, ok := s["anyOf"].([]any); ok {
		var first []error
		for i, a := range alts {
			as, _ := a.(map[string]any)
			var e []error
			validate(as, v, path, &e)
			if len(e) == 0 {
				return
			}
			if i == 0 {
				first = e
			}
		}
		*errs = append(*errs, fmt.Errorf("%s: matches none of the %d forms; against the first: %w", path, len(alts), errors.Join(first...)))
		return
	}
	if t, ok := s["type"]; ok && !typeMatches(t, v) {
		*errs = append(*errs, fmt.Errorf("%s: %s, want type %v", path, jsonType(v), t))
		return
	}
	if enum, ok := s["enum"].([]any); ok && !slices.ContainsFunc(enum, func(e any) bool { return reflect.DeepEqual(e, v) }) {
		*errs = append(*errs, fmt.Errorf("%s: %v is not one of %v", path, v, enum))
	}
	switch v := v.(type) {
	case string:
		if p, ok := s["pattern"].(string); ok {
			if re, err := regexp.Compile(p); err != nil || !re.MatchString(v) {
				*errs = append(*errs, fmt.Errorf("%s: %q does not match %s", path, v, p))
			}
		}
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		for _, r := range asStrings(s["required"]) {
			if _, ok := v[r]; !ok {
				*errs = append(*errs, fmt.Errorf("%s: no %q", path, r))
			}
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			c := v[k]
			if ps, ok := props[k].(map[string]any); ok {
				validate(ps, c, path+"."+k, errs)
				continue
			}
			switch extra := s["additionalProperties"].(type) {
			case bool:
				if !extra {
					*errs = append(*errs, fmt.Errorf("%s: %q is not in the schema", path, k))
				}
			case map[string]any:
				validate(extra, c, path+"."+k, errs)
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
