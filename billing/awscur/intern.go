package awscur

import (
	"unsafe"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/intern"
)

// mapLimit bounds the map caches: one that reaches it is emptied and refilled, so memory stays
// flat however many distinct tag sets, product attribute sets and extras a file holds.
const mapLimit = intern.MapLimit

// interner hands out one string per distinct byte sequence, so the lines of a file share their
// strings instead of allocating them per row.
type interner struct {
	strs intern.Strings
	last [numStrings]string // the previous row's value of each field
}

func newInterner() *interner { return &interner{} }

// field returns the string of a cell of field f.
func (in *interner) field(f field, b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if s := in.last[f]; string(b) == s {
		return s
	}
	s := in.bytes(b)
	in.last[f] = s
	return s
}

func (in *interner) bytes(b []byte) string { return in.strs.Get(b) }

// product is what the reader takes from a product attribute map.
type product struct {
	name, market string
}

// mapCache holds the parsed form of map cells and tag sets, keyed by their raw bytes.
type mapCache struct {
	tags        map[string]gpucost.Labels
	products    map[string]product
	extras      map[string]map[string]string
	lastTags    []byte // the key of the previous row's tags
	lastTag     gpucost.Labels
	hasLast     bool
	key         []byte // scratch for building keys
	recentExtra [256]recentExtra
}

func newMapCache() *mapCache {
	return &mapCache{
		tags:     make(map[string]gpucost.Labels, 256),
		products: make(map[string]product, 256),
		extras:   make(map[string]map[string]string, 256),
	}
}

// tagSet returns the Labels cached under key, building them with build on a miss. The returned
// map is shared by every line with the same tags and must not be modified.
func (mc *mapCache) tagSet(key []byte, build func() (gpucost.Labels, error)) (gpucost.Labels, error) {
	if len(key) == 0 {
		return nil, nil
	}
	if mc.hasLast && string(key) == string(mc.lastTags) {
		return mc.lastTag, nil
	}
	l, ok := mc.tags[string(key)]
	if !ok {
		var err error
		if l, err = build(); err != nil {
			return nil, err
		}
		if len(mc.tags) >= mapLimit {
			clear(mc.tags)
		}
		mc.tags[string(key)] = l
	}
	mc.lastTags, mc.lastTag, mc.hasLast = append(mc.lastTags[:0], key...), l, true
	return l, nil
}

// extra returns the x_ columns AWS's FOCUS export adds and that CUR carries: x_UsageType,
// x_Operation and x_ServiceCode (table-dictionary-focus-1-0-aws). The map is shared; nil when all
// three are empty.
func (mc *mapCache) extra(usageType, operation, serviceCode string) map[string]string {
	if usageType == "" && operation == "" && serviceCode == "" {
		return nil
	}
	// The strings are interned, so their data pointers pick a slot of a small direct-mapped
	// cache; the comparisons below confirm the hit (and are pointer comparisons when they do).
	h := uintptr(unsafe.Pointer(unsafe.StringData(usageType)))>>3 ^
		uintptr(unsafe.Pointer(unsafe.StringData(operation)))>>5 ^
		uintptr(unsafe.Pointer(unsafe.StringData(serviceCode)))>>7
	e := &mc.recentExtra[h%uintptr(len(mc.recentExtra))]
	if e.m != nil && e.usageType == usageType && e.operation == operation && e.serviceCode == serviceCode {
		return e.m
	}
	m := mc.extraFor(usageType, operation, serviceCode)
	*e = recentExtra{usageType, operation, serviceCode, m}
	return m
}

// recentExtra is a slot of the direct-mapped cache of extras.
type recentExtra struct {
	usageType, operation, serviceCode string
	m                                 map[string]string
}

// extraFor looks the extras up by value.
func (mc *mapCache) extraFor(usageType, operation, serviceCode string) map[string]string {
	k := append(mc.key[:0], usageType...)
	k = append(k, 0)
	k = append(k, operation...)
	k = append(k, 0)
	k = append(k, serviceCode...)
	mc.key = k
	if m, ok := mc.extras[string(k)]; ok {
		return m
	}
	m := make(map[string]string, 3)
	for name, v := range map[string]string{"x_UsageType": usageType, "x_Operation": operation, "x_ServiceCode": serviceCode} {
		if v != "" {
			m[name] = v
		}
	}
	if len(mc.extras) >= mapLimit {
		clear(mc.extras)
	}
	mc.extras[string(k)] = m
	return m
}

// costCategoryKey is the tag key of a cost category: "costCategory/<name>", the column name
// legacy CUR gave it, so cost categories and resource tags share Tags without clashing.
func costCategoryKey(name string) string { return "costCategory/" + name }
