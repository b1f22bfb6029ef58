package tagcheck

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

type inner struct {
	Level *float64 `yaml:"level" validate:"omitempty,gt=0,lte=100"`
	Tags  []string `yaml:"tags" validate:"dive,required"`
}

type outer struct {
	Name   string  `yaml:"name" validate:"required,max=5,lower"`
	Kind   string  `yaml:"kind" validate:"omitempty,oneof=a b"`
	Code   string  `yaml:"code" validate:"omitempty,len=3,uppercase"`
	Count  int     `yaml:"count" validate:"gte=0,lt=10"`
	Ratio  float64 `yaml:"ratio" validate:"gte=0,lt=1"`
	Items  []inner `yaml:"items" validate:"required,min=1,dive"`
	Nested inner   `yaml:"nested"`
	hidden string  `validate:"required"`
}

func ptr(f float64) *float64 { return &f }

func TestStruct(t *testing.T) {
	good := func() outer {
		return outer{Name: "ab", Kind: "b", Code: "USD", Count: 9, Ratio: 0.5, Items: []inner{{Level: ptr(100), Tags: []string{"x"}}}}
	}
	for _, tc := range []struct {
		name           string
		edit           func(*outer)
		ns, tag, param string
		value          any
	}{
		{"all kept", func(*outer) {}, "", "", "", nil},
		{"required string", func(o *outer) { o.Name = "" }, "outer.name", "required", "", ""},
		{"max counts characters", func(o *outer) { o.Name = "ééééé" }, "", "", "", nil},
		{"max", func(o *outer) { o.Name = "abcdef" }, "outer.name", "max", "5", "abcdef"},
		{"registered rule", func(o *outer) { o.Name = "AB" }, "outer.name", "lower", "", "AB"},
		{"omitempty skips", func(o *outer) { o.Kind, o.Code = "", "" }, "", "", "", nil},
		{"oneof", func(o *outer) { o.Kind = "c" }, "outer.kind", "oneof", "a b", "c"},
		{"len", func(o *outer) { o.Code = "EURO" }, "outer.code", "len", "3", "EURO"},
		{"uppercase", func(o *outer) { o.Code = "usd" }, "outer.code", "uppercase", "", "usd"},
		{"gte int", func(o *outer) { o.Count = -1 }, "outer.count", "gte", "0", -1},
		{"lt int", func(o *outer) { o.Count = 10 }, "outer.count", "lt", "10", 10},
		{"lt float", func(o *outer) { o.Ratio = 1 }, "outer.ratio", "lt", "1", 1.0},
		{"required slice", func(o *outer) { o.Items = nil }, "outer.items", "required", "", []inner(nil)},
		{"min slice", func(o *outer) { o.Items = []inner{} }, "outer.items", "min", "1", []inner{}},
		{"dive into structs, pointer target", func(o *outer) { o.Items[0].Level = ptr(0) }, "outer.items[0].level", "gt", "0", 0.0},
		{"nil pointer omitted", func(o *outer) { o.Items[0].Level = nil }, "", "", "", nil},
		{"dive, required", func(o *outer) { o.Items[0].Tags = []string{"x", ""} }, "outer.items[0].tags[1]", "required", "", ""},
		{"untagged struct walked", func(o *outer) { o.Nested.Level = ptr(101) }, "outer.nested.level", "lte", "100", 101.0},
		{"first broken field wins", func(o *outer) { o.Count, o.Name = -1, "" }, "outer.name", "required", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := New()
			c.NameFields(func(f reflect.StructField) string { return f.Tag.Get("yaml") })
			c.Register("lower", func(v reflect.Value) bool { return v.String() == strings.ToLower(v.String()) })
			o := good()
			tc.edit(&o)
			err := c.Struct(&o)
			if tc.tag == "" {
				if err != nil {
					t.Fatalf("Struct(%+v) = %v, want nil", o, err)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("Struct(%+v) = %v, want a *FieldError", o, err)
			}
			if fe.Namespace() != tc.ns || fe.Tag() != tc.tag || fe.Param() != tc.param || !reflect.DeepEqual(fe.Value(), tc.value) {
				t.Errorf("Struct(%+v) = %s %s=%s value %#v, want %s %s=%s value %#v", o, fe.Namespace(), fe.Tag(), fe.Param(), fe.Value(), tc.ns, tc.tag, tc.param, tc.value)
			}
			if want := tc.ns[strings.LastIndex(tc.ns, ".")+1:]; fe.Field() != want {
				t.Errorf("Field() = %q, want %q", fe.Field(), want)
			}
		})
	}
}

func TestStructTagMistakes(t *testing.T) {
	for _, v := range []any{
		&struct {
			A string `validate:"gt=x"`
		}{A: "a"},
		&struct {
			A bool `validate:"uppercase"`
		}{A: true},
		&struct {
			A string `validate:"dive"`
		}{A: "a"},
		&struct {
			A int `validate:"nosuchrule"`
		}{A: 1},
	} {
		err := New().Struct(v)
		var fe *FieldError
		if err == nil || errors.As(err, &fe) || !strings.Contains(err.Error(), "tagcheck") {
			t.Errorf("Struct(%+v) = %v, want an error about the tag, not a broken rule", v, err)
		}
	}
	if err := New().Struct(3); err == nil {
		t.Errorf("Struct(3) = nil, want an error: not a struct")
	}
}
