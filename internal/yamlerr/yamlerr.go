// Package yamlerr words the errors of gpucost's YAML files for people: each names the file and
// line, a misspelt field lists the fields that would work there, and Line finds the line of
// any node by its path, for checks made after decoding.
package yamlerr

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/gpucost/gpucost"
	"go.yaml.in/yaml/v3"
)

var unknownRE = regexp.MustCompile(`^line (\d+): field (\S+) not found in type \S*?\.?(\w+)$`)

// Decode returns err, from decoding the YAML file name with KnownFields set, as an EInvalid
// error naming the file and line: "budgets.yaml line 4: unknown field "amout"; known fields
// here: name, amount, …". fields maps the name of each Go type decoded into to the fields it
// accepts.
func Decode(name string, err error, fields map[string]string) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		msg, syntax := strings.CutPrefix(err.Error(), "yaml: ")
		if syntax && strings.HasPrefix(msg, "line ") {
			return gpucost.Errorf(gpucost.EInvalid, "%s %s; check the indentation and brackets there", name, msg)
		}
		if strings.HasPrefix(msg, "line ") {
			return gpucost.Errorf(gpucost.EInvalid, "%s %s", name, msg)
		}
		return gpucost.Errorf(gpucost.EInvalid, "%s: %s", name, msg)
	}
	msgs := make([]string, 0, len(te.Errors))
	for _, e := range te.Errors {
		if m := unknownRE.FindStringSubmatch(e); m != nil {
			e = fmt.Sprintf("line %s: unknown field %q; known fields here: %s", m[1], m[2], fields[m[3]])
		} else {
			e = strings.ReplaceAll(e, "!!", "")
		}
		msgs = append(msgs, name+" "+e)
	}
	return gpucost.Errorf(gpucost.EInvalid, "%s", strings.Join(msgs, "; "))
}

// Line returns the line of the node at path in a YAML document (map keys and list indexes),
// or of the deepest node on the path that exists.
func Line(root *yaml.Node, path ...string) int {
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	line := n.Line
	for _, p := range path {
		next := child(n, p)
		if next == nil {
			break
		}
		n, line = next, next.Line
	}
	return line
}

func child(n *yaml.Node, key string) *yaml.Node {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				return n.Content[i+1]
			}
		}
	case yaml.SequenceNode:
		if i, err := strconv.Atoi(key); err == nil && i >= 0 && i < len(n.Content) {
			return n.Content[i]
		}
	}
	return nil
}
