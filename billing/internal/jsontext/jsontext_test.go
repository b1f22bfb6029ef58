package jsontext

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// jsonEntries collects Members's entries, the last of a repeated key winning as in encoding/json.
func jsonEntries(b []byte) (map[string]string, error) {
	m, _, err := jsonEntriesDup(b)
	return m, err
}

// jsonEntriesDup is jsonEntries that also reports whether a key repeats (keys with null values
// are not seen, so this is judged on the keys kept).
func jsonEntriesDup(b []byte) (map[string]string, bool, error) {
	m := map[string]string{}
	dup := false
	var scratch []byte
	err := Members(b, 0, &scratch, func(k, v []byte) {
		_, seen := m[string(k)]
		dup = dup || seen
		m[string(k)] = string(v)
	})
	return m, dup, err
}

func TestMembers(t *testing.T) {
	tests := []struct {
		in   string
		want map[string]string // nil for an error
	}{
		{``, map[string]string{}},
		{`{}`, map[string]string{}},
		{` { "a" : "b" , "c":"d" } `, map[string]string{"a": "b", "c": "d"}},
		{`{"user_team":"ml","n":3,"t":true,"x":null}`, map[string]string{"user_team": "ml", "n": "3", "t": "true"}},
		{`{"a":"\"q\" \\ \/ \n \u00e9 \ud83d\ude80"}`, map[string]string{"a": "\"q\" \\ / \n é 🚀"}},
		{`{"a":"b"`, nil},
		{`{"a":{"b":"c"}}`, nil},
		{`{"a":["b"]}`, nil},
		{`{"a":b}`, nil},
		{`{"a":"b"} x`, nil},
		{`{a:"b"}`, nil},
		{`{"a":"b",}`, nil},
		{`{"a":"\x"}`, nil},
		{`{"a":01}`, nil},
		{"[1]", nil},
	}
	for _, tt := range tests {
		got, err := jsonEntries([]byte(tt.in))
		if tt.want == nil {
			if err == nil {
				t.Errorf("Members(%s) = %v, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || len(got) != len(tt.want) {
			t.Errorf("Members(%s) = %v, %v; want %v", tt.in, got, err, tt.want)
			continue
		}
		for k, v := range tt.want {
			if got[k] != v {
				t.Errorf("Members(%s)[%q] = %q, want %q", tt.in, k, got[k], v)
			}
		}
	}
}

// FuzzMembers checks Members against encoding/json on flat objects.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{"user_team":"ml-research","user_project":"llm"}`, `{"a":"\u00e9\"","b":1.5e3,"c":null}`, `{}`,
		`{"":0,"":null}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, _, err := jsonEntriesDup([]byte(s))
		var ref map[string]any
		refErr := json.Unmarshal([]byte(s), &ref)
		if err == nil && len(got) > 0 && refErr != nil {
			t.Fatalf("Members(%q) = %v, encoding/json refuses it: %v", s, got, refErr)
		}
		if refErr != nil || ref == nil || !utf8.ValidString(s) {
			return
		}
		flat := true
		for _, v := range ref {
			switch v.(type) {
			case map[string]any, []any:
				flat = false
			}
		}
		if !flat {
			if err == nil {
				t.Fatalf("Members(%q) accepted a nested object", s)
			}
			return
		}
		if err != nil {
			t.Fatalf("Members(%q) = %v; encoding/json reads it", s, err)
		}
		if jsonKeyCount(s) != len(ref) {
			return // a key repeats: encoding/json keeps the last, a null included
		}
		for k, v := range ref {
			switch v := v.(type) {
			case string:
				if got[k] != v {
					t.Fatalf("Members(%q)[%q] = %q, encoding/json %q", s, k, got[k], v)
				}
			case nil:
				if _, ok := got[k]; ok {
					t.Fatalf("Members(%q) kept null %q", s, k)
				}
			}
		}
	})
}

func TestMembersBare(t *testing.T) {
	var scratch []byte
	tests := []struct {
		in    string
		flags Flags
		want  string // k=v;… or "error"
	}{
		{`{"team": "ml","env": "prod"}`, Bare, "team=ml;env=prod;"},
		{`"team": "ml","env": "prod"`, Bare, "team=ml;env=prod;"},
		{` "a" : "x\"y\u00e9" , "n": 3, "b": true, "z": null `, Bare, `a=x"yé;n=3;b=true;`},
		{`{}`, Bare, ""},
		{``, Bare, ""},
		{`{"a": {"b": "c"}, "d": "e"}`, Bare | SkipNested, "d=e;"},
		{`{"a": {"b": "c"}}`, Bare, "error"},
		{`"a": "b",`, Bare, "error"},
		{`{"a": "b"`, Bare, "error"},
		{`{"a": "b"}}`, Bare, "error"},
		{`"a" "b"`, Bare, "error"},
		{`{"a": tru}`, Bare, "error"},
	}
	for _, tt := range tests {
		var got string
		err := Members([]byte(tt.in), tt.flags, &scratch, func(k, v []byte) { got += string(k) + "=" + string(v) + ";" })
		if err != nil {
			got = "error"
		}
		if got != tt.want {
			t.Errorf("Members(%q, %v) = %q, want %q", tt.in, tt.flags, got, tt.want)
		}
	}
}

func TestUnescape(t *testing.T) {
	tests := []struct{ in, want, err string }{
		{`plain`, "plain", ""},
		{`a\"b\\c\/d\n\t\u00e9\ud83d\ude80`, "a\"b\\c/d\n\té🚀", ""},
		{`\ud800x`, "\ufffdx", ""},
		{`a\`, "", "a JSON string ends in a lone backslash"},
		{`\u12`, "", `a JSON string has a bad \u escape`},
		{`\x`, "", `a JSON string has a bad escape \x`},
	}
	for _, tt := range tests {
		got, err := Unescape(nil, []byte(tt.in))
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("Unescape(%q) = %q, %v; want error %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || string(got) != tt.want {
			t.Errorf("Unescape(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestNumber(t *testing.T) {
	for s, want := range map[string]bool{"0": true, "-1.5e3": true, "12": true, "1E+2": true,
		"01": false, "1.": false, ".5": false, "-": false, "1e": false, "": false, "+1": false} {
		if got := Number([]byte(s)); got != want {
			t.Errorf("Number(%q) = %v, want %v", s, got, want)
		}
	}
}

// jsonKeyCount counts the keys of a JSON object, repeats included.
func jsonKeyCount(s string) int {
	d := json.NewDecoder(strings.NewReader(s))
	if _, err := d.Token(); err != nil {
		return -1
	}
	n := 0
	for d.More() {
		if _, err := d.Token(); err != nil {
			return -1
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return -1
		}
		n++
	}
	return n
}
