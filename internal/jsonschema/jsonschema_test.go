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
		"tags": `{"additionalProperties":{"type":"string"},"type":["object","null"]}`,
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

// decimal stands for gpucost.Money: a decimal string.
type decimal struct{}

func (decimal) MarshalText() ([]byte, error) { return []byte("2.50"), nil }
func (decimal) Decimal() string              { return "2.50" }

// shaped writes its duration in seconds under a key of its own, as gpucost's results do.
type shaped struct{ d float64 }

func (s shaped) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		S    float64 `json:"wait_s"`
		Name *string `json:"name"`
	}{s.d, nil})
}

func TestDescribe(t *testing.T) {
	v := map[string]any{"by": "team", "total": decimal{}, "rows": []any{shaped{1.5}}, "n": 3}
	s := Describe("built", v)
	got, _ := json.Marshal(s["properties"])
	want := `{"by":{"type":"string"},"n":{"type":"integer"},"rows":{"items":{"additionalProperties":false,"properties":{"name":{},"wait_s":{"type":["number","null"]}},"required":["name","wait_s"],"type":"object"},"type":["array","null"]},"total":{"pattern":"^-?[0-9]+(\\.[0-9]+)?$","type":"string"}}`
	if string(got) != want {
		t.Errorf("Describe(map).properties =\n%s\nwant\n%s", got, want)
	}
	for _, c := range []struct {
		doc  string
		errs int
	}{
		{`{"by":"team","n":3,"total":"2.50","rows":[{"wait_s":1.5,"name":null}]}`, 0},
		{`{"by":"team","n":3,"total":"$2.50","rows":null}`, 1},
		{`{"by":"team","n":3,"total":"2.50","rows":[{"wait_s":1.5,"name":"x","wait_ns":1}]}`, 1},
		{`{"by":"team","total":"2.50","rows":[]}`, 1},
	} {
		var doc any
		if err := json.Unmarshal([]byte(c.doc), &doc); err != nil {
			t.Fatal(err)
		}
		if errs := Validate(s, doc); len(errs) != c.errs {
			t.Errorf("Validate(Describe(map), %s) = %v, want %d errors", c.doc, errs, c.errs)
		}
	}
}

func TestMerge(t *testing.T) {
	a := Infer(map[string]any{"x": 1.0, "only_a": "s", "list": nil})
	b := Infer(map[string]any{"x": nil, "list": []any{true}})
	got, _ := json.Marshal(Open(Merge(a, b)))
	want := `{"additionalProperties":false,"properties":{"list":{"items":{"type":["boolean","null"]},"type":["array","null"]},"only_a":{"type":["string","null"]},"x":{"type":["null","number"]}},"required":["list","x"],"type":"object"}`
	if string(got) != want {
		t.Errorf("Merge(a, b) =\n%s\nwant\n%s", got, want)
	}
}

func TestValidateKeywords(t *testing.T) {
	s := Schema{"anyOf": []any{
		Schema{"type": "string", "enum": []any{"a", "b"}},
		Schema{"type": "object", "additionalProperties": Schema{"type": "integer"}},
	}}
	for doc, errs := range map[string]int{`"a"`: 0, `"c"`: 1, `{"k":1}`: 0, `{"k":"x"}`: 1, `3`: 1} {
		var v any
		if err := json.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatal(err)
		}
		if got := Validate(s, v); len(got) != errs {
			t.Errorf("Validate(anyOf, %s) = %v, want %d errors", doc, got, errs)
		}
	}
}
