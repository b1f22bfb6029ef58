package gcp

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/jsontext"
)

// Credit types of the credits.type field (Structure of Standard data export, credits.type).
const (
	creditCUD       = "COMMITTED_USAGE_DISCOUNT"             // resource-based committed use discount
	creditCUDDollar = "COMMITTED_USAGE_DISCOUNT_DOLLAR_BASE" // legacy spend-based committed use discount
	creditFeeOffset = "FEE_UTILIZATION_OFFSET"               // new spend-based CUD model: offsets the CUD fee
)

// credits are what a row's credits record holds.
type credits struct {
	sum   int64  // Σ amount, nano-units
	types string // the distinct credit types, sorted, joined with ","
	cud   credit // the first committed use discount credit, if any
	items []creditItem
}

// credit is one element of the credits record.
type credit struct {
	typ, id, fullName string
}

// creditItem is one credit's type and amount, for the totals by type.
type creditItem struct {
	typ   string
	nanos int64
}

// isCommitment reports whether a credit type is a committed use discount's.
func isCommitment(typ string) bool {
	return typ == creditCUD || typ == creditCUDDollar || typ == creditFeeOffset
}

// credits reads the row's credits: a JSON array of {"name","amount","full_name","id","type"}
// (BigQuery writes amount as a number, Google's spend-based CUD samples as a string; both are
// read exactly). An absent, empty, null or [] credits value has no credits.
func (rd *reader) credits(cr *credits) error {
	*cr = credits{items: cr.items[:0]}
	if !rd.has(cCredits) || isEmptyJSON(rd.cells[cCredits].b) {
		return nil
	}
	b, err := rd.text(cCredits)
	if err != nil {
		return err
	}
	v, err := jsonText(b)
	if err != nil {
		return rd.bad(cCredits, string(b), err)
	}
	if v.kind == jNull {
		return nil
	}
	if v.kind != jArray {
		return rd.bad(cCredits, string(b), nil)
	}
	var amt [40]byte
	err = elements(v, func(e jsonVal) error {
		if e.kind == jNull {
			return nil
		}
		if e.kind != jObject {
			return errNotRecord
		}
		var c credit
		var n int64
		m := members{b: e.raw}
		for m.next() {
			val, err := m.value()
			if err != nil {
				return err
			}
			switch string(m.key) {
			case "amount":
				raw, err := scalar(val, amt[:0])
				if err != nil {
					return err
				}
				if n, err = gpucost.ParseNanos(raw); err != nil && len(raw) > 0 {
					return err
				}
			case "type", "id", "full_name":
				raw, err := scalar(val, rd.vbuf[:0])
				if err != nil {
					return err
				}
				s := rd.in.Get(raw)
				switch string(m.key) {
				case "type":
					c.typ = s
				case "id":
					c.id = s
				default:
					c.fullName = s
				}
			}
		}
		if m.err != nil {
			return m.err
		}
		cr.add(c, n)
		return nil
	})
	if err != nil {
		return rd.bad(cCredits, string(b), err)
	}
	cr.types = rd.creditTypes(cr.items)
	return nil
}

// add counts one credit.
func (cr *credits) add(c credit, n int64) {
	cr.sum += n
	cr.items = append(cr.items, creditItem{typ: c.typ, nanos: n})
	if cr.cud.typ == "" && isCommitment(c.typ) {
		cr.cud = c
	}
}

// creditTypes returns the distinct types of items, sorted and joined with ",".
func (rd *reader) creditTypes(items []creditItem) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0].typ
	}
	var buf [8]string
	types := buf[:0]
	for _, it := range items {
		if it.typ != "" && !slices.Contains(types, it.typ) {
			types = append(types, it.typ)
		}
	}
	slices.Sort(types)
	return rd.in.Get([]byte(strings.Join(types, ",")))
}

// errNotRecord is an element of a repeated record that is not an object.
var errNotRecord = jsonErr(0, "an element is not a JSON object")

// scalar returns a string's unescaped content (appended to buf when escaped) or a number's or
// literal's text; null is empty.
func scalar(v jsonVal, buf []byte) ([]byte, error) {
	switch v.kind {
	case jString:
		if v.esc {
			return unescape(buf, v.raw, v.off)
		}
		return v.raw, nil
	case jNumber, jBool:
		return v.raw, nil
	case jNull:
		return nil, nil
	}
	return nil, jsonErr(v.off, "a JSON %s where text or a number belongs", kindName(v.kind))
}

func kindName(k jsonKind) string {
	return [...]string{"string", "number", "true or false", "null", "object", "array"}[k]
}

// jsonText reads b as one JSON value with nothing after it.
func jsonText(b []byte) (jsonVal, error) {
	v, end, err := value(b, 0)
	if err != nil {
		return v, err
	}
	if end = jsontext.SkipSpace(b, end); end != len(b) {
		return v, jsonErr(end, "text after the JSON value")
	}
	return v, nil
}

// isEmptyJSON reports whether a cell holds no elements: empty, [], {} or null.
func isEmptyJSON(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) == 0 || string(b) == "[]" || string(b) == "null" || string(b) == "{}"
}

// machineSpec is the system label naming a VM's machine type (Structure of Detailed data export,
// Available system labels).
const machineSpec = "compute.googleapis.com/machine_spec"

// labels sets the dimensions' tags from the labels, system_labels, tags and project.labels
// records, through a cache keyed by their cells. When a key appears in more than one, the most
// specific value wins: the resource's labels, then its system labels (whose keys are namespaced
// and cannot clash), then tags bound to the resource itself, then the project's labels, then
// tags the resource inherits.
func (rd *reader) labels(d *dims) error {
	key := rd.tagKey[:0]
	empty := true
	for _, f := range [...]field{rLabels, rSystemLabels, rTags, rProjectLabels} {
		if !rd.has(f) || isEmptyJSON(rd.cells[f].b) {
			key = append(key, 0)
			continue
		}
		empty = false
		c := &rd.cells[f]
		key = binary.AppendUvarint(key, uint64(len(c.b))<<2|uint64(c.esc)+1)
		key = append(key, c.b...)
	}
	rd.tagKey = key
	if empty {
		return nil
	}
	if l, ok := rd.tagSets.Get(key); ok {
		d.tags = l
		return nil
	}
	l := gpucost.Labels{}
	var inherited []string
	for _, f := range [...]field{rLabels, rSystemLabels, rTags, rProjectLabels} {
		err := rd.pairs(f, func(k, v string, inh bool) {
			if inh {
				inherited = append(inherited, k, v)
			} else if _, dup := l[k]; !dup {
				l[k] = v
			}
		})
		if err != nil {
			return err
		}
	}
	for i := 0; i < len(inherited); i += 2 {
		if _, dup := l[inherited[i]]; !dup {
			l[inherited[i]] = inherited[i+1]
		}
	}
	if len(l) == 0 {
		l = nil
	}
	rd.tagSets.Put(key, l)
	d.tags = l
	return nil
}

// pairs reads one repeated key/value record: a JSON array of {"key":…,"value":…} objects, as
// BigQuery writes labels, system_labels and project.labels (tags add "inherited" and
// "namespace"), or a JSON object of keys and values, as some users flatten them. Values that
// are not strings are kept as written; null values are skipped.
func (rd *reader) pairs(f field, fn func(k, v string, inherited bool)) error {
	if !rd.has(f) || isEmptyJSON(rd.cells[f].b) {
		return nil
	}
	b, err := rd.text(f)
	if err != nil {
		return err
	}
	v, err := jsonText(b)
	if err != nil {
		return rd.bad(f, string(b), err)
	}
	switch v.kind {
	case jNull:
		return nil
	case jObject:
		m := members{b: v.raw}
		for m.next() {
			val, err := m.value()
			if err == nil {
				var s []byte
				if s, err = scalar(val, rd.vbuf[:0]); err == nil && val.kind != jNull {
					fn(rd.in.Get(m.key), rd.in.Get(s), false)
				}
			}
			if err != nil {
				m.err = err
				break
			}
		}
		err = m.err
	case jArray:
		err = elements(v, func(e jsonVal) error { return rd.pair(e, f == rTags, fn) })
	default:
		err = errNotRecord
	}
	if err != nil {
		return rd.bad(f, string(b), err)
	}
	return nil
}

// pair reads one {"key":…,"value":…} element.
func (rd *reader) pair(e jsonVal, tags bool, fn func(k, v string, inherited bool)) error {
	if e.kind == jNull {
		return nil
	}
	if e.kind != jObject {
		return errNotRecord
	}
	var key, val string
	var hasKey, hasVal, inherited bool
	m := members{b: e.raw}
	for m.next() {
		x, err := m.value()
		if err != nil {
			return err
		}
		switch string(m.key) {
		case "key", "value":
			s, err := scalar(x, rd.vbuf[:0])
			if err != nil {
				return err
			}
			if string(m.key) == "key" {
				key, hasKey = rd.in.Get(s), x.kind != jNull
			} else {
				val, hasVal = rd.in.Get(s), x.kind != jNull
			}
		case "inherited":
			inherited = tags && string(x.raw) == "true"
		}
	}
	if m.err == nil && hasKey && hasVal {
		fn(key, val, inherited)
	}
	return m.err
}
