package jsonschema

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

type money struct{ nanos int64 }

func (m money) MarshalText() ([]byte, error) { return []byte("1.00"), nil }

type stat float64

func (s stat) MarshalJSON() ([]byte, error) { return []byte("null"), nil }

type inner struct {
	Name string `json:"name"`
	Hide int    `json:"hide"`
}

type outer struct {
	inner
	Hide    string            `json:"hide"` // hides inner's
	At      time.Time         `json:"at"`
	Cost    money             `json:"cost"`
	Mean    stat              `json:"mean"`
	Tags    map[string]string `json:"tags"`
	List    []int             `json:"list"`
	Next    *inner            `json:"next,omitempty"`
	Skipped int               `json:"-"`
	private int
}

func TestFor(t *testing.T) {
	s := For("outer", reflect.TypeFor[outer]())
	props := s["properties"].(Schema)
	for name, want := range map[string]string{
		"name": `{"type":"string"}`,
		"hide": `{"type":"string"}`,
		"at":   `{"format":"date-time","type":"string"}`,
		"cost": `{"type":"string"}`,
		"mean": `{}`,
		"tags": `{"type":["object","null"]}`,
		"list": `{"items":{"type":"integer"},"type":["array","null"]}`,
	} {
		b, _ := json.Marshal(props[name])
		if string(b) != want {
			t.Errorf("For(outer).properties.%s = %s, want %s", name, b, want)
		}
	}
	if _, ok := props["Skipped"]; ok {
		t.Errorf("For(outer) has the json:\"-\" field")
	}
	if got := strings.Join(s["required"].([]string), ","); got != "at,cost,hide,list,mean,name,tags" {
		t.Errorf("For(outer).required = %s", got)
	}
}

func TestValidate(t *testing.T) {
	s := For("outer", reflect.TypeFor[outer]())
	b, _ := json.Marshal(outer{inner: inner{Name: "a"}, Hide: "x", List: []int{1}})
	var ok any
	json.Unmarshal(b, &ok)
	if errs := Validate(s, ok); len(errs) != 0 {
		t.Errorf("Validate(encoded outer) = %v, want none", errs)
	}
	for _, c := range []struct{ doc, want string }{
		{`{"name":"a","hide":"x","at":"t","cost":"1","mean":null,"tags":null,"list":[1.5]}`, "$.list[0]: number, want type integer"},
		{`{"name":"a","hide":"x","at":"t","cost":"1","mean":null,"tags":null}`, `$: no "list"`},
		{`{"name":"a","hide":"x","at":"t","cost":"1","mean":null,"tags":null,"list":null,"Extra":1}`, `$: "Extra" is not in the schema`},
		{`{"name":"a","hide":2,"at":"t","cost":"1","mean":null,"tags":null,"list":null}`, "$.hide: integer, want type string"},
		{`[]`, "$: array, want type object"},
	} {
		var v any
		if err := json.Unmarshal([]byte(c.doc), &v); err != nil {
			t.Fatal(err)
		}
		errs := Validate(s, v)
		if len(errs) != 1 || errs[0].Error() != c.want {
			t.Errorf("Validate(%s) = %v, want [%s]", c.doc, errs, c.want)
		}
	}
}
