package queue

import (
	"bufio"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseItem(t *testing.T) {
	for _, tc := range []struct {
		name, line, id, err string
	}{
		{"string id", `{"id":"a-1","x":1}`, "a-1", ""},
		{"number id", `{"id":42,"x":1}`, "42", ""},
		{"number id as written", `{"id":4.20e1}`, "4.20e1", ""},
		{"no id", `{"x":1}`, hashID([]byte(`{"x":1}`)), ""},
		{"null id", `{"id":null}`, hashID([]byte(`{"id":null}`)), ""},
		{"spaces before", ` {"id":"a"}`, hashID([]byte(` {"id":"a"}`)), "not a JSON object"},
		{"not json", `{not json`, hashID([]byte(`{not json`)), "not a JSON object"},
		{"array", `[1,2]`, hashID([]byte(`[1,2]`)), "not a JSON object"},
		{"string", `"x"`, hashID([]byte(`"x"`)), "not a JSON object"},
		{"bool id", `{"id":true}`, hashID([]byte(`{"id":true}`)), `field "id" is true`},
		{"object id", `{"id":{"a":1}}`, hashID([]byte(`{"id":{"a":1}}`)), `field "id" is {"a":1}`},
		{"slash id", `{"id":"a/b"}`, hashID([]byte(`{"id":"a/b"}`)), `id "a/b"`},
		{"dot-dot id", `{"id":".."}`, hashID([]byte(`{"id":".."}`)), `id ".."`},
		{"empty id", `{"id":""}`, hashID([]byte(`{"id":""}`)), `id ""`},
		{"newline id", `{"id":"a\nb"}`, hashID([]byte(`{"id":"a\nb"}`)), `id "a\nb"`},
		{"long id", `{"id":"` + strings.Repeat("x", 201) + `"}`, hashID([]byte(`{"id":"` + strings.Repeat("x", 201) + `"}`)), "use 1 to 200 characters"},
	} {
		it, err := ParseItem([]byte(tc.line))
		if it.ID != tc.id {
			t.Errorf("%s: ParseItem(%q).ID = %q, want %q", tc.name, tc.line, it.ID, tc.id)
		}
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: ParseItem(%q) error %v, want none", tc.name, tc.line, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: ParseItem(%q) error %v, want one containing %q", tc.name, tc.line, err, tc.err)
		}
	}
}

// FuzzParseItem checks that any line gets an id that can name a result, and that a line
// accepted as an item is a JSON object.
func FuzzParseItem(f *testing.F) {
	seeds, err := os.Open("testdata/items.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	defer seeds.Close()
	sc := bufio.NewScanner(seeds)
	for sc.Scan() {
		f.Add(sc.Bytes())
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		it, err := ParseItem(line)
		if cerr := CheckID(it.ID); cerr != nil {
			t.Fatalf("ParseItem(%q).ID = %q: %v", line, it.ID, cerr)
		}
		if err == nil && (len(line) == 0 || line[0] != '{' || !utf8.Valid([]byte(it.ID))) {
			t.Fatalf("ParseItem(%q) accepted a line that is not a JSON object", line)
		}
	})
}
