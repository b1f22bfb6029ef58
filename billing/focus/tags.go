package focus

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/csvscan"
)

// maxInterned bounds each interning table, so memory stays flat however many distinct values a
// file holds: a full table is emptied and fills again with the values now in use.
const maxInterned = 1 << 14

// strCache interns the values of one column: bills repeat a handful of providers, accounts,
// services and SKUs millions of times, and each distinct value is allocated once. A small
// direct-mapped table in front of the map answers most look-ups with one comparison; it starts
// at 64 entries and grows to 1,024 for columns with more distinct values.
//
// A column whose values seldom repeat (descriptions, unique ids) gains nothing from the map, so
// once the map has filled with little use the column stops interning.
type strCache struct {
	slots    []strSlot
	shift    uint // 64 - log2(len(slots))
	looks    int  // look-ups and misses of the table since it last grew
	misses   int
	m        map[string]string // raw text → value
	enum     bool              // spell allowed values as the spec does
	hits     int               // map hits since the map was last emptied
	noIntern bool
}

type strSlot struct{ raw, v string }

// slotHash hashes the first and last eight bytes and the length of b: identifiers share
// prefixes (arn:aws:…) or suffixes (….JRTCKXETXF.6YS6EN2CT7) but seldom both.
func slotHash(b []byte) uint64 {
	n := len(b)
	var head, tail uint64
	if n >= 8 {
		head, tail = binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[n-8:])
	} else {
		for _, c := range b {
			head = head<<8 | uint64(c)
		}
	}
	return (head*0x9E3779B97F4A7C15 ^ tail ^ uint64(n)) * 0xC2B2AE3D27D4EB4F
}

func (c *strCache) get(b []byte) string {
	if c.slots == nil {
		c.slots, c.shift = make([]strSlot, 64), 64-6
	}
	c.looks++
	sl := &c.slots[slotHash(b)>>c.shift]
	if sl.raw == string(b) && sl.v != "" {
		return sl.v
	}
	if c.misses++; c.looks >= 4096 {
		c.grow()
	}
	if c.noIntern {
		v := string(b)
		sl.raw, sl.v = v, v
		return v
	}
	v, ok := c.m[string(b)]
	raw := ""
	if ok {
		c.hits++
		raw = v
		if c.enum && v != string(b) {
			raw = string(b) // a re-spelled value: keep the slot honest
		}
	} else {
		raw = string(b)
		v = raw
		if c.enum {
			v = canonicalEnum(raw)
		}
		c.add(raw, v)
	}
	sl.raw, sl.v = raw, v
	return v
}

// grow quadruples the table, up to 1,024 entries, when more than one look-up in eight missed.
func (c *strCache) grow() {
	if c.misses > c.looks/8 && len(c.slots) < 1024 {
		c.slots, c.shift = make([]strSlot, 4*len(c.slots)), c.shift-2
	}
	c.looks, c.misses = 0, 0
}

// add interns v under raw, emptying a full map, or giving up interning if the map filled up
// while answering fewer look-ups than it holds values.
func (c *strCache) add(raw, v string) {
	switch {
	case c.m == nil:
		c.m = make(map[string]string)
	case len(c.m) >= maxInterned && c.hits < maxInterned && !c.enum:
		c.m, c.noIntern = nil, true
		return
	case len(c.m) >= maxInterned:
		clear(c.m)
		c.hits = 0
	}
	c.m[raw] = v
}

// tagCache parses each distinct Tags text once; lines with identical tags share one map.
type tagCache struct {
	lastRaw []byte
	last    gpucost.Labels
	hasLast bool
	m       map[string]gpucost.Labels
	key     []byte // the key of a doubled field
	text    []byte // a doubled field unescaped
}

// get returns the tags of a FOCUS Key-Value Format value: a JSON object whose values are
// strings, numbers, booleans or null. Numbers and booleans keep their JSON text; null becomes an
// empty value; nested objects and arrays are kept as compact JSON. An empty object gives nil.
func (c *tagCache) get(b []byte) (gpucost.Labels, error) { return c.cached(b, b, false) }

// getDoubled is get of a CSV field written with its quotes doubled, raw as written. It is cached
// by that text, behind a 0 byte, which no JSON text starts with: a tag set seen before is not
// unescaped again.
func (c *tagCache) getDoubled(raw []byte) (gpucost.Labels, error) {
	c.key = append(append(c.key[:0], 0), raw...)
	return c.cached(c.key, raw, true)
}

// cached returns the tags cached under key, parsing text — unescaping it first when doubled —
// when they are not.
func (c *tagCache) cached(key, text []byte, doubled bool) (gpucost.Labels, error) {
	if c.hasLast && bytes.Equal(key, c.lastRaw) {
		return c.last, nil
	}
	l, ok := c.m[string(key)]
	if !ok {
		if doubled {
			c.text = csvscan.AppendUnescaped(c.text[:0], text)
			text = c.text
		}
		var err error
		if l, err = parseTags(text); err != nil {
			return nil, err
		}
		if c.m == nil {
			c.m = make(map[string]gpucost.Labels)
		} else if len(c.m) >= maxInterned {
			clear(c.m)
		}
		c.m[string(key)] = l
	}
	c.lastRaw = append(c.lastRaw[:0], key...)
	c.last, c.hasLast = l, true
	return l, nil
}

func parseTags(b []byte) (gpucost.Labels, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if d.More() {
		return nil, fmt.Errorf("text after the JSON object")
	}
	if len(m) == 0 {
		return nil, nil
	}
	l := make(gpucost.Labels, len(m))
	for k, v := range m {
		switch v := v.(type) {
		case string:
			l[k] = v
		case json.Number:
			l[k] = v.String()
		case bool:
			l[k] = strconv.FormatBool(v)
		case nil:
			l[k] = ""
		default:
			j, _ := json.Marshal(v)
			l[k] = string(j)
		}
	}
	return l, nil
}

// pairCache interns tag sets given as key/value pairs (a Parquet MAP column).
type pairCache struct {
	key []byte
	m   map[string]gpucost.Labels
}

// get returns the tags for the pairs kv (key, value, key, value, …); an empty set gives nil.
func (c *pairCache) get(kv []string) gpucost.Labels {
	if len(kv) == 0 {
		return nil
	}
	c.key = c.key[:0]
	for _, s := range kv {
		c.key = strconv.AppendInt(c.key, int64(len(s)), 10)
		c.key = append(c.key, ':')
		c.key = append(c.key, s...)
	}
	if l, ok := c.m[string(c.key)]; ok {
		return l
	}
	l := make(gpucost.Labels, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		l[kv[i]] = kv[i+1]
	}
	if c.m == nil {
		c.m = make(map[string]gpucost.Labels)
	} else if len(c.m) >= maxInterned {
		clear(c.m)
	}
	c.m[string(c.key)] = l
	return l
}
