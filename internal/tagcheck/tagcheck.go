// Package tagcheck checks the `validate` struct tags of the YAML types gpucost reads (budgets,
// job specs): the few rules they use, written the way go-playground/validator writes them, so
// that a type's rules read the same. It replaces that library because the library looks up
// methods by run-time names (its validateFn rule), which makes the linker keep every exported
// method of every type in the binary (docs/architecture.md "Binary size").
//
// The rules: required, omitempty, dive (check each element of a slice with the rules after it),
// min, max and len (a string's characters, a slice's length, a number's value), gt, gte, lt, lte
// (numbers), oneof (space-separated words), uppercase, and rules a caller registers. Struct
// fields without a tag are checked when they are structs themselves; unexported fields never.
package tagcheck

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Checker checks values against their struct tags.
type Checker struct {
	name   func(reflect.StructField) string
	custom map[string]func(reflect.Value) bool
}

// New returns a Checker that names fields by their Go names.
func New() *Checker {
	return &Checker{custom: map[string]func(reflect.Value) bool{}}
}

// NameFields makes errors name a field by fn (its YAML name, say) instead of its Go name; a
// field fn names "-" is not checked.
func (c *Checker) NameFields(fn func(reflect.StructField) string) { c.name = fn }

// Register adds a rule: ok reports whether a field's value keeps it.
func (c *Checker) Register(rule string, ok func(reflect.Value) bool) { c.custom[rule] = ok }

// FieldError is the first rule a value breaks.
type FieldError struct {
	namespace, field, rule, param string
	value                         any
}

// Namespace is the broken field's path from the checked type: "fileYAML.budgets[0].name".
func (e *FieldError) Namespace() string { return e.namespace }

// Field is the broken field's own name: "name", or "notify[2]" for an element.
func (e *FieldError) Field() string { return e.field }

// Tag is the broken rule: "oneof".
func (e *FieldError) Tag() string { return e.rule }

// Param is the rule's parameter: "monthly quarterly" for oneof=monthly quarterly.
func (e *FieldError) Param() string { return e.param }

// Value is the field's value (a pointer's target).
func (e *FieldError) Value() any { return e.value }

func (e *FieldError) Error() string {
	return fmt.Sprintf("%s: breaks the rule %s", e.namespace, strings.TrimSuffix(e.rule+"="+e.param, "="))
}

// Struct checks every field of s, a struct or a pointer to one, and returns a *FieldError for
// the first rule broken, in field order, or nil. Any other error is a mistake in the tags: a
// rule that does not apply to its field's type, or a parameter that is not a number.
func (c *Checker) Struct(s any) error {
	v := reflect.Indirect(reflect.ValueOf(s))
	if v.Kind() != reflect.Struct {
		return fmt.Errorf("tagcheck: %T is not a struct", s)
	}
	return c.walk(v, v.Type().Name())
}

func (c *Checker) walk(v reflect.Value, ns string) error {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name := f.Name
		if c.name != nil {
			if n := c.name(f); n == "-" {
				continue
			} else if n != "" {
				name = n
			}
		}
		if err := c.field(v.Field(i), ns+"."+name, name, f.Tag.Get("validate")); err != nil {
			return err
		}
	}
	return nil
}

// field applies the comma-separated rules of tag to v, then walks into a struct.
func (c *Checker) field(v reflect.Value, ns, name, tag string) error {
	var rules []string
	if tag != "" {
		rules = strings.Split(tag, ",")
	}
	for i, rule := range rules {
		rule, param, _ := strings.Cut(rule, "=")
		switch rule {
		case "omitempty":
			if !hasValue(v) {
				return nil
			}
			continue
		case "dive":
			if v.Kind() != reflect.Slice && v.Kind() != reflect.Array {
				return fmt.Errorf("tagcheck: %s: dive needs a slice, not a %s", ns, v.Type())
			}
			rest := strings.Join(rules[i+1:], ",")
			for j := range v.Len() {
				if err := c.field(v.Index(j), fmt.Sprintf("%s[%d]", ns, j), fmt.Sprintf("%s[%d]", name, j), rest); err != nil {
					return err
				}
			}
			return nil
		}
		ok, err := c.keeps(v, rule, param)
		if err != nil {
			return fmt.Errorf("%s: %w", ns, err)
		}
		if !ok {
			return &FieldError{namespace: ns, field: name, rule: rule, param: param, value: valueOf(v)}
		}
	}
	if d := reflect.Indirect(v); d.Kind() == reflect.Struct {
		return c.walk(d, ns)
	}
	return nil
}

// keeps reports whether v keeps rule=param; the error is a rule the type cannot have.
func (c *Checker) keeps(v reflect.Value, rule, param string) (bool, error) {
	if rule == "required" {
		return hasValue(v), nil
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return false, nil
		}
		v = v.Elem()
	}
	if ok, found := c.custom[rule]; found {
		return ok(v), nil
	}
	switch rule {
	case "oneof":
		s := fmt.Sprint(v.Interface())
		for _, w := range strings.Fields(param) {
			if s == w {
				return true, nil
			}
		}
		return false, nil
	case "uppercase":
		if v.Kind() != reflect.String {
			break
		}
		return v.String() != "" && v.String() == strings.ToUpper(v.String()), nil
	case "min", "max", "len", "gt", "gte", "lt", "lte":
		n, ok := measure(v)
		if !ok {
			break
		}
		p, err := strconv.ParseFloat(param, 64)
		if err != nil {
			return false, fmt.Errorf("tagcheck: %s=%s: the parameter is not a number", rule, param)
		}
		switch rule {
		case "min", "gte":
			return n >= p, nil
		case "max", "lte":
			return n <= p, nil
		case "len":
			return n == p, nil
		case "gt":
			return n > p, nil
		default:
			return n < p, nil
		}
	}
	return false, fmt.Errorf("tagcheck: rule %s does not apply to a %s", rule, v.Type())
}

// measure is what min, max and the comparisons compare: a string's characters, a slice's or
// map's length, a number's value.
func measure(v reflect.Value) (float64, bool) {
	switch v.Kind() {
	case reflect.String:
		return float64(utf8.RuneCountInString(v.String())), true
	case reflect.Slice, reflect.Map, reflect.Array:
		return float64(v.Len()), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(v.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(v.Uint()), true
	case reflect.Float32, reflect.Float64:
		return v.Float(), true
	}
	return 0, false
}

// hasValue is what required asks: a slice, map or pointer that is not nil, any other value
// that is not its type's zero.
func hasValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Slice, reflect.Map, reflect.Pointer, reflect.Interface, reflect.Chan, reflect.Func:
		return !v.IsNil()
	}
	return v.IsValid() && !v.IsZero()
}

func valueOf(v reflect.Value) any {
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if !v.CanInterface() {
		return nil
	}
	return v.Interface()
}
